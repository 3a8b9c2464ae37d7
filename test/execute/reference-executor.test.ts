// The reference executor on every backend: the values a hand computation
// gives, the formats' quantization numerics, errors that name the op and the
// rule, and the same bytes on WASM and native.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TensorplanError } from '../../dist/index.mjs';
import type { GraphDocument } from '../../dist/index.mjs';
import { BACKENDS, BOTH_BACKENDS, session } from '../support/backends';
import { EXACT_OPS, randomGraph, randomInputs } from './random-graphs';

describe.each(BACKENDS)('reference executor on %s', (backend) => {
  const tp = session(backend);

  it('runs a matmul chain in one arena with the values a hand computation gives', () => {
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [
        { name: 'x', shape: [2, 2], dtype: 'fp32' }, { name: 'w', shape: [2, 2], dtype: 'fp32' },
        { name: 'h', shape: [2, 2], dtype: 'fp32' }, { name: 'y', shape: [2, 2], dtype: 'fp32' },
      ],
      ops: [
        { name: 'mm', op: 'matmul', inputs: ['x', 'w'], outputs: ['h'], attributes: { transposeB: true } },
        { name: 'act', op: 'relu', inputs: ['h'], outputs: ['y'] },
      ],
      inputs: ['x'], outputs: ['y'], persistent: ['w'],
    };
    const plan = tp.plan(graph);
    const result = tp.executeReference(plan, { x: new Float32Array([1, 2, 3, 4]), w: new Float32Array([1, 0, -1, 1]) });
    // h = x w^T = [[1, 1], [3, 1]]... with w^T = [[1, -1], [0, 1]]: [[1, 1], [3, 1]]
    expect(Array.from(new Float32Array(result.outputs.y.buffer))).toEqual([1, 1, 3, 1]);
    expect(result.allocations).toBe(2);  // the arena and the persistent weight
    expect(result.peakBytes).toBe(plan.arenaBytes);
    expect(tp.verifyTrace(graph, plan.schedule, result.trace)).toEqual([]);
  });

  it('quantizes and dequantizes with the formats reference numerics', () => {
    const format = { shape: [32, 64], dtype: 'bf16' as const, recipe: 'mxfp8' as const, columnwise: false };
    const [data, scales] = tp.tensorSpecBuffers(format).buffers;
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [
        { name: 'x', shape: [32, 64], dtype: 'bf16' },
        { name: 'q', bytes: data.bytes }, { name: 's', bytes: scales.bytes },
        { name: 'y', shape: [32, 64], dtype: 'bf16' },
      ],
      ops: [
        { name: 'quant', op: 'quantize', inputs: ['x'], outputs: ['q', 's'], attributes: { recipe: 'mxfp8', columnwise: false } },
        { name: 'dequant', op: 'dequantize', inputs: ['q', 's'], outputs: ['y'], attributes: { recipe: 'mxfp8', columnwise: false } },
      ],
      inputs: ['x'], outputs: ['q', 'y'],
    };
    const x = randomInputs(graph, 3).x;
    const result = tp.executeReference(tp.plan(graph), { x });
    const direct = tp.quantize(format, x);
    expect(result.outputs.q).toEqual(direct.buffers[0].bytes);
    expect(result.outputs.y).toEqual(tp.dequantize(format, direct.buffers.map((b) => b.bytes)));
  });

  it('names the op and the rule when semantics are wrong', () => {
    const graph: GraphDocument = {
      format: 'tensorplan.graph', version: 1,
      tensors: [{ name: 'a', shape: [2, 3], dtype: 'fp32' }, { name: 'b', shape: [2, 3], dtype: 'fp32' }, { name: 'c', shape: [2, 2], dtype: 'fp32' }],
      ops: [{ name: 'mm', op: 'matmul', inputs: ['a', 'b'], outputs: ['c'] }],
      inputs: ['a', 'b'], outputs: ['c'],
    };
    const plan = tp.plan(graph);
    const inputs = { a: new Float32Array(6), b: new Float32Array(6) };
    expect(() => tp.executeReference(plan, inputs)).toThrow(/op "mm": inner dimensions differ/);
    expect(() => tp.executeReference(plan, { a: inputs.a })).toThrow(/graph input "b" has no bytes/);
    expect(() => tp.executeReference(plan, { ...inputs, zz: new Uint8Array(1) })).toThrow(TensorplanError);
    const conv = { ...graph, ops: [{ ...graph.ops[0], op: 'conv2d' }] };
    expect(() => tp.executeReference(tp.plan(conv), inputs)).toThrow(/ops\[0\]\.op = "conv2d": not an op of op set v1/);
    const badAttr = { ...graph, ops: [{ ...graph.ops[0], attributes: { alpha: 2 } }] };
    expect(() => tp.executeReference(tp.plan(badAttr), inputs)).toThrow(/ops\[0\]\.attributes\.alpha: matmul takes transposeA, transposeB/);
  });
});

describe.runIf(BOTH_BACKENDS)('reference executor parity', () => {
  it('WASM and native give identical bytes for ops without transcendental functions', () => {
    const wasm = session('wasm');
    const native = session('native');
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
      const graph = randomGraph(seed, EXACT_OPS);
      const plan = wasm.plan(graph);
      const inputs = randomInputs(graph, seed);
      expect(native.executeReference(plan, inputs)).toEqual(wasm.executeReference(plan, inputs));
    }), { numRuns: 25 });
  });
});
