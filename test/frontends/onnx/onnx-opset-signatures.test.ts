// ONNX operators whose signature changed between opsets (an attribute
// that became an input) import correctly in the form their opset has, and a node
// in the form its opset does not have is a TensorplanError naming the node, the
// operator and the opset, never a raw exception or a silently different shape.
// Models: test/fixtures/opset (test/fixtures/make-opset-fixtures.mjs), opsets
// from the ONNX changelog (Split-13, Squeeze-13, Unsqueeze-13, ReduceSum-13,
// ReduceMean-18, Clip-11).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TensorplanError, importOnnx } from '../../../dist/index.mjs';
import type { GraphDocument } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
import { OPSET_CASES, opsetModel } from '../../fixtures/make-opset-fixtures.mjs';

const model = (name: string) => new Uint8Array(readFileSync(new URL(`../../fixtures/opset/${name}.onnx`, import.meta.url)));

/** Models in their opset's form, and the shapes of their outputs. */
const VALID: [string, Record<string, number[]>][] = [
  ['split-11-attribute', { y0: [2, 4], y1: [4, 4] }],
  ['split-13-input', { y0: [2, 4], y1: [4, 4] }],
  ['squeeze-11-attribute', { y: [3, 1, 4] }],
  ['squeeze-13-input', { y: [3, 1, 4] }],
  ['unsqueeze-11-attribute', { y: [1, 3, 4, 1] }],
  ['unsqueeze-13-input', { y: [1, 3, 4, 1] }],
  ['reducesum-11-attribute', { y: [2, 4] }],
  ['reducesum-13-input', { y: [2, 4] }],
  ['reducemean-13-attribute', { y: [2, 1, 4] }],
  ['reducemean-18-input', { y: [2, 1, 4] }],
  ['clip-6-attribute', { y: [2, 3] }],
  ['clip-11-input', { y: [2, 3] }],
];
/** Models in a form their opset does not have: [name, node, op type, opset]. */
const MISMATCHED: [string, string, string, number][] = [
  ['split-13-attribute', 'split', 'Split', 13],
  ['split-11-input', 'split', 'Split', 11],
  ['squeeze-13-attribute', 'squeeze', 'Squeeze', 13],
  ['squeeze-11-input', 'squeeze', 'Squeeze', 11],
  ['unsqueeze-13-attribute', 'unsqueeze', 'Unsqueeze', 13],
  ['unsqueeze-11-input', 'unsqueeze', 'Unsqueeze', 11],
  ['reducesum-13-attribute', 'reducesum', 'ReduceSum', 13],
  ['reducesum-12-input', 'reducesum', 'ReduceSum', 12],
  ['reducemean-18-attribute', 'reducemean', 'ReduceMean', 18],
  ['reducemean-17-input', 'reducemean', 'ReduceMean', 17],
  ['clip-11-attribute', 'clip', 'Clip', 11],
  ['clip-6-input', 'clip', 'Clip', 6],
];

function shapes(graph: GraphDocument, names: string[]): Record<string, number[] | undefined> {
  return Object.fromEntries(names.map((name) => [name, graph.tensors.find((t) => t.name === name)?.shape]));
}

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
}

it('the fixtures are what make-opset-fixtures.mjs writes', () => {
  for (const [name, spec] of Object.entries(OPSET_CASES)) expect(Buffer.from(model(name)), name).toEqual(Buffer.from(opsetModel(spec)));
  expect(Object.keys(OPSET_CASES).sort()).toEqual([...VALID.map(([n]) => n), ...MISMATCHED.map(([n]) => n)].sort());
});

describe('importOnnx (no session)', () => {
  it.each(VALID)('%s imports with the output shapes the opset defines', (name, expected) => {
    const { graph, opset } = importOnnx(model(name));
    expect(opset).toBe(Number(name.split('-')[1]));
    expect(shapes(graph, Object.keys(expected))).toEqual(expected);
  });

  it.each(MISMATCHED)('%s is refused, naming the node, op type and opset', (name, node, op, opset) => {
    const error = thrown(() => importOnnx(model(name), { source: `${name}.onnx` }));
    expect(error).toBeInstanceOf(TensorplanError);
    expect((error as TensorplanError).code).toBe('INVALID_ARGUMENT');
    expect((error as Error).message).toContain(`${name}.onnx: node "${node}" (${op}) at opset ${opset}: `);
  });
});

describe.each(BACKENDS)('tp.importOnnx on %s', (backend) => {
  const tp = session(backend);

  it.each(VALID)('%s imports (in place too) and plans', (name, expected) => {
    const { graph } = tp.importOnnx(model(name), { inPlace: true });
    expect(shapes(graph, Object.keys(expected))).toEqual(expected);
    const outputs = Object.values(expected).reduce((sum, shape) => sum + 4 * shape.reduce((a, b) => a * b, 1), 0);
    expect(tp.plan(graph).arenaBytes).toBeGreaterThanOrEqual(outputs);
  });

  it.each(MISMATCHED)('%s is refused, naming the node, op type and opset', (name, node, op, opset) => {
    const error = thrown(() => tp.importOnnx(model(name), { inPlace: true }));
    expect(error).toBeInstanceOf(TensorplanError);
    expect((error as Error).message).toContain(`node "${node}" (${op}) at opset ${opset}: `);
  });
});
