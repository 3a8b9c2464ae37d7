import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { TensorplanError, guarded, shown } from '../errors.js';
import { checkJsonData, checkSource } from '../json-data.js';
import type { GraphDocument } from './graph-document.js';
import { GRAPH_SCHEMA_V1 } from './graph-schema.js';

let ajv: Ajv2020 | undefined;

/** Validates `input` against a registered schema ($id); [] when it conforms. */
export function schemaErrors(schema: { $id: string }, input: unknown): ErrorObject[] {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, discriminator: true, strictTypes: false, strictTuples: false });
    ajv.addSchema(GRAPH_SCHEMA_V1);
  }
  const validator = ajv.getSchema(schema.$id) ?? ajv.compile(schema);
  return validator(input) ? [] : [...(validator.errors ?? [])];
}

function validate(input: unknown): ErrorObject[] {
  return schemaErrors(GRAPH_SCHEMA_V1, input);
}

/** `/ops/3/inputs/1` -> `ops[3].inputs[1]`. */
export function jsonPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function valueAt(input: unknown, pointer: string): unknown {
  let value = input;
  for (const part of pointer.split('/').slice(1)) value = (value as Record<string, unknown>)?.[part];
  return value;
}

/** One readable sentence for the most useful schema error. */
export function describeSchemaError(input: unknown, errors: ErrorObject[]): string {
  // A tensor that matches neither size form produces oneOf noise: say what is wanted.
  const tensorForm = errors.find((e) => e.keyword === 'oneOf' && /^\/tensors\/\d+$/.test(e.instancePath));
  const specific = errors.filter((e) => !['oneOf', 'not', 'anyOf', 'if'].includes(e.keyword));
  if (tensorForm && !specific.some((e) => e.instancePath.startsWith(tensorForm.instancePath + '/'))) {
    return `${jsonPath(tensorForm.instancePath)}: give either "bytes", or "shape" and "dtype"`;
  }
  const error = specific.sort((a, b) => b.instancePath.length - a.instancePath.length)[0] ?? errors[0];
  const path = jsonPath(error.instancePath) || '(the document)';
  const value = valueAt(input, error.instancePath);
  let detail = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') detail = `unknown property "${(error.params as { additionalProperty: string }).additionalProperty}"`;
  if (error.keyword === 'enum') detail += `: ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  if (error.keyword === 'discriminator') {
    const tag = (error.params as { tag: string }).tag;
    const tagValue = (value as Record<string, unknown> | undefined)?.[tag];
    return `${path}.${tag}: must be "view", "inPlace" or "group"${tagValue === undefined ? '' : ` (got ${shown(tagValue)})`}`;
  }
  if (error.keyword === 'const') detail = `must be ${shown((error.params as { allowedValue: unknown }).allowedValue)}`;
  const got = value === undefined || typeof value === 'object' ? '' : ` (got ${shown(value)})`;
  return `${path}: ${detail}${got}`;
}

function fail(source: string, message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', `${source}: ${message}`);
}

/**
 * Checks a graph document (graph file format v1) and returns it typed. The
 * schema checks the structure; this also checks that every name is defined
 * once and every reference names something that exists. Everything about
 * the graph's meaning (cycles, double writes, views beyond their base) is
 * checked by the core when the graph is planned.
 *
 * @param input - the parsed JSON
 * @param source - names the document in errors (a file name, say)
 *
 * @group Files
 */
export function parseGraph(input: unknown, source = 'graph'): GraphDocument {
  return guarded('parseGraph', [input, source], () => parseGraphChecked(input, source));
}

function parseGraphChecked(input: unknown, source: string): GraphDocument {
  checkJsonData(input, checkSource(source));
  const errors = validate(input);
  if (errors.length > 0) fail(source, describeSchemaError(input, errors));
  const graph = input as GraphDocument;

  const tensors = new Map<string, number>();
  graph.tensors.forEach((tensor, i) => {
    if (tensors.has(tensor.name)) fail(source, `tensors[${i}].name = ${shown(tensor.name)}: already used by tensors[${tensors.get(tensor.name)}]`);
    tensors.set(tensor.name, i);
  });
  const ops = new Map<string, number>();
  graph.ops.forEach((op, i) => {
    if (ops.has(op.name)) fail(source, `ops[${i}].name = ${shown(op.name)}: already used by ops[${ops.get(op.name)}]`);
    ops.set(op.name, i);
  });
  const tensorRef = (name: string, path: string) => {
    if (!tensors.has(name)) fail(source, `${path} = ${shown(name)}: unknown tensor`);
  };
  graph.ops.forEach((op, i) => {
    op.inputs.forEach((name, j) => tensorRef(name, `ops[${i}].inputs[${j}]`));
    op.outputs.forEach((name, j) => tensorRef(name, `ops[${i}].outputs[${j}]`));
    (op.after ?? []).forEach((name, j) => {
      if (!ops.has(name)) fail(source, `ops[${i}].after[${j}] = ${shown(name)}: unknown op`);
    });
  });
  (graph.aliases ?? []).forEach((alias, i) => {
    if (alias.kind === 'view') {
      tensorRef(alias.tensor, `aliases[${i}].tensor`);
      tensorRef(alias.base, `aliases[${i}].base`);
    } else if (alias.kind === 'inPlace') {
      tensorRef(alias.output, `aliases[${i}].output`);
      tensorRef(alias.input, `aliases[${i}].input`);
    } else {
      alias.members.forEach((name, j) => tensorRef(name, `aliases[${i}].members[${j}]`));
    }
  });
  for (const list of ['inputs', 'outputs', 'persistent'] as const) {
    (graph[list] ?? []).forEach((name, j) => tensorRef(name, `${list}[${j}]`));
  }
  const persistent = new Set(graph.persistent ?? []);
  const io = new Set([...(graph.inputs ?? []), ...(graph.outputs ?? [])]);
  (graph.externalIO ?? []).forEach((name, j) => {
    tensorRef(name, `externalIO[${j}]`);
    if (!io.has(name) || !persistent.has(name)) fail(source, `externalIO[${j}] = ${shown(name)}: must be a graph input or output that is also persistent (user buffers live outside the arena)`);
  });
  return graph;
}
