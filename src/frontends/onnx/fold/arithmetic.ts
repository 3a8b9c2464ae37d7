// Element-wise arithmetic, comparisons and logic, casts, reductions, Range and ConstantOfShape.
// Integer types compute in bigint and wrap to their width (as the runtime's kernels do); float
// types compute in double and each result is rounded to its type (FLOAT to single precision,
// FLOAT16 and BFLOAT16 to theirs: elements.ts roundFloat).
import { BOOL, FLOAT, FoldGap, broadcastIndex, castScalar, isIntegerType, numel, roundFloat, saturateInt, stridesOf, toSafeInt, wrapInt } from './elements.js';
import type { Elements, Scalar } from './elements.js';
import { broadcast } from './movement.js';
import { elemTypeName } from '../onnx-model.js';
import { attribute, attrInt, attrInts, axisOf, intsOf, required } from './tensor.js';
import type { FoldContext, Known } from './tensor.js';

type IntFn = (a: bigint, b: bigint) => bigint;
type FloatFn = (a: number, b: number) => number;

const noZero = (b: bigint): bigint => { if (b === 0n) throw new FoldGap('integer division by zero'); return b; };
/** Integer Mod: fmod = 0 takes the divisor's sign (Python), fmod = 1 the dividend's (C). */
const intMod = (fmod: boolean): IntFn => (a, b) => {
  const r = a % noZero(b);
  return !fmod && r !== 0n && (r < 0n) !== (b < 0n) ? r + b : r;
};
const floatMod = (fmod: boolean): FloatFn => (a, b) => {
  const r = a % b;
  return !fmod && r !== 0 && (r < 0) !== (b < 0) ? r + b : r;
};

/** Binary (and variadic) arithmetic: integer and float definitions. */
const ARITHMETIC: Record<string, (c: FoldContext) => [IntFn, FloatFn]> = {
  Add: () => [(a, b) => a + b, (a, b) => a + b],
  Sum: () => [(a, b) => a + b, (a, b) => a + b],
  Sub: () => [(a, b) => a - b, (a, b) => a - b],
  Mul: () => [(a, b) => a * b, (a, b) => a * b],
  // Integer division truncates toward zero, as C++ (ORT's kernel) does; bigint division does too.
  Div: () => [(a, b) => a / noZero(b), (a, b) => a / b],
  Mod: (c) => [intMod(attrInt(c, 'fmod', 0) === 1), floatMod(attrInt(c, 'fmod', 0) === 1)],
  Pow: () => [(a, b) => { if (b < 0n) throw new FoldGap(`integer power with exponent ${b}`); return a ** b; }, (a, b) => a ** b],
  Max: () => [(a, b) => (a > b ? a : b), Math.max],
  Min: () => [(a, b) => (a < b ? a : b), Math.min],
};

const COMPARISON: Record<string, (a: Scalar, b: Scalar) => boolean> = {
  Equal: (a, b) => a === b, Less: (a, b) => a < b, Greater: (a, b) => a > b,
  LessOrEqual: (a, b) => a <= b, GreaterOrEqual: (a, b) => a >= b,
  And: (a, b) => !!a && !!b, Or: (a, b) => !!a || !!b, Xor: (a, b) => !!a !== !!b,
};

const UNARY: Record<string, [((a: bigint) => bigint) | undefined, (a: number) => number]> = {
  Neg: [(a) => -a, (a) => -a],
  Abs: [(a) => (a < 0n ? -a : a), Math.abs],
  Sign: [(a) => (a > 0n ? 1n : a < 0n ? -1n : 0n), Math.sign],
  Relu: [(a) => (a > 0n ? a : 0n), (a) => Math.max(0, a)],
  Identity: [(a) => a, (a) => a],
  Not: [(a) => (a ? 0n : 1n), (a) => +!a],
  Floor: [undefined, Math.floor],
  Ceil: [undefined, Math.ceil],
  // ONNX Round: halves to even.
  Round: [undefined, (a) => { const r = Math.round(a); return Math.abs(a % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r; }],
  Sqrt: [undefined, Math.sqrt],
  Reciprocal: [undefined, (a) => 1 / a],
};

function binary(c: FoldContext, a: Known, b: Known, op: string): Known {
  const shape = broadcast([a.shape, b.shape]);
  const [ai, bi] = [a, b].map((v) => broadcastIndex(v.shape, shape));
  const n = numel(shape);
  const data: Elements = new Array(n);
  const compare = COMPARISON[op];
  if (compare) {
    for (let i = 0; i < n; ++i) data[i] = compare(a.data[ai[i]], b.data[bi[i]]) ? 1n : 0n;
    return { shape, elemType: BOOL, data };
  }
  const t = a.elemType;
  if (b.elemType !== t && op !== 'Pow') throw new FoldGap(`operands have element types ${elemTypeName(t)} and ${elemTypeName(b.elemType)}`);
  const [intFn, floatFn] = ARITHMETIC[op](c);
  if (isIntegerType(t)) {
    for (let i = 0; i < n; ++i) data[i] = wrapInt(t, intFn(BigInt(a.data[ai[i]]), BigInt(b.data[bi[i]])));
  } else {
    for (let i = 0; i < n; ++i) data[i] = roundFloat(t, floatFn(Number(a.data[ai[i]]), Number(b.data[bi[i]])));
  }
  return { shape, elemType: t, data };
}

function unary(x: Known, op: string): Known {
  const [intFn, floatFn] = UNARY[op];
  if (isIntegerType(x.elemType)) {
    if (!intFn) throw new FoldGap(`${op} is not defined on integers`);
    return { shape: x.shape, elemType: x.elemType, data: x.data.map((v) => wrapInt(x.elemType, intFn(v as bigint))) };
  }
  return { shape: x.shape, elemType: x.elemType, data: x.data.map((v) => roundFloat(x.elemType, floatFn(v as number))) };
}

/** Cast / CastLike: `saturate` (Cast-19 and later, default 1) applies to the FLOAT8 targets only. */
export function cast(x: Known, to: number, saturate = true): Known {
  return { shape: x.shape, elemType: to, data: x.data.map((v) => castScalar(v, to, saturate)) };
}

/**
 * One reduction: its value on a non-empty group of integers (exact, bigint) and of floats
 * (double, before rounding to the type), and on the empty group. Integer results are then
 * clamped to the type (saturateInt), as ONNX Runtime 1.30's CPU kernels give them: measured,
 * int64 and int32 ReduceSum/Prod/Mean/SumSquare/L1/L2 saturate, ReduceMean truncates toward
 * zero ([-3, 0] gives -1), ReduceL2 truncates the square root ([3, 5] gives 5); see
 * test/frontends/onnx/onnx-reduce.test.ts. Beyond 2^53 ORT accumulates int64 in double
 * precision (ReduceSum of [2^53 + 1, 0] gives 2^53): there the evaluator stays exact and may
 * differ from it in the last bits; shape computations never get there.
 */
interface Reducer {
  int: ((xs: bigint[]) => bigint) | undefined;
  float: (xs: number[]) => number;
  /** The value over an empty set (ONNX spec, each op's "Reduction over an empty set of values yields ..."); undefined where the spec says "undefined" or the type has no value for it. */
  empty: (integer: boolean) => Scalar | undefined;
}

const bigSum = (xs: bigint[]): bigint => xs.reduce((a, b) => a + b, 0n);
const floatSum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const bigAbs = (v: bigint): bigint => (v < 0n ? -v : v);

const REDUCERS: Record<string, Reducer> = {
  ReduceSum: { int: bigSum, float: floatSum, empty: () => 0 },
  ReduceProd: { int: (xs) => xs.reduce((a, b) => a * b, 1n), float: (xs) => xs.reduce((a, b) => a * b, 1), empty: () => 1 },
  // Spec (opset 20): -inf / +inf where the type has them, else the type's extreme; an empty
  // integer max/min stays unknown (ORT before opset 20 fails on it).
  ReduceMax: { int: (xs) => xs.reduce((a, b) => (b > a ? b : a)), float: (xs) => xs.reduce((a, b) => (b > a ? b : a)), empty: (i) => (i ? undefined : -Infinity) },
  ReduceMin: { int: (xs) => xs.reduce((a, b) => (b < a ? b : a)), float: (xs) => xs.reduce((a, b) => (b < a ? b : a)), empty: (i) => (i ? undefined : Infinity) },
  // The mean of an empty set is "undefined" (spec): a float kernel gives 0/0, an integer one divides by zero.
  ReduceMean: { int: (xs) => bigSum(xs) / BigInt(xs.length), float: (xs) => floatSum(xs) / xs.length, empty: () => undefined },
  ReduceL1: { int: (xs) => bigSum(xs.map(bigAbs)), float: (xs) => floatSum(xs.map(Math.abs)), empty: () => 0 },
  ReduceSumSquare: { int: (xs) => bigSum(xs.map((v) => v * v)), float: (xs) => floatSum(xs.map((v) => v * v)), empty: () => 0 },
  // The integer square root, floor(sqrt(s)), exact for any s (Newton's method on bigints).
  ReduceL2: { int: (xs) => isqrt(bigSum(xs.map((v) => v * v))), float: (xs) => Math.sqrt(floatSum(xs.map((v) => v * v))), empty: () => 0 },
};

/** floor(sqrt(s)) for s >= 0, exact (Newton's method from a power of two above the root). */
export function isqrt(s: bigint): bigint {
  if (s < 2n) return s;
  let x = 1n << BigInt((s.toString(2).length >> 1) + 1);
  for (;;) {
    const y = (x + s / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** The reductions the evaluator computes. */
export const REDUCE_OPS: readonly string[] = Object.keys(REDUCERS);

/**
 * Reduction `op` over `axes` (all axes when absent or empty, none when `noopWithEmpty`: then each
 * element is reduced alone, so ReduceSumSquare squares it, as onnxruntime 1.30 and ONNX's
 * reference implementation (onnx 1.23, onnx/reference/ops/_op.py, OpRunReduceNumpy.handle_axes)
 * do, not the identity the spec's prose suggests).
 */
export function reduce(x: Known, op: string, axes: number[] | undefined, keep: boolean, noopWithEmpty: boolean): Known {
  const r = REDUCERS[op];
  const rank = x.shape.length;
  const all = !axes || axes.length === 0;
  const set = new Set(all ? (noopWithEmpty ? [] : x.shape.map((_, k) => k)) : axes.map((a) => axisOf(a, rank)));
  const outShape = x.shape.map((d, k) => (set.has(k) ? 1 : d));
  const outStrides = stridesOf(outShape);
  const n = numel(outShape);
  const groups: Scalar[][] = Array.from({ length: n }, () => []);
  const coord = new Array<number>(rank).fill(0);
  for (let i = 0; i < x.data.length; ++i) {
    let o = 0;
    for (let k = 0; k < rank; ++k) if (!set.has(k)) o += coord[k] * outStrides[k];
    groups[o].push(x.data[i]);
    for (let k = rank - 1; k >= 0; --k) { if (++coord[k] < x.shape[k]) break; coord[k] = 0; }
  }
  const t = x.elemType;
  const integer = isIntegerType(t);
  if (integer && !r.int) throw new FoldGap(`${op} is not defined on integers`);
  const data: Elements = groups.map((g) => {
    if (g.length === 0) {
      const e = r.empty(integer);
      if (e === undefined) throw new FoldGap(`${op} over an empty set of ${integer ? 'integers' : 'values'} has no defined value`);
      return castScalar(e, t);
    }
    return integer ? saturateInt(t, r.int!(g as bigint[])) : roundFloat(t, r.float(g as number[]));
  });
  return { shape: keep ? outShape : x.shape.filter((_, k) => !set.has(k)), elemType: t, data };
}

export function range(start: Known, limit: Known, delta: Known, maxElements: number): Known {
  const t = start.elemType;
  const [s, l, d] = [start, limit, delta].map((v) => {
    if (v.data.length !== 1) throw new FoldGap(`Range takes scalars, got shape [${v.shape.join(',')}]`);
    return v.data[0];
  });
  let n: number;
  if (isIntegerType(t)) {
    const [bs, bl, bd] = [s, l, d].map((v) => BigInt(v));
    if (bd === 0n) throw new FoldGap('Range with delta 0');
    const span = bl - bs;
    const q = span / bd + (span % bd !== 0n && (span > 0n) === (bd > 0n) ? 1n : 0n);
    n = q > 0n ? toSafeInt(q, 'the element count of Range') : 0;
  } else {
    if (Number(d) === 0) throw new FoldGap('Range with delta 0');
    n = Math.max(0, Math.ceil((Number(l) - Number(s)) / Number(d)));
  }
  if (n > maxElements) throw new FoldGap(`Range would have ${n} elements`);
  const data: Elements = Array.from({ length: n }, (_, i) => (isIntegerType(t)
    ? wrapInt(t, BigInt(s) + BigInt(i) * BigInt(d))
    : roundFloat(t, Number(s) + i * Number(d))));
  return { shape: [n], elemType: t, data };
}

/** Undefined where the value cannot be known (a ConstantOfShape fill the importer does not decode). */
export const ARITHMETIC_OPS: Record<string, (c: FoldContext) => Known[] | undefined> = {};
for (const op of Object.keys(ARITHMETIC)) {
  ARITHMETIC_OPS[op] = (c) => {
    const xs = c.inputs.filter((v): v is Known => !!v);
    if (xs.length === 0) throw new FoldGap('no inputs');
    return [xs.slice(1).reduce((acc, v) => binary(c, acc, v, op), xs[0])];
  };
}
for (const op of Object.keys(COMPARISON)) ARITHMETIC_OPS[op] = (c) => [binary(c, required(c, 0), required(c, 1), op)];
for (const op of Object.keys(UNARY)) ARITHMETIC_OPS[op] = (c) => [unary(required(c, 0), op)];
ARITHMETIC_OPS.Cast = (c) => [cast(required(c, 0), attribute(c, 'to')?.i ?? (() => { throw new FoldGap('the "to" attribute is missing'); })(), attrInt(c, 'saturate', 1) !== 0)];
ARITHMETIC_OPS.CastLike = (c) => [cast(required(c, 0), required(c, 1).elemType, attrInt(c, 'saturate', 1) !== 0)];
// `axes` is an attribute up to ReduceSum-11 and the other reductions' version 13, an optional
// input from ReduceSum-13 and ReduceMean/Min/Max/Prod/L1/L2/SumSquare-18, which also added
// `noop_with_empty_axes` (ONNX Operators.md, the versions of each Reduce* op). A file that sets
// it at an earlier opset gets it honoured, as the shape rule (onnx-infer.ts) does: the two agree.
for (const op of REDUCE_OPS) {
  ARITHMETIC_OPS[op] = (c) => {
    const fromInput = op === 'ReduceSum' ? c.opset >= 13 : c.opset >= 18;
    const axes = fromInput ? intsOf(c, 1, 'axes') : attrInts(c, 'axes');
    const noop = attrInt(c, 'noop_with_empty_axes', 0) === 1;
    return [reduce(required(c, 0), op, axes, attrInt(c, 'keepdims', 1) === 1, noop)];
  };
}
ARITHMETIC_OPS.Range = (c) => [range(required(c, 0), required(c, 1), required(c, 2), Infinity)];
ARITHMETIC_OPS.ConstantOfShape = (c) => {
  const shape = intsOf(c, 0, 'shape') ?? [];
  const t = attribute(c, 'value')?.t;
  const elemType = t?.dataType ?? FLOAT;
  // A FLOAT16 / BFLOAT16 fill is not decoded (onnx-model.ts): its value is unknown, never 0.
  if (t && !t.values?.length) return undefined;
  const fill = t?.values?.[0] ?? castScalar(0, elemType);
  if (shape.some((d) => d < 0)) throw new FoldGap(`shape [${shape.join(',')}] has a negative dimension`);
  return [{ shape, elemType, data: new Array(numel(shape)).fill(fill) }];
};
