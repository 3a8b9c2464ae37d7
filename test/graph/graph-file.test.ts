// Graph file format v1: schema, name checks, the builder, and the documented schema file.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GRAPH_SCHEMA_V1, GraphBuilder, TensorplanError, parseGraph } from '../../dist/index.mjs';
import type { GraphDocument } from '../../dist/index.mjs';

const minimal = (): GraphDocument => ({
  format: 'tensorplan.graph',
  version: 1,
  tensors: [
    { name: 'x', shape: [8, 16], dtype: 'bf16' },
    { name: 'w', bytes: 512, alignment: 64 },
    { name: 'y', shape: [8, 16], dtype: 'fp32' },
    { name: 'y2', bytes: 512 },
  ],
  ops: [
    { name: 'mm', op: 'matmul', inputs: ['x', 'w'], outputs: ['y'], workspaceBytes: 1024 },
    { name: 'relu', op: 'relu', inputs: ['y'], outputs: ['y2'], after: ['mm'] },
  ],
  aliases: [{ kind: 'inPlace', output: 'y2', input: 'y' }],
  inputs: ['x'],
  outputs: ['y2'],
  persistent: ['w'],
});

function errorOf(input: unknown): string {
  try {
    parseGraph(input, 'g.json');
  } catch (error) {
    expect(error).toBeInstanceOf(TensorplanError);
    expect((error as TensorplanError).code).toBe('INVALID_ARGUMENT');
    return (error as Error).message;
  }
  throw new Error('expected parseGraph to fail');
}

describe('parseGraph', () => {
  it('accepts a valid graph unchanged', () => {
    const graph = minimal();
    expect(parseGraph(structuredClone(graph))).toEqual(graph);
  });

  it('accepts the empty graph', () => {
    expect(parseGraph({ format: 'tensorplan.graph', version: 1, tensors: [], ops: [] }).ops).toEqual([]);
  });

  it.each([
    [(g: any) => { g.version = 2; }, 'g.json: version: must be 1 (got 2)'],
    [(g: any) => { g.tensors[0].shape[1] = 2.5; }, 'g.json: tensors[0].shape[1]: must be integer (got 2.5)'],
    [(g: any) => { g.tensors[1].bytes = -1; }, 'g.json: tensors[1].bytes: must be >= 0 (got -1)'],
    [(g: any) => { g.tensors[0].dtype = 'float'; }, 'g.json: tensors[0].dtype: must be equal to one of the allowed values: fp32'],
    [(g: any) => { g.tensors[1].shape = [4]; }, 'g.json: tensors[1]: give either "bytes", or "shape" and "dtype"'],
    [(g: any) => { delete g.tensors[0].dtype; }, 'g.json: tensors[0]: give either "bytes", or "shape" and "dtype"'],
    [(g: any) => { g.ops[0].colour = 'red'; }, 'g.json: ops[0]: unknown property "colour"'],
    [(g: any) => { g.aliases[0] = { kind: 'copy', tensor: 'x' }; }, 'g.json: aliases[0].kind: must be "view", "inPlace" or "group" (got "copy")'],
    [(g: any) => { g.ops[1].inputs[0] = 'nope'; }, 'g.json: ops[1].inputs[0] = "nope": unknown tensor'],
    [(g: any) => { g.ops[1].after = ['later']; }, 'g.json: ops[1].after[0] = "later": unknown op'],
    [(g: any) => { g.tensors[3].name = 'x'; }, 'g.json: tensors[3].name = "x": already used by tensors[0]'],
    [(g: any) => { g.ops[1].name = 'mm'; }, 'g.json: ops[1].name = "mm": already used by ops[0]'],
    [(g: any) => { g.aliases[0].input = 'zz'; }, 'g.json: aliases[0].input = "zz": unknown tensor'],
    [(g: any) => { g.persistent = ['ghost']; }, 'g.json: persistent[0] = "ghost": unknown tensor'],
    [(g: any) => { g.tensors[0].shape = [2 ** 54]; }, 'g.json: tensors[0].shape[0]: must be <= 9007199254740992'],
  ])('reports %# naming the field and value', (mutate, message) => {
    const graph = minimal();
    mutate(graph);
    expect(errorOf(graph)).toContain(message);
  });

  it('rejects non-objects plainly', () => {
    expect(errorOf(null)).toContain('g.json: (the document): must be object');
    expect(errorOf([])).toContain('must be object');
  });
});

describe('GraphBuilder', () => {
  it('builds the same document as the hand-written one', () => {
    const g = new GraphBuilder();
    const x = g.input('x', { shape: [8, 16], dtype: 'bf16' });
    const w = g.persistent('w', { bytes: 512, alignment: 64 });
    const y = g.tensor('y', { shape: [8, 16], dtype: 'fp32' });
    const y2 = g.tensor('y2', { bytes: 512 });
    g.op('mm', 'matmul', [x, w], [y], { workspaceBytes: 1024 });
    g.op('relu', 'relu', [y], [y2], { after: ['mm'] });
    g.inPlace(y2, y);
    g.output(y2);
    const built = g.build();
    const expected = minimal();
    expect(built.tensors).toEqual(expected.tensors);
    expect(built.ops).toEqual(expected.ops);
    expect(built.aliases).toEqual(expected.aliases);
    expect([built.inputs, built.outputs, built.persistent]).toEqual([expected.inputs, expected.outputs, expected.persistent]);
  });

  it('build() reports the first problem', () => {
    const g = new GraphBuilder('broken');
    g.op('a', 'relu', ['missing'], []);
    expect(() => g.build()).toThrow('broken: ops[0].inputs[0] = "missing": unknown tensor');
  });
});

describe('documented schema', () => {
  it('docs/schemas/graph-v1.schema.json is the schema the SDK validates with (npm run schemas)', () => {
    const documented = JSON.parse(readFileSync(new URL('../../docs/schemas/graph-v1.schema.json', import.meta.url), 'utf8'));
    expect(documented).toEqual(JSON.parse(JSON.stringify(GRAPH_SCHEMA_V1)));
  });
});
