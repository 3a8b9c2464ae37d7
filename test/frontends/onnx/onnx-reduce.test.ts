// The evaluator's reductions (src/frontends/onnx/fold/arithmetic.ts) against direct definitions:
// each output element is the op applied to the input elements whose coordinates agree with it on
// the kept axes. Axes as attribute before opset 18 (ReduceSum: 13) and as input after, keepdims,
// noop_with_empty_axes; integer results saturated as onnxruntime gives them; and, where python has
// onnx and onnxruntime, onnxruntime's own outputs on random inputs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isqrt } from '../../../src/frontends/onnx/fold/arithmetic';
import type { Known } from '../../../src/frontends/onnx/fold/evaluate';
import { findPython, numel, python, run } from './fold-support';

const OPS = ['ReduceSum', 'ReduceProd', 'ReduceMax', 'ReduceMin', 'ReduceMean', 'ReduceL1', 'ReduceL2', 'ReduceSumSquare'];
const INT64 = 7, INT32 = 6, FLOAT = 1, DOUBLE = 11;
const ints = (values: number[]): Known => ({ shape: [values.length], elemType: INT64, data: values.map(BigInt) });

/** Direct definitions on one group, in input order (the same order the evaluator sums in). */
const FLOAT_DEF: Record<string, (xs: number[]) => number> = {
  ReduceSum: (xs) => xs.reduce((a, b) => a + b, 0),
  ReduceProd: (xs) => xs.reduce((a, b) => a * b, 1),
  ReduceMax: (xs) => xs.reduce((a, b) => (b > a ? b : a)),
  ReduceMin: (xs) => xs.reduce((a, b) => (b < a ? b : a)),
  ReduceMean: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
  ReduceL1: (xs) => xs.reduce((a, b) => a + Math.abs(b), 0),
  ReduceL2: (xs) => Math.sqrt(xs.reduce((a, b) => a + b * b, 0)),
  ReduceSumSquare: (xs) => xs.reduce((a, b) => a + b * b, 0),
};
const INT_DEF: Record<string, (xs: bigint[]) => bigint> = {
  ReduceSum: (xs) => xs.reduce((a, b) => a + b, 0n),
  ReduceProd: (xs) => xs.reduce((a, b) => a * b, 1n),
  ReduceMax: (xs) => xs.reduce((a, b) => (b > a ? b : a)),
  ReduceMin: (xs) => xs.reduce((a, b) => (b < a ? b : a)),
  ReduceMean: (xs) => xs.reduce((a, b) => a + b, 0n) / BigInt(xs.length), // truncates toward zero
  ReduceL1: (xs) => xs.reduce((a, b) => a + (b < 0n ? -b : b), 0n),
  ReduceL2: (xs) => isqrt(xs.reduce((a, b) => a + b * b, 0n)),
  ReduceSumSquare: (xs) => xs.reduce((a, b) => a + b * b, 0n),
};

/**
 * int64 results saturate at the type's bounds, as onnxruntime 1.30 gives them (measured; see the
 * saturation test below): a product of up to 256 values in [-50, 50] leaves the range.
 */
const clampInt64 = (v: bigint): bigint => (v > 2n ** 63n - 1n ? 2n ** 63n - 1n : v < -(2n ** 63n) ? -(2n ** 63n) : v);

/** All coordinates of a shape, row-major. */
const coords = (shape: number[]): number[][] => shape.reduce<number[][]>((acc, d) => acc.flatMap((c) => Array.from({ length: d }, (_, i) => [...c, i])), [[]]);

/** The direct definition: for each output coordinate (keepdims layout), the group of matching input elements. */
function direct(x: Known, op: string, reduced: number[], keep: boolean): Known {
  const outShape = x.shape.map((d, k) => (reduced.includes(k) ? 1 : d));
  const all = coords(x.shape);
  const data = coords(outShape).map((oc) => {
    const group = all.map((c, i) => [c, i] as const).filter(([c]) => c.every((v, k) => reduced.includes(k) || v === oc[k])).map(([, i]) => x.data[i]);
    if (x.elemType === INT64) return clampInt64(INT_DEF[op](group as bigint[]));
    const v = FLOAT_DEF[op](group as number[]);
    return x.elemType === FLOAT ? Math.fround(v) : v;
  });
  return { shape: keep ? outShape : x.shape.filter((_, k) => !reduced.includes(k)), elemType: x.elemType, data };
}

const shapeArb = fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 0, maxLength: 4 });
const tensorArb = fc.oneof(
  shapeArb.chain((shape) => fc.array(fc.bigInt({ min: -50n, max: 50n }), { minLength: numel(shape), maxLength: numel(shape) }).map((data): Known => ({ shape, elemType: INT64, data }))),
  shapeArb.chain((shape) => fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: numel(shape), maxLength: numel(shape) }).map((data): Known => ({ shape, elemType: DOUBLE, data }))),
  shapeArb.chain((shape) => fc.array(fc.float({ min: -100, max: 100, noNaN: true }), { minLength: numel(shape), maxLength: numel(shape) }).map((data): Known => ({ shape, elemType: FLOAT, data: data.map(Math.fround) }))),
);

describe('ONNX constant folding: reductions against direct definitions', () => {
  it('every reduction, axes as attribute (opset 13) or input (opset 18), negative axes, keepdims', () => {
    const arb = tensorArb.chain((x) => fc.record({
      x: fc.constant(x), op: fc.constantFrom(...OPS), keep: fc.boolean(), opset: fc.constantFrom(13, 18), negate: fc.boolean(),
      axes: fc.shuffledSubarray([...x.shape.keys()]),
    }));
    fc.assert(fc.property(arb, ({ x, op, keep, opset, negate, axes }) => {
      if (op === 'ReduceL2' && x.elemType === INT64) x = { ...x, data: x.data.map((v) => (v as bigint) % 10n) };
      const given = negate ? axes.map((a) => a - x.shape.length) : axes;
      const asInput = op === 'ReduceSum' ? opset >= 13 : opset >= 18;
      const inputs = asInput && given.length ? [x, ints(given)] : [x];
      const attrs = { keepdims: keep ? 1 : 0, ...(!asInput && given.length ? { axes: given } : {}) };
      const [y] = run(op, inputs, attrs, opset);
      expect(y).toEqual(direct(x, op, axes.length ? axes : [...x.shape.keys()], keep));
    }), { numRuns: 400 });
  });

  it('noop_with_empty_axes reduces each element alone (ReduceSumSquare squares, ReduceL1/L2 take |x|), as onnxruntime does', () => {
    fc.assert(fc.property(tensorArb, fc.constantFrom(...OPS), (x, op) => {
      const [y] = run(op, [x], { noop_with_empty_axes: 1 });
      expect(y.shape).toEqual(x.shape);
      expect(y).toEqual(direct(x, op, [], true));
      // An empty axes input is the same as none.
      expect(run(op, [x, ints([])], { noop_with_empty_axes: 1 })[0]).toEqual(y);
    }));
    expect(run('ReduceSumSquare', [ints([-2, 3])], { noop_with_empty_axes: 1 })[0].data).toEqual([4n, 9n]);
  });

  it('integer results saturate to the type, the mean truncates toward zero, L2 takes the integer square root', () => {
    const big = (elemType: number, ...v: bigint[]): Known => ({ shape: [v.length], elemType, data: v });
    const one = (op: string, x: Known) => run(op, [x], { keepdims: 0 })[0].data[0];
    // Measured with onnxruntime 1.30 (CPU): these are its outputs.
    expect(one('ReduceSum', big(INT64, 2n ** 62n, 2n ** 62n))).toBe(2n ** 63n - 1n);
    expect(one('ReduceProd', big(INT64, 2n ** 62n, 2n ** 62n, -(2n ** 62n)))).toBe(-(2n ** 63n));
    expect(one('ReduceProd', big(INT32, -(2n ** 31n), -1n))).toBe(2n ** 31n - 1n);
    expect(one('ReduceSum', big(INT32, -5n, 2n ** 30n, 2n ** 30n, 2n ** 30n))).toBe(2n ** 31n - 1n);
    expect(one('ReduceMean', big(INT32, 2n ** 31n - 1n, 1n))).toBe(2n ** 30n);
    expect(one('ReduceMean', big(INT64, -3n, 0n))).toBe(-1n);
    expect(one('ReduceMean', big(INT64, -7n, 2n, 0n))).toBe(-1n);
    expect(one('ReduceL2', big(INT64, 3n, 5n))).toBe(5n);
    expect(one('ReduceL2', big(INT32, -(2n ** 31n), -(2n ** 31n)))).toBe(2n ** 31n - 1n);
    expect(one('ReduceSumSquare', big(INT64, 2n ** 32n, 1n))).toBe(2n ** 63n - 1n);
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 200n }), (s) => {
      const r = isqrt(s);
      expect(r * r <= s && (r + 1n) * (r + 1n) > s).toBe(true);
    }));
  });

  it('reductions over an empty set: 0 for sums and norms, 1 for the product, infinities for max/min of floats; the mean has no value', () => {
    const empty = (elemType: number): Known => ({ shape: [2, 0], elemType, data: [] });
    const over = (op: string, x: Known) => run(op, [x, ints([1])])[0];
    for (const op of ['ReduceSum', 'ReduceL1', 'ReduceL2', 'ReduceSumSquare']) expect(over(op, empty(DOUBLE)).data).toEqual([0, 0]);
    expect(over('ReduceProd', empty(INT64)).data).toEqual([1n, 1n]);
    expect(over('ReduceMax', empty(FLOAT)).data).toEqual([-Infinity, -Infinity]);
    expect(over('ReduceMin', empty(FLOAT)).data).toEqual([Infinity, Infinity]);
    expect(() => over('ReduceMean', empty(FLOAT))).toThrow(/ReduceMean over an empty set of values has no defined value/);
    expect(() => over('ReduceMax', empty(INT64))).toThrow(/ReduceMax over an empty set of integers/);
  });
});

const py = findPython(['numpy', 'onnx', 'onnxruntime']);

describe.skipIf(!py.python)(`reductions against onnxruntime (${py.why})`, () => {
  it('agrees with onnxruntime\'s CPU kernels on random int64, int32, float and double inputs at opsets 13 and 18', () => {
    interface Case { op: string; elemType: number; shape: number[]; data: number[]; axes: number[]; keep: boolean; noop: boolean; opset: number }
    const caseArb = fc.record({
      op: fc.constantFrom(...OPS), elemType: fc.constantFrom(INT64, INT32, FLOAT, DOUBLE), keep: fc.boolean(), noop: fc.boolean(), opset: fc.constantFrom(13, 18),
      shape: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 3 }),
    }).chain((c) => fc.record({
      c: fc.constant(c),
      data: fc.array(fc.integer({ min: -9, max: 9 }).map((v) => (c.elemType === FLOAT || c.elemType === DOUBLE ? v / 4 : v)), { minLength: numel(c.shape), maxLength: numel(c.shape) }),
      axes: fc.subarray([...c.shape.keys()]),
    })).map(({ c, data, axes }): Case => ({ ...c, data, axes, noop: c.noop && c.opset >= 18 && (c.op !== 'ReduceSum' || c.opset >= 13) }));
    const cases = fc.sample(caseArb, { numRuns: 200, seed: 18 });
    const out = python<{ shape: number[]; data: number[] }[]>(py.python!, `
import json, sys, numpy as np, onnxruntime as ort
from onnx import helper, TensorProto
NP = {7: np.int64, 6: np.int32, 1: np.float32, 11: np.float64}
res = []
for c in json.load(sys.stdin):
    t = c['elemType']; as_input = c['opset'] >= (13 if c['op'] == 'ReduceSum' else 18)
    attrs = {'keepdims': int(c['keep'])}
    if c['noop']: attrs['noop_with_empty_axes'] = 1
    inputs = ['x']; inits = []
    if c['axes']:
        if as_input:
            inputs.append('axes'); inits.append(helper.make_tensor('axes', TensorProto.INT64, [len(c['axes'])], c['axes']))
        else:
            attrs['axes'] = c['axes']
    g = helper.make_graph([helper.make_node(c['op'], inputs, ['y'], **attrs)], 'g', [helper.make_tensor_value_info('x', t, c['shape'])], [helper.make_tensor_value_info('y', t, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', c['opset'])], ir_version=8)
    y = ort.InferenceSession(m.SerializeToString(), providers=['CPUExecutionProvider']).run(None, {'x': np.array(c['data'], NP[t]).reshape(c['shape'])})[0]
    res.append({'shape': list(y.shape), 'data': [float(v) for v in y.ravel()]})
print(json.dumps(res))
`, cases);
    cases.forEach((c, i) => {
      const integer = c.elemType === INT64 || c.elemType === INT32;
      const x: Known = { shape: c.shape, elemType: c.elemType, data: c.data.map((v) => (integer ? BigInt(v) : c.elemType === FLOAT ? Math.fround(v) : v)) };
      const asInput = c.opset >= (c.op === 'ReduceSum' ? 13 : 18);
      const inputs = asInput && c.axes.length ? [x, ints(c.axes)] : [x];
      const attrs = { keepdims: c.keep ? 1 : 0, ...(c.noop ? { noop_with_empty_axes: 1 } : {}), ...(!asInput && c.axes.length ? { axes: c.axes } : {}) };
      const [y] = run(c.op, inputs, attrs, c.opset);
      expect({ case: c, shape: y.shape, data: y.data.map(Number) }).toEqual({ case: c, ...out[i] });
    });
  });
});
