// Cast to the 8-bit and 4-bit float types: the value ONNX's Cast gives, or ValueUnknown where the
// spec and ONNX Runtime's kernel give different values (the importer claims neither).
//
// Sources. FLOAT8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ): onnx 1.23.1, Cast-19..25 in
// onnx/defs/tensor/defs.cc (the two tables of Operators.md "Cast": `saturate` true clamps to
// +-FLT_MAX, false gives NaN, or +-Inf for E5M2), rounding to nearest even with subnormals.
// FLOAT4E2M1: onnx docs/docsgen/source/technical/float4.md, "Cast": round to nearest even within
// [-6, 6], beyond it +-6, +-Inf to +-6; `saturate` applies to FLOAT8 only (Cast's attribute text).
// ONNX Runtime 1.30 (include/onnxruntime/core/common/float8.h, the Float8* constructors from
// float; core/providers/cpu/tensor/cast_op.cc converts other types to FLOAT first) differs from
// the tables in three places, checked on onnxruntime 1.30.0 in
// test/frontends/onnx/onnx-cast-small-floats.test.ts:
// - E4M3FN, saturate 0, |x| in [480, 496): ORT gives +-448 (it clears the NaN mantissa), the spec NaN.
// - E5M2, saturate 0, |x| in [61440, 65536): ORT gives NaN (0x7B | 0x7C), the spec +-Inf.
// - A DOUBLE or integer source is rounded to FLOAT first (two roundings): where that differs from
//   rounding x once, as the spec's "[x]" does, the value is unknown.
// FLOAT4E2M1 from NaN: float4.md gives 6, the reference implementation (ml_dtypes, which
// onnx.reference's Cast uses) -0, and ORT 1.30 has no CPU kernel: unknown.
import { ValueUnknown } from './value-unknown.js';

/** One small binary float format. */
interface SmallFloat {
  name: string;
  /** Significant bits, the implicit one included. */
  bits: number;
  /** The least normal exponent (1 - bias). */
  minExp: number;
  /** The largest finite value. */
  max: number;
  /** Whether overflow without saturation gives +-Inf (E5M2) rather than NaN. */
  inf: boolean;
  /** Whether -0 exists (the FNUZ types have one zero, +0). */
  negativeZero: boolean;
  /** FLOAT4E2M1 always saturates and has no NaN. */
  alwaysSaturates?: boolean;
}

/** The formats by ONNX TensorProto.DataType number. */
export const SMALL_FLOATS: Record<number, SmallFloat> = {
  17: { name: 'FLOAT8E4M3FN', bits: 4, minExp: -6, max: 448, inf: false, negativeZero: true },
  18: { name: 'FLOAT8E4M3FNUZ', bits: 4, minExp: -7, max: 240, inf: false, negativeZero: false },
  19: { name: 'FLOAT8E5M2', bits: 3, minExp: -14, max: 57344, inf: true, negativeZero: true },
  20: { name: 'FLOAT8E5M2FNUZ', bits: 3, minExp: -15, max: 57344, inf: false, negativeZero: false },
  23: { name: 'FLOAT4E2M1', bits: 2, minExp: 0, max: 6, inf: false, negativeZero: true, alwaysSaturates: true },
};

export const isSmallFloat = (t: number): boolean => t in SMALL_FLOATS;

const scratch = new DataView(new ArrayBuffer(8));

/** floor(log2(a)) for a finite a > 0, from the double's exponent field. */
function exponentOf(a: number): number {
  scratch.setFloat64(0, a);
  const biased = (scratch.getUint16(0) >> 4) & 0x7ff;
  return biased === 0 ? -1023 : biased - 1023;
}

/** |v| rounded to nearest even with `bits` significant bits and subnormals below 2^minExp, unbounded above. */
export function roundSignificand(a: number, bits: number, minExp: number): number {
  if (a === 0 || !Number.isFinite(a)) return a;
  const ulp = 2 ** (Math.max(exponentOf(a), minExp) - bits + 1);
  const q = a / ulp;
  let r = Math.floor(q);
  const rest = q - r;
  if (rest > 0.5 || (rest === 0.5 && r % 2 === 1)) r += 1;
  return r * ulp;
}

/** The spec's conversion of x (a double) to format f: the tables of Cast, or float4.md. */
function specCast(f: SmallFloat, x: number, saturate: boolean): number {
  if (Number.isNaN(x)) return NaN;
  const negative = x < 0 || Object.is(x, -0);
  const sign = (v: number) => (negative ? (v === 0 && !f.negativeZero ? 0 : -v) : v);
  const sat = saturate || f.alwaysSaturates === true;
  const rounded = Number.isFinite(x) ? roundSignificand(Math.abs(x), f.bits, f.minExp) : Infinity;
  if (rounded > f.max) return sat ? sign(f.max) : f.inf ? sign(Infinity) : NaN;
  return sign(rounded);
}

/**
 * x converted to the small float type `to` as Cast does (x from a DOUBLE, an integer or a FLOAT
 * source, as a double); throws ValueUnknown where the spec and ONNX Runtime differ (above).
 */
export function castToSmallFloat(x: number, to: number, saturate: boolean): number {
  const f = SMALL_FLOATS[to];
  if (to === 23 && Number.isNaN(x)) {
    throw new ValueUnknown('Cast of NaN to FLOAT4E2M1: onnx float4.md gives 6, the reference implementation (ml_dtypes) -0, and ONNX Runtime 1.30 has no CPU kernel');
  }
  const once = specCast(f, x, saturate);
  const viaFloat = Math.fround(x);
  const twice = specCast(f, viaFloat, saturate);
  if (!Object.is(once, twice)) {
    throw new ValueUnknown(`Cast of ${x} to ${f.name}: rounded once (the spec) it is ${once}, through FLOAT (ONNX Runtime's Cast) ${twice}`);
  }
  const a = Math.abs(viaFloat);
  if (!saturate && to === 17 && a >= 480 && a < 496) {
    throw new ValueUnknown(`Cast of ${x} to FLOAT8E4M3FN with saturate=0: the spec gives NaN, ONNX Runtime 1.30 ${viaFloat < 0 ? -448 : 448}`);
  }
  if (!saturate && to === 19 && a >= 61440 && a < 65536) {
    throw new ValueUnknown(`Cast of ${x} to FLOAT8E5M2 with saturate=0: the spec gives ${viaFloat < 0 ? '-' : ''}Infinity, ONNX Runtime 1.30 NaN`);
  }
  return once;
}
