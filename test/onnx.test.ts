// ONNX import: shape inference per operator, views, folding, If inlining,
// in-place, errors, and planning the imported graphs on every backend.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TensorplanError, importOnnx, parseGraph } from '../dist/index.mjs';
import type { GraphDocument } from '../dist/index.mjs';
import { BACKENDS, BOTH_BACKENDS, session } from './backends';
import { T, ints, onnxModel, oneNode, weight } from './onnx-models.mjs';
import { ALL_MODELS, MODEL_OPTIONS, convNet, generatedModel, transformerBlock } from './onnx-zoo.mjs';

const tensor = (g: GraphDocument, name: string) => {
  const t = g.tensors.find((x) => x.name === name);
  if (!t) throw new Error(`no tensor ${name}`);
  return t;
};
const shapeOf = (model: Uint8Array, name = 'y', options = {}) => {
  const t = tensor(importOnnx(model, options).graph, name);
  return t.shape;
};

interface Case { op: string; model: Uint8Array; out: Record<string, number[]>; dtype?: string }

const x4 = { x: [1, 3, 32, 32] };
const CASES: Case[] = [
  { op: 'Conv', model: oneNode('Conv', x4, { initializers: [weight('w', [8, 3, 3, 3])], extraInputs: ['w'], attrs: { pads: [1, 1, 1, 1], strides: [2, 2] } }), out: { y: [1, 8, 16, 16] } },
  { op: 'Conv (auto_pad SAME_UPPER, dilation)', model: oneNode('Conv', x4, { initializers: [weight('w', [4, 3, 5, 5])], extraInputs: ['w'], attrs: { auto_pad: 'SAME_UPPER', strides: [3, 3] } }), out: { y: [1, 4, 11, 11] } },
  { op: 'Conv (grouped, dilated)', model: oneNode('Conv', { x: [2, 4, 20, 20] }, { initializers: [weight('w', [4, 1, 3, 3])], extraInputs: ['w'], attrs: { group: 4, dilations: [2, 2] } }), out: { y: [2, 4, 16, 16] } },
  { op: 'ConvTranspose', model: oneNode('ConvTranspose', { x: [1, 8, 16, 16] }, { initializers: [weight('w', [8, 4, 4, 4])], extraInputs: ['w'], attrs: { strides: [2, 2], pads: [1, 1, 1, 1] } }), out: { y: [1, 4, 32, 32] } },
  { op: 'MatMul (batched, broadcast)', model: oneNode('MatMul', { a: [2, 1, 5, 7], b: [3, 7, 4] }), out: { y: [2, 3, 5, 4] } },
  { op: 'MatMul (vector)', model: oneNode('MatMul', { a: [7], b: [2, 7, 4] }), out: { y: [2, 4] } },
  { op: 'Gemm (transB)', model: oneNode('Gemm', { a: [6, 10] }, { initializers: [weight('b', [12, 10]), weight('c', [12])], extraInputs: ['b', 'c'], attrs: { transB: 1 } }), out: { y: [6, 12] } },
  { op: 'Add (broadcast)', model: oneNode('Add', { a: [4, 1, 6], b: [5, 1] }), out: { y: [4, 5, 6] } },
  { op: 'Where', model: oneNode('Where', { c: [3, 1], a: [1, 4], b: [1] }, { types: { c: T.BOOL } }), out: { y: [3, 4] } },
  { op: 'Equal', model: oneNode('Equal', { a: [2, 3], b: [3] }), out: { y: [2, 3] }, dtype: 'bool' },
  { op: 'Relu', model: oneNode('Relu', { a: [2, 3] }), out: { y: [2, 3] } },
  { op: 'Reshape (0 and -1)', model: oneNode('Reshape', { x: [2, 3, 4] }, { initializers: [ints('s', [0, -1])], extraInputs: ['s'] }), out: { y: [2, 12] } },
  { op: 'Transpose', model: oneNode('Transpose', { x: [2, 3, 4] }, { attrs: { perm: [2, 0, 1] } }), out: { y: [4, 2, 3] } },
  { op: 'Transpose (default reverses)', model: oneNode('Transpose', { x: [2, 3, 4] }), out: { y: [4, 3, 2] } },
  { op: 'Concat', model: oneNode('Concat', { a: [2, 3], b: [2, 5] }, { attrs: { axis: -1 } }), out: { y: [2, 8] } },
  { op: 'Split (sizes)', model: oneNode('Split', { x: [10, 4] }, { initializers: [ints('s', [3, 7])], extraInputs: ['s'], outputs: ['y0', 'y1'] }), out: { y0: [3, 4], y1: [7, 4] } },
  { op: 'Split (equal, opset 11 attr)', model: oneNode('Split', { x: [4, 9] }, { attrs: { axis: 1 }, outputs: ['y0', 'y1', 'y2'], opset: 11 }), out: { y0: [4, 3], y2: [4, 3] } },
  { op: 'Slice (negative, steps)', model: oneNode('Slice', { x: [10, 20] }, { initializers: [ints('st', [1, -1]), ints('en', [8, 0]), ints('ax', [0, 1]), ints('sp', [2, -3])], extraInputs: ['st', 'en', 'ax', 'sp'] }), out: { y: [4, 7] } },
  { op: 'Slice (opset 9 attrs, clamped)', model: oneNode('Slice', { x: [10, 20] }, { attrs: { starts: [2], ends: [1000], axes: [1] }, opset: 9 }), out: { y: [10, 18] } },
  { op: 'Squeeze', model: oneNode('Squeeze', { x: [1, 3, 1, 5] }, { initializers: [ints('ax', [0])], extraInputs: ['ax'] }), out: { y: [3, 1, 5] } },
  { op: 'Squeeze (all ones)', model: oneNode('Squeeze', { x: [1, 3, 1, 5] }), out: { y: [3, 5] } },
  { op: 'Unsqueeze', model: oneNode('Unsqueeze', { x: [3, 5] }, { initializers: [ints('ax', [0, -1])], extraInputs: ['ax'] }), out: { y: [1, 3, 5, 1] } },
  { op: 'Unsqueeze (opset 11 attr)', model: oneNode('Unsqueeze', { x: [3, 5] }, { attrs: { axes: [1] }, opset: 11 }), out: { y: [3, 1, 5] } },
  { op: 'Flatten', model: oneNode('Flatten', { x: [2, 3, 4, 5] }, { attrs: { axis: 2 } }), out: { y: [6, 20] } },
  { op: 'MaxPool (ceil, indices)', model: oneNode('MaxPool', { x: [1, 2, 7, 7] }, { attrs: { kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1 }, outputs: ['y', 'i'] }), out: { y: [1, 2, 4, 4], i: [1, 2, 4, 4] } },
  { op: 'AveragePool', model: oneNode('AveragePool', { x: [1, 2, 7, 7] }, { attrs: { kernel_shape: [3, 3], pads: [1, 1, 1, 1] } }), out: { y: [1, 2, 7, 7] } },
  { op: 'GlobalAveragePool', model: oneNode('GlobalAveragePool', { x: [2, 8, 7, 9] }), out: { y: [2, 8, 1, 1] } },
  { op: 'Resize (scales)', model: oneNode('Resize', { x: [1, 3, 10, 10] }, { initializers: [{ name: 'sc', dims: [4], floats: [1, 1, 2, 2.5] }], extraInputs: ['', 'sc'] }), out: { y: [1, 3, 20, 25] } },
  { op: 'Resize (sizes)', model: oneNode('Resize', { x: [1, 3, 10, 10] }, { initializers: [ints('sz', [1, 3, 7, 9])], extraInputs: ['', '', 'sz'] }), out: { y: [1, 3, 7, 9] } },
  { op: 'Softmax', model: oneNode('Softmax', { x: [4, 10] }), out: { y: [4, 10] } },
  { op: 'LayerNormalization (stats)', model: oneNode('LayerNormalization', { x: [2, 5, 8] }, { initializers: [weight('g', [8])], extraInputs: ['g'], outputs: ['y', 'm', 'r'] }), out: { y: [2, 5, 8], m: [2, 5, 1], r: [2, 5, 1] } },
  { op: 'BatchNormalization', model: oneNode('BatchNormalization', { x: [2, 4, 5, 5] }, { initializers: ['s', 'b', 'm', 'v'].map((n) => weight(n, [4])), extraInputs: ['s', 'b', 'm', 'v'] }), out: { y: [2, 4, 5, 5] } },
  { op: 'Cast', model: oneNode('Cast', { x: [3, 4] }, { attrs: { to: T.FLOAT16 } }), out: { y: [3, 4] }, dtype: 'fp16' },
  { op: 'Gather', model: oneNode('Gather', { x: [10, 6], i: [2, 3] }, { attrs: { axis: 0 }, types: { i: T.INT64 } }), out: { y: [2, 3, 6] } },
  { op: 'LSTM (bidirectional)', model: oneNode('LSTM', { x: [7, 2, 5] }, { initializers: [weight('w', [2, 32, 5]), weight('r', [2, 32, 8])], extraInputs: ['w', 'r'], attrs: { hidden_size: 8, direction: 'bidirectional' }, outputs: ['y', 'h', 'c'] }), out: { y: [7, 2, 2, 8], h: [2, 2, 8], c: [2, 2, 8] } },
  { op: 'GRU (batch-first)', model: oneNode('GRU', { x: [3, 9, 5] }, { initializers: [weight('w', [1, 18, 5]), weight('r', [1, 18, 6])], extraInputs: ['w', 'r'], attrs: { hidden_size: 6, layout: 1 }, outputs: ['y', 'h'] }), out: { y: [3, 9, 1, 6], h: [3, 1, 6] } },
  { op: 'Pad', model: oneNode('Pad', { x: [1, 3, 8, 8] }, { initializers: [ints('p', [0, 0, 1, 2, 0, 0, 3, 4])], extraInputs: ['p'] }), out: { y: [1, 3, 12, 14] } },
  { op: 'ReduceMean (keepdims)', model: oneNode('ReduceMean', { x: [2, 3, 4] }, { attrs: { axes: [1] } }), out: { y: [2, 1, 4] } },
  { op: 'ReduceSum (axes input, no keepdims)', model: oneNode('ReduceSum', { x: [2, 3, 4] }, { initializers: [ints('ax', [0, 2])], extraInputs: ['ax'], attrs: { keepdims: 0 } }), out: { y: [3] } },
  { op: 'ArgMax', model: oneNode('ArgMax', { x: [2, 3, 4] }, { attrs: { axis: 2, keepdims: 0 } }), out: { y: [2, 3] }, dtype: 'int64' },
  { op: 'QuantizeLinear', model: oneNode('QuantizeLinear', { x: [4, 4] }, { initializers: [weight('s', []), { name: 'z', dims: [], type: T.INT8, raw: new Uint8Array(1) }], extraInputs: ['s', 'z'] }), out: { y: [4, 4] }, dtype: 'int8' },
  { op: 'DequantizeLinear', model: oneNode('DequantizeLinear', { x: [4, 4] }, { types: { x: T.INT8 }, initializers: [weight('s', [])], extraInputs: ['s'] }), out: { y: [4, 4] }, dtype: 'fp32' },
  { op: 'Expand', model: oneNode('Expand', { x: [3, 1] }, { initializers: [ints('s', [2, 1, 4])], extraInputs: ['s'] }), out: { y: [2, 3, 4] } },
  { op: 'Tile', model: oneNode('Tile', { x: [3, 2] }, { initializers: [ints('r', [2, 3])], extraInputs: ['r'] }), out: { y: [6, 6] } },
  { op: 'TopK', model: oneNode('TopK', { x: [5, 10] }, { initializers: [ints('k', [3])], extraInputs: ['k'], outputs: ['v', 'i'] }), out: { v: [5, 3], i: [5, 3] } },
  { op: 'DepthToSpace', model: oneNode('DepthToSpace', { x: [1, 8, 3, 3] }, { attrs: { blocksize: 2 } }), out: { y: [1, 2, 6, 6] } },
];

describe('ONNX import: shape inference per operator', () => {
  it.each(CASES.map((c) => [c.op, c] as const))('%s', (_name, c) => {
    const { graph } = importOnnx(c.model);
    for (const [name, shape] of Object.entries(c.out)) expect(tensor(graph, name).shape, name).toEqual(shape);
    if (c.dtype) expect(tensor(graph, Object.keys(c.out)[0]).dtype).toBe(c.dtype);
    expect(graph.ops).toHaveLength(1);
    expect(graph.ops[0].op).toBe(c.op.split(' ')[0]);
  });

  it('MatMul output shape follows numpy broadcasting for any batch shapes', () => {
    const dim = fc.integer({ min: 1, max: 4 });
    fc.assert(fc.property(fc.array(dim, { maxLength: 3 }), dim, dim, dim, (batch, m, k, n) => {
      const ones = batch.map(() => 1);
      const shape = shapeOf(oneNode('MatMul', { a: [...batch, m, k], b: [...ones, k, n] }));
      expect(shape).toEqual([...batch, m, n]);
    }), { numRuns: 30 });
  });

  it('Conv output size matches floor((in + pads - dilation*(k-1) - 1) / stride) + 1', () => {
    fc.assert(fc.property(fc.integer({ min: 5, max: 40 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 2 }), (size, k, stride, pad, dil) => {
        fc.pre(size + 2 * pad >= dil * (k - 1) + 1);
        const model = oneNode('Conv', { x: [1, 2, size, size] }, { initializers: [weight('w', [3, 2, k, k])], extraInputs: ['w'], attrs: { strides: [stride, stride], pads: [pad, pad, pad, pad], dilations: [dil, dil] } });
        const expected = Math.floor((size + 2 * pad - dil * (k - 1) - 1) / stride) + 1;
        expect(shapeOf(model)).toEqual([1, 3, expected, expected]);
      }), { numRuns: 40 });
  });

  it('maps ONNX element types onto graph dtypes, and sizes the others by bytes', () => {
    const types: [number, string][] = [[T.FLOAT, 'fp32'], [T.FLOAT16, 'fp16'], [T.BFLOAT16, 'bf16'], [T.INT8, 'int8'], [T.UINT8, 'uint8'],
      [T.INT32, 'int32'], [T.INT64, 'int64'], [T.BOOL, 'bool'], [T.DOUBLE, 'fp64'], [T.INT16, 'int16'], [T.FLOAT8E4M3FN, 'fp8_e4m3'], [T.FLOAT8E5M2, 'fp8_e5m2']];
    for (const [type, dtype] of types) {
      const t = tensor(importOnnx(oneNode('Identity', { x: [2, 3] }, { types: { x: type } })).graph, 'x');
      expect(t.dtype, `type ${type}`).toBe(dtype);
    }
    const u16 = tensor(importOnnx(oneNode('Identity', { x: [2, 3] }, { types: { x: T.UINT16 } })).graph, 'x');
    expect(u16).toMatchObject({ bytes: 12 });
    expect(() => importOnnx(oneNode('Identity', { x: [2] }, { types: { x: T.STRING } }))).toThrow(/STRING has no fixed size/);
  });
});

describe('ONNX import: inputs, views, folding, If, in-place', () => {
  it('binds symbolic dimensions by name and takes whole input shapes from options', () => {
    const model = oneNode('Relu', { x: ['batch', 3, 'h', 'h'] });
    expect(shapeOf(model, 'y', { dims: { batch: 2, h: 64 } })).toEqual([2, 3, 64, 64]);
    expect(shapeOf(model, 'y', { inputShapes: { x: [1, 3, 640, 640] } })).toEqual([1, 3, 640, 640]);
    expect(() => importOnnx(model, { dims: { batch: 2 } })).toThrow(/bind the symbolic dimension "h"/);
    expect(() => importOnnx(model, { inputShapes: { x: [1, 3] } })).toThrow(/rank 2/);
    expect(() => importOnnx(model, { inputShapes: { nope: [1] } })).toThrow(/no graph input "nope"/);
  });

  it('Reshape, Squeeze, Unsqueeze, Flatten and Identity outputs are views of their input', () => {
    const model = onnxModel({
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['a'] },
        { op: 'Reshape', inputs: ['a', 's'], outputs: ['b'] },
        { op: 'Unsqueeze', inputs: ['b', 'ax'], outputs: ['c'] },
        { op: 'Squeeze', inputs: ['c', 'ax'], outputs: ['d'] },
        { op: 'Flatten', inputs: ['d'], outputs: ['e'] },
        { op: 'Identity', inputs: ['e'], outputs: ['f'] },
        { op: 'Sigmoid', inputs: ['f'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', shape: [4, 6] }],
      initializers: [ints('s', [2, 12]), ints('ax', [0])],
      outputs: [{ name: 'y' }],
    });
    const r = importOnnx(model);
    expect(r.views).toBe(5);
    expect(r.graph.aliases).toEqual([
      { kind: 'view', tensor: 'b', base: 'a' }, { kind: 'view', tensor: 'c', base: 'b' }, { kind: 'view', tensor: 'd', base: 'c' },
      { kind: 'view', tensor: 'e', base: 'd' }, { kind: 'view', tensor: 'f', base: 'e' },
    ]);
    expect(tensor(r.graph, 'e').shape).toEqual([2, 12]);
    expect(r.graph.persistent).toEqual(['s', 'ax']);
  });

  it('folds constant and weight-only subgraphs and shape computations into persistent tensors', () => {
    // The Reshape target comes from Shape -> Gather -> Unsqueeze -> Concat on an activation.
    const model = onnxModel({
      nodes: [
        { op: 'Transpose', inputs: ['w'], outputs: ['wt'], attrs: { perm: [1, 0] } },
        { op: 'Mul', inputs: ['wt', 'two'], outputs: ['w2'] },
        { op: 'MatMul', inputs: ['x', 'w2'], outputs: ['h'] },
        { op: 'Shape', inputs: ['h'], outputs: ['hs'] },
        { op: 'Gather', inputs: ['hs', 'zero'], outputs: ['n'], attrs: { axis: 0 } },
        { op: 'Unsqueeze', inputs: ['n', 'zero1'], outputs: ['n1'] },
        { op: 'Constant', inputs: [], outputs: ['rest'], attrs: { value: { tensor: { dims: [2], ints: [4, -1] } } } },
        { op: 'Concat', inputs: ['n1', 'rest'], outputs: ['target'], attrs: { axis: 0 } },
        { op: 'Reshape', inputs: ['h', 'target'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', shape: [3, 16] }],
      initializers: [weight('w', [8, 16]), { name: 'two', dims: [], floats: [2] }, { name: 'zero', dims: [], ints: [0] }, ints('zero1', [0])],
      outputs: [{ name: 'y' }],
    });
    const r = importOnnx(model);
    expect(r.graph.ops.map((o) => o.op)).toEqual(['MatMul', 'Reshape']);
    expect(tensor(r.graph, 'y').shape).toEqual([3, 4, 2]);
    expect(r.graph.persistent).toEqual(['w2', 'target']);
    expect(tensor(r.graph, 'w2').shape).toEqual([16, 8]);
    expect(r.folded).toBe(7);
    expect(r.graph.tensors.map((t) => t.name)).not.toContain('w');
  });

  it('inlines If when the condition is known at import time, and says so when it is not', () => {
    const branch = (op: string) => ({ graph: { nodes: [{ op, inputs: ['x'], outputs: [`${op}_out`] }], outputs: [{ name: `${op}_out` }] } });
    const ifModel = (cond: boolean) => onnxModel({
      nodes: [
        { op: 'Shape', inputs: ['x'], outputs: ['s'] },
        { op: 'ReduceProd', inputs: ['s'], outputs: ['n'], attrs: { keepdims: 0 } },
        { op: 'Greater', inputs: ['n', 'limit'], outputs: ['c'] },
        { op: 'If', inputs: ['c'], outputs: ['z'], attrs: { then_branch: branch('Relu'), else_branch: branch('Tanh') } },
        { op: 'Neg', inputs: ['z'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', shape: [2, 5] }],
      initializers: [{ name: 'limit', dims: [], ints: [cond ? 3 : 30] }],
      outputs: [{ name: 'y' }],
    });
    for (const cond of [true, false]) {
      const r = importOnnx(ifModel(cond));
      expect(r.inlinedIfs).toBe(1);
      expect(r.graph.ops.map((o) => o.op)).toEqual([cond ? 'Relu' : 'Tanh', 'Neg']);
      expect(r.graph.ops[1].inputs).toEqual([cond ? 'Relu_out' : 'Tanh_out']);
    }
    const dynamic = onnxModel({
      nodes: [{ op: 'If', inputs: ['c'], outputs: ['y'], name: 'gate', attrs: { then_branch: branch('Relu'), else_branch: branch('Tanh') } }],
      inputs: [{ name: 'c', shape: [], type: T.BOOL }, { name: 'x', shape: [2] }],
      outputs: [{ name: 'y' }],
    });
    expect(() => importOnnx(dynamic)).toThrow(/node "gate" \(If\): its condition "c" is not known at import time/);
  });

  it('in place (an option): element-wise ops reuse an input that dies there, never a graph input, output or shared one', () => {
    const model = onnxModel({
      nodes: [
        { op: 'MatMul', inputs: ['x', 'w'], outputs: ['a'] },
        { op: 'Relu', inputs: ['a'], outputs: ['b'] },          // a dies here: in place
        { op: 'Sigmoid', inputs: ['b'], outputs: ['c'] },       // b is read again below: not in place
        { op: 'Mul', inputs: ['b', 'c'], outputs: ['d'] },      // b and c die here: in place of one of them
        { op: 'Tanh', inputs: ['d'], outputs: ['y'] },          // y is a graph output: the storage of d becomes an output
        { op: 'Exp', inputs: ['x'], outputs: ['e'] },           // x is a graph input: never
      ],
      inputs: [{ name: 'x', shape: [4, 4] }],
      initializers: [weight('w', [4, 4])],
      outputs: [{ name: 'y' }, { name: 'e' }],
    });
    expect(importOnnx(model).graph.aliases ?? []).toEqual([]);
    const r = importOnnx(model, { inPlace: true });
    const inPlace = (r.graph.aliases ?? []).filter((a) => a.kind === 'inPlace');
    expect(inPlace).toEqual([
      { kind: 'inPlace', output: 'b', input: 'a' },
      { kind: 'inPlace', output: 'd', input: 'b' },
      { kind: 'inPlace', output: 'y', input: 'd' },
    ]);
    expect(r.inPlace).toBe(3);
  });

  it('in place over a storage with views: readers of the views are ordered before the overwrite', () => {
    const model = onnxModel({
      nodes: [
        { op: 'MatMul', inputs: ['x', 'w'], outputs: ['a'], name: 'mm' },
        { op: 'Reshape', inputs: ['a', 's'], outputs: ['v'], name: 'view' },
        { op: 'Sigmoid', inputs: ['v'], outputs: ['u'], name: 'reads_view' },
        { op: 'Relu', inputs: ['a'], outputs: ['b'], name: 'overwrites' },
        { op: 'Neg', inputs: ['b'], outputs: ['y'], name: 'neg' },
      ],
      inputs: [{ name: 'x', shape: [4, 8] }],
      initializers: [weight('w', [8, 8]), ints('s', [32])],
      outputs: [{ name: 'y' }, { name: 'u' }],
    });
    const { graph } = importOnnx(model, { inPlace: true });
    expect(graph.aliases).toContainEqual({ kind: 'inPlace', output: 'b', input: 'a' });
    expect(graph.ops.find((o) => o.name === 'overwrites')?.after).toEqual(['reads_view']);
    // Without the edge a schedule could run reads_view after the overwrite; with it every backend keeps the order.
    for (const backend of BACKENDS) {
      const plan = session(backend).plan(graph);
      const order = plan.schedule;
      expect(order.indexOf('reads_view')).toBeLessThan(order.indexOf('overwrites'));
    }
  });
});

describe('ONNX import: errors', () => {
  it('an operator without a rule names the node and the operator, unless the file gives the shape', () => {
    const model = (withShape: boolean) => onnxModel({
      nodes: [{ op: 'NonZero', inputs: ['x'], outputs: ['idx'], name: 'nz' }, { op: 'Relu', inputs: ['idx'], outputs: ['y'] }],
      inputs: [{ name: 'x', shape: [5] }],
      outputs: [{ name: 'y' }],
      valueInfo: withShape ? [{ name: 'idx', type: T.INT64, shape: [1, 3] }] : [],
    });
    expect(() => importOnnx(model(false))).toThrow(/node "nz" \(NonZero\): cannot infer the shape of output "idx"/);
    expect(tensor(importOnnx(model(true)).graph, 'y')).toMatchObject({ shape: [1, 3], dtype: 'int64' });
  });

  it('a shape input that is not constant is named', () => {
    const model = oneNode('Reshape', { x: [2, 6], s: [2] }, { types: { s: T.INT64 } });
    expect(() => importOnnx(model)).toThrow(/\(Reshape\).*shape \(input 1, "s"\) is not a constant known at import time/);
  });

  it('inconsistent shapes, missing inputs and garbage bytes are clear errors', () => {
    expect(() => importOnnx(oneNode('Add', { a: [2, 3], b: [4] }))).toThrow(/\(Add\).*do not broadcast/);
    expect(() => importOnnx(oneNode('MatMul', { a: [2, 3], b: [4, 5] }))).toThrow(/inner dimensions differ/);
    expect(() => importOnnx(oneNode('Relu', { x: [null, 3] }))).toThrow(/graph input "x" has shape \[\?,3\]/);
    const missing = onnxModel({ nodes: [{ op: 'Relu', inputs: ['ghost'], outputs: ['y'] }], inputs: [], outputs: [{ name: 'y' }] });
    expect(() => importOnnx(missing)).toThrow(/reads "ghost", which no earlier node/);
    expect(() => importOnnx(new Uint8Array([0xff, 0xff, 0xff, 0x01, 0x02]), { source: 'bad.onnx' })).toThrow(TensorplanError);
    expect(() => importOnnx(new Uint8Array([0xff, 0xff, 0xff, 0x01, 0x02]), { source: 'bad.onnx' })).toThrow(/bad\.onnx: not a readable ONNX file/);
  });
});

describe('ONNX import: scale', () => {
  it('imports a generated model of 10^4 nodes', () => {
    const r = importOnnx(generatedModel(10_000));
    expect(r.nodes).toBe(10_000);
    expect(r.graph.ops.length).toBeGreaterThan(9_000);
    expect(parseGraph(JSON.parse(JSON.stringify(r.graph)))).toEqual(r.graph);
  });
});

describe.each(BACKENDS)('ONNX models planned on %s', (backend) => {
  const tp = session(backend);
  it.each(Object.keys(ALL_MODELS))('%s: a valid plan, arena >= LB, with and without in-place', (name) => {
    for (const inPlace of [false, true]) {
      const { graph } = importOnnx(ALL_MODELS[name](), { ...MODEL_OPTIONS[name], inPlace });
      const plan = tp.plan(graph);
      expect(tp.validate(plan)).toEqual([]);
      expect(plan.arenaBytes).toBeGreaterThanOrEqual(plan.statistics.lowerBoundBytes);
    }
  });

  it('in place never raises the peak of the conv net or the transformer block', () => {
    const dims = { batch: 2, seq: 128 };
    for (const make of [convNet, transformerBlock]) {
      const off = tp.plan(importOnnx(make(), { dims }).graph).statistics.peakBytes;
      const on = tp.plan(importOnnx(make(), { dims, inPlace: true }).graph).statistics.peakBytes;
      expect(on).toBeLessThanOrEqual(off);
    }
  });

  it('every per-operator model plans', () => {
    for (const c of CASES) expect(tp.validate(tp.plan(importOnnx(c.model).graph)), c.op).toEqual([]);
  });

  it.runIf(BOTH_BACKENDS && backend === 'wasm')('WASM and native plan the imported transformer block identically', () => {
    const graph = importOnnx(transformerBlock(), { dims: { batch: 2, seq: 128 }, inPlace: true }).graph;
    const strip = (p: ReturnType<typeof tp.plan>) => ({ ...p, tool: null, statistics: { ...p.statistics, timeMs: null } });
    expect(strip(session('native').plan(graph))).toEqual(strip(session('wasm').plan(graph)));
  });
});
