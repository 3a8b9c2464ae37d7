// ONNX import: shape inference per operator, views, folding, If inlining,
// in-place, errors, and planning the imported graphs on every backend.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TensorplanError, importOnnx, parseGraph } from '../../../dist/index.mjs';
import type { GraphDocument } from '../../../dist/index.mjs';
import { BACKENDS, BOTH_BACKENDS, session } from '../../support/backends';
import { T, ints, onnxModel, oneNode, weight } from './onnx-models.mjs';
import { CASES } from './onnx-cases.mjs';
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

describe('ONNX import: shape inference per operator', () => {
  it.each(CASES.map((c) => [c.op, c] as const))('%s', (_name, c: { model: Uint8Array; out: Record<string, number[]>; dtype?: string; op: string }) => {
    const { graph } = importOnnx(c.model);
    for (const [name, shape] of Object.entries(c.out)) expect(tensor(graph, name).shape, name).toEqual(shape);
    if (c.dtype) expect(tensor(graph, Object.keys(c.out)[0]).dtype).toBe(c.dtype);
    expect(graph.ops).toHaveLength(1);
    expect(graph.ops[0].op).toBe(c.op.split(' ')[0]);
  });

  const UNARY = ['Relu', 'Sigmoid', 'Tanh', 'Exp', 'Log', 'Neg', 'Abs', 'Sqrt', 'Reciprocal', 'Erf', 'Gelu', 'LeakyRelu', 'Elu', 'Selu',
    'HardSigmoid', 'HardSwish', 'Softplus', 'Softsign', 'Clip', 'Sin', 'Cos', 'Floor', 'Ceil', 'Round', 'Sign', 'Mish', 'Celu',
    'Softmax', 'LogSoftmax', 'Hardmax', 'InstanceNormalization', 'LRN', 'Dropout', 'Identity', 'Trilu', 'CumSum'];
  it.each(UNARY)('%s keeps shape and type', (op) => {
    const t = tensor(importOnnx(oneNode(op, { x: [2, 3, 5, 7] }, { types: { x: T.FLOAT16 } })).graph, 'y');
    expect(t).toMatchObject({ shape: [2, 3, 5, 7], dtype: 'fp16' });
  });

  const BINARY = ['Add', 'Sub', 'Mul', 'Div', 'Pow', 'Max', 'Min', 'Sum', 'Mean', 'Mod'];
  const COMPARE = ['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual', 'And', 'Or', 'Xor'];
  it.each([...BINARY, ...COMPARE])('%s broadcasts its inputs', (op) => {
    const t = tensor(importOnnx(oneNode(op, { a: [3, 1, 5], b: [4, 1] }, { types: { a: T.INT32, b: T.INT32 } })).graph, 'y');
    expect(t).toMatchObject({ shape: [3, 4, 5], dtype: COMPARE.includes(op) ? 'bool' : 'int32' });
  });

  const REDUCE = ['ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp', 'ReduceSumSquare'];
  it.each(REDUCE)('%s: axes as attribute (opset 17) and as input (opset 18)', (op) => {
    expect(shapeOf(oneNode(op, { x: [2, 3, 4] }, { attrs: { axes: [-1], keepdims: 0 } }))).toEqual([2, 3]);
    expect(shapeOf(oneNode(op, { x: [2, 3, 4] }, { opset: 18, initializers: [ints('ax', [0])], extraInputs: ['ax'] }))).toEqual([1, 3, 4]);
    expect(shapeOf(oneNode(op, { x: [2, 3, 4] }, { opset: 18 }))).toEqual([1, 1, 1]);
  });

  it.each(['GlobalMaxPool', 'GlobalLpPool'])('%s reduces every spatial dimension to 1', (op) => {
    expect(shapeOf(oneNode(op, { x: [2, 3, 9, 4, 5] }))).toEqual([2, 3, 1, 1, 1]);
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
});

describe.each(BACKENDS)('ONNX import in place (%s)', (backend) => {
  const tp = session(backend);
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
    const r = tp.importOnnx(model, { inPlace: true });
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
    const { graph } = tp.importOnnx(model, { inPlace: true });
    expect(graph.aliases).toContainEqual({ kind: 'inPlace', output: 'b', input: 'a' });
    expect(graph.ops.find((o) => o.name === 'overwrites')?.after).toEqual(['reads_view']);
    // Without the edge a schedule could run reads_view after the overwrite; with it every backend keeps the order.
    for (const backend of BACKENDS) {
      const plan = session(backend).plan(graph);
      const order = plan.schedule;
      expect(order.indexOf('reads_view')).toBeLessThan(order.indexOf('overwrites'));
    }
  });

  it('the free importOnnx imports without a core, and says to use tp.importOnnx for in place', () => {
    const model = oneNode('Relu', { x: [2, 3] });
    expect(tp.importOnnx(model)).toEqual(importOnnx(model));
    let error: unknown;
    try {
      importOnnx(model, { inPlace: true, source: 'm.onnx' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TensorplanError);
    expect((error as TensorplanError).code).toBe('INVALID_ARGUMENT');
    expect((error as Error).message).toMatch(/^m\.onnx: inPlace: true needs the core.*use tp\.importOnnx\(bytes, options\)/);
  });
});

describe.each(BACKENDS)('ONNX in-place on random chains (%s)', (backend) => {
  const tp = session(backend);
  it('every in-place graph plans validly, orders readers before overwrites, and never needs more storage bytes', () => {
    const ops = ['Relu', 'Reshape', 'Add', 'Sigmoid', 'Flatten', 'Mul', 'Tanh'];
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom(...ops), fc.nat(), fc.boolean()), { minLength: 1, maxLength: 14 }), (steps) => {
      const nodes = [];
      const live = ['x'];
      steps.forEach(([op, pick, output], k) => {
        const a = live[pick % live.length], b = live[(pick * 7 + 3) % live.length];
        const inputs = op === 'Reshape' ? [a, 'shape'] : op === 'Add' || op === 'Mul' ? [a, b] : [a];
        nodes.push({ op, inputs, outputs: [`t${k}`], name: `n${k}` });
        live.push(`t${k}`);
        if (output) live.shift();
      });
      const model = onnxModel({
        nodes, inputs: [{ name: 'x', shape: [4, 16] }], initializers: [ints('shape', [4, 16])],
        outputs: [{ name: live[live.length - 1] }, ...(live.length > 1 ? [{ name: live[0] }] : [])].filter((o, i, all) => all.findIndex((p) => p.name === o.name) === i),
      });
      const off = tp.plan(importOnnx(model).graph);
      const onGraph = tp.importOnnx(model, { inPlace: true }).graph;
      const on = tp.plan(onGraph);
      expect(tp.validate(on)).toEqual([]);
      // In-place merges storages, so the bytes to place never grow. (The peak may: in-place
      // adds ordering constraints, so a lower peak is not guaranteed for every graph.)
      const storageBytes = (p: typeof on) => p.storages.reduce((sum, s) => sum + s.bytes, 0);
      expect(storageBytes(on)).toBeLessThanOrEqual(storageBytes(off));
      // No op reads a tensor after an op overwrote its storage, in the planned order.
      const step = new Map(on.schedule.map((name, i) => [name, i]));
      const writerOf = new Map(onGraph.ops.flatMap((o) => o.outputs.map((t) => [t, o.name] as const)));
      for (const alias of onGraph.aliases ?? []) {
        if (alias.kind !== 'inPlace') continue;
        const overwrite = step.get(writerOf.get(alias.output)!)!;
        const base = (t: string): string => { const v = (onGraph.aliases ?? []).find((x) => x.kind === 'view' && x.tensor === t); return v && v.kind === 'view' ? base(v.base) : t; };
        const sameStorage = onGraph.tensors.map((t) => t.name).filter((t) => base(t) === base(alias.input) && t !== alias.output);
        for (const o of onGraph.ops) {
          if (o.name === writerOf.get(alias.output) || !o.inputs.some((t) => sameStorage.includes(t))) continue;
          const pre = o.inputs.filter((t) => sameStorage.includes(t) && step.get(writerOf.get(t) ?? '') !== undefined && step.get(writerOf.get(t)!)! >= overwrite);
          if (pre.length === o.inputs.filter((t) => sameStorage.includes(t)).length) continue; // reads only values written after the overwrite
          expect(step.get(o.name)!, `${o.name} reads ${alias.input}'s storage`).toBeLessThan(overwrite);
        }
      }
    }), { numRuns: 60 });
  });
});

describe('ONNX import: errors', () => {
  it('an operator without a rule names the node and the operator, unless the file gives the shape', () => {
    const model = (withShape: boolean) => onnxModel({
      nodes: [{ op: 'NonZero', inputs: ['x'], outputs: ['idx'], name: 'nz' }, { op: 'Relu', inputs: ['idx'], outputs: ['y'] }],
      inputs: [{ name: 'x', shape: [5] }],
      outputs: [{ name: 'y' }],
      valueInfo: withShape ? [{ name: 'idx', type: T.INT64, shape: [1, 3] }] : [],
    }, 8);   // opset 8: NonZero is defined from opset 9, so no rule applies
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
    expect(() => importOnnx(missing)).toThrow(/reads "ghost", which no node, initializer or graph input provides/);
    expect(() => importOnnx(new Uint8Array([0xff, 0xff, 0xff, 0x01, 0x02]), { source: 'bad.onnx' })).toThrow(TensorplanError);
    expect(() => importOnnx(new Uint8Array([0xff, 0xff, 0xff, 0x01, 0x02]), { source: 'bad.onnx' })).toThrow(/bad\.onnx: not a readable ONNX file/);
  });
});

describe('ONNX import: a file written by the onnx package itself', () => {
  // test/fixtures/make-onnx-fixture.py wrote it with onnx.helper (raw_data initializers, BOOL Constant, If).
  const bytes = readFileSync(new URL('../../fixtures/official-writer.onnx', import.meta.url));
  it('decodes, binds N, inlines the If and infers Conv -> Reshape -> Relu -> Gemm', () => {
    const r = importOnnx(bytes, { dims: { N: 5 } });
    expect(r.producer).toBe('onnx-helper');
    expect(r.opset).toBe(17);
    expect(r.inlinedIfs).toBe(1);
    expect(r.graph.ops.map((o) => o.op)).toEqual(['Conv', 'Reshape', 'Relu', 'Gemm']);
    // Conv: floor((8 + 2 - 3) / 2) + 1 = 4; Reshape [0, -1] keeps N and flattens 4*4*4.
    expect(tensor(r.graph, 'c').shape).toEqual([5, 4, 4, 4]);
    expect(tensor(r.graph, 'f').shape).toEqual([5, 64]);
    expect(tensor(r.graph, 'y').shape).toEqual([5, 10]);
    expect(r.graph.persistent).toEqual(['W', 'B', 'shape', 'Wfc']);
    expect(r.graph.aliases).toEqual([{ kind: 'view', tensor: 'f', base: 'c' }]);
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
      const { graph } = tp.importOnnx(ALL_MODELS[name](), { ...MODEL_OPTIONS[name], inPlace });
      const plan = tp.plan(graph);
      expect(tp.validate(plan)).toEqual([]);
      expect(plan.arenaBytes).toBeGreaterThanOrEqual(plan.statistics.lowerBoundBytes);
    }
  });

  it('in place never raises the peak of the conv net or the transformer block', () => {
    const dims = { batch: 2, seq: 128 };
    for (const make of [convNet, transformerBlock]) {
      const off = tp.plan(importOnnx(make(), { dims }).graph).statistics.peakBytes;
      const on = tp.plan(tp.importOnnx(make(), { dims, inPlace: true }).graph).statistics.peakBytes;
      expect(on).toBeLessThanOrEqual(off);
    }
  });

  it('every per-operator model plans', () => {
    for (const c of CASES) expect(tp.validate(tp.plan(importOnnx(c.model).graph)), c.op).toEqual([]);
  });

  it.runIf(BOTH_BACKENDS && backend === 'wasm')('WASM and native plan the imported transformer block identically', () => {
    const graph = session('wasm').importOnnx(transformerBlock(), { dims: { batch: 2, seq: 128 }, inPlace: true }).graph;
    expect(session('native').importOnnx(transformerBlock(), { dims: { batch: 2, seq: 128 }, inPlace: true }).graph).toEqual(graph);
    const strip = (p: ReturnType<typeof tp.plan>) => ({ ...p, tool: null, statistics: { ...p.statistics, timeMs: null } });
    expect(strip(session('native').plan(graph))).toEqual(strip(session('wasm').plan(graph)));
  });
});
