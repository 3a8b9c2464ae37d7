// Element values of tensors known at import time, and the conversions between ONNX element types.
// Integer and bool elements are bigints so that int64 values are exact (INT64_MAX as a Slice end,
// 2^62 in a mask): only where a value becomes a dimension or an index is it converted to a number,
// and a value beyond 2^53 is then an error, never silently rounded.
import { roundBfloat16, roundHalf } from './half-precision.js';
import { castToSmallFloat, isSmallFloat } from './small-floats.js';
import { ValueUnknown } from './value-unknown.js';

/** One element: bigint for integer and bool types, number for floating-point types. */
export type Scalar = number | bigint;
/** The elements of a tensor, row-major. All bigint or all number (by the element type). */
export type Elements = Scalar[];

/**
 * The most elements one folded value may have. Larger values keep their shape and are planned
 * as data (a 1024x1024 mask folds; a 2048x2048 one does not): bounds the importer's time and
 * memory on models that build big constant tensors.
 */
export const MAX_FOLD_ELEMENTS = 2 ** 20;

/** Raised when a value cannot be computed at import time (the importer then falls back to shapes). */
export class FoldGap extends Error {}

/** Integer element types: bits and signedness (bool as 1 bit). ONNX TensorProto.DataType numbers. */
const INT_TYPES: Record<number, [bits: number, signed: boolean]> = {
  2: [8, false], 3: [8, true], 4: [16, false], 5: [16, true], 6: [32, true], 7: [64, true], 9: [1, false], 12: [32, false], 13: [64, false],
};
/** Floating-point element types the evaluator computes (FLOAT, FLOAT16, DOUBLE, BFLOAT16). */
const FLOAT_TYPES = new Set([1, 10, 11, 16]);

export const BOOL = 9;
export const INT64 = 7;
export const FLOAT = 1;

/** True for integer and bool element types (their elements are bigints). */
export const isIntegerType = (t: number): boolean => t in INT_TYPES;
/** True for element types whose values the evaluator can compute. */
export const isFoldableType = (t: number): boolean => t in INT_TYPES || FLOAT_TYPES.has(t);

export const numel = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/** An integer wrapped to its type's width, as the runtime's two's-complement arithmetic does. */
export function wrapInt(t: number, v: bigint): bigint {
  const [bits, signed] = INT_TYPES[t];
  if (bits === 1) return v !== 0n ? 1n : 0n;
  return signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
}

/**
 * An integer clamped to its type's range. ONNX Runtime's integer reductions saturate where the
 * exact result does not fit (onnxruntime 1.30: int64 ReduceSum of [2^62, 2^62] is INT64_MAX, int32
 * ReduceProd of [-2^31, -1] is INT32_MAX), unlike its element-wise arithmetic, which wraps.
 */
export function saturateInt(t: number, v: bigint): bigint {
  const [bits, signed] = INT_TYPES[t];
  if (bits === 1) return v !== 0n ? 1n : 0n;
  const lo = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const hi = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  return v < lo ? lo : v > hi ? hi : v;
}

export const FLOAT16 = 10;
export const BFLOAT16 = 16;

/**
 * A float result rounded to its type: FLOAT to single precision, FLOAT16 and BFLOAT16 to theirs
 * (half-precision.ts), DOUBLE kept. ONNX Runtime computes an op on 16-bit floats in FLOAT and
 * rounds the result to the 16-bit type; for +, -, *, / and sqrt of 16-bit operands that equals
 * rounding the exact (here: double) result once, since FLOAT has at least 2p + 2 bits of the
 * 16-bit type's p (Figueroa, "When is double rounding innocuous?", SIGNUM Newsletter 30(3), 1995).
 */
export function roundFloat(t: number, v: number): number {
  if (t === FLOAT) return Math.fround(v);
  if (t === FLOAT16) return roundHalf(v);
  if (t === BFLOAT16) return roundBfloat16(v);
  return v;
}

/**
 * One element converted to type `to` (ONNX Cast: floats truncate toward zero; bool is x != 0; the
 * FLOAT8 types and FLOAT4E2M1 as small-floats.ts says, `saturate` being Cast's attribute). Throws
 * ValueUnknown for a type whose values the evaluator does not compute (INT4, FLOAT8E8M0, STRING ...).
 */
export function castScalar(v: Scalar, to: number, saturate = true): Scalar {
  if (isSmallFloat(to)) return castToSmallFloat(Number(v), to, saturate);
  if (!isIntegerType(to) && !FLOAT_TYPES.has(to)) throw new ValueUnknown(`the evaluator does not compute values of element type ${to}`);
  if (isIntegerType(to)) {
    if (typeof v === 'bigint') return wrapInt(to, v);
    if (to === BOOL) return v !== 0 ? 1n : 0n;
    // Float to integer: "fixed point: undefined if OOR" (Operators.md "Cast"), NaN and +-Inf included.
    const t = Number.isFinite(v) ? BigInt(Math.trunc(v)) : undefined;
    if (t === undefined || saturateInt(to, t) !== t) throw new ValueUnknown(`Cast of ${v} to ${INT_TYPES[to][1] ? '' : 'U'}INT${INT_TYPES[to][0]}: out of its range, which the spec leaves undefined`);
    return t;
  }
  // To a 16-bit float, ONNX Runtime's Cast goes through FLOAT (two roundings): checked with
  // onnxruntime 1.30 on DOUBLE -> FLOAT16 (values a tie of FLOAT16 away after rounding to FLOAT
  // round as via FLOAT, not as directly) and INT64 -> BFLOAT16; test/frontends/onnx/onnx-half-precision.test.ts.
  if (to === FLOAT16 || to === BFLOAT16) return roundFloat(to, Math.fround(Number(v)));
  return roundFloat(to, Number(v));
}

/** Elements of a given list (numbers, bigints or booleans) as the elements of type `t`. */
export function elementsOf(values: readonly (number | bigint | boolean)[], t: number): Elements {
  return values.map((v) => castScalar(typeof v === 'boolean' ? (v ? 1n : 0n) : v, t));
}

/** A value as a dimension or index: an integer within 2^53, or an error that names it. */
export function toSafeInt(v: Scalar, what: string): number {
  if (typeof v === 'bigint') {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new FoldGap(`${what} holds ${v}, beyond 2^53: it cannot be a dimension or an index`);
    }
    return Number(v);
  }
  if (!Number.isInteger(v)) throw new FoldGap(`${what} holds ${v}, which is not an integer`);
  if (!Number.isSafeInteger(v)) throw new FoldGap(`${what} holds ${v}, beyond 2^53: it cannot be a dimension or an index`);
  return v;
}

/**
 * A Slice start or end as a number: values beyond 2^53 (INT64_MAX / INT64_MIN, PyTorch's "to the
 * end") are clamped to +-2^53, which any dimension clamps again to the same result.
 */
export function toClampedInt(v: Scalar): number {
  const limit = Number.MAX_SAFE_INTEGER;
  if (typeof v === 'bigint') return v > BigInt(limit) ? limit : v < -BigInt(limit) ? -limit : Number(v);
  return Math.min(Math.max(Math.trunc(v), -limit), limit);
}

/** Row-major strides of a shape. */
export function stridesOf(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let k = shape.length - 1; k >= 0; --k) { s[k] = acc; acc *= shape[k]; }
  return s;
}

/**
 * For each element of `out` (row-major), the flat index of the element of a tensor of shape `from`
 * that numpy broadcasting reads (dimensions of size 1 and missing leading ones repeat).
 */
export function broadcastIndex(from: readonly number[], out: readonly number[]): Int32Array {
  const n = numel(out);
  const index = new Int32Array(n);
  const rank = out.length;
  const fromStrides = stridesOf(from);
  const step = out.map((_, k) => {
    const j = k - (rank - from.length);
    return j < 0 || from[j] === 1 ? 0 : fromStrides[j];
  });
  const coord = new Array<number>(rank).fill(0);
  let src = 0;
  for (let i = 0; i < n; ++i) {
    index[i] = src;
    for (let k = rank - 1; k >= 0; --k) {
      coord[k] += 1;
      src += step[k];
      if (coord[k] < out[k]) break;
      src -= step[k] * out[k];
      coord[k] = 0;
    }
  }
  return index;
}
