// Rounding of doubles to the 16-bit float types (FLOAT16 = IEEE 754 binary16, BFLOAT16 = the top
// half of a binary32), so that a folded value is the value ONNX Runtime computes in that type
// rather than a more precise double: a `Div` that ends in `Cast(to=INT64)` must give the same
// integer as the runtime, and that depends on the last bit of the 16-bit quotient.
//
// Both round to nearest, ties to even, with gradual underflow (subnormals) and overflow to
// +-infinity as IEEE 754 (2019) section 4.3.1 and 7.4 specify; NaN stays NaN, -0 stays -0.
// FLOAT16: 11 significant bits, normal exponents [-14, 15], largest finite 65504. BFLOAT16: 8
// significant bits, exponents of binary32 ([-126, 127]), largest finite (2 - 2^-7) * 2^127.
// Math.f16round (ECMAScript 2025) is the same function for FLOAT16 and is used where the Node
// version has it (Node 20, the project's minimum, does not).

/** One binary format: significant bits (implicit bit included), least normal exponent, largest finite value. */
interface Format { bits: number; minExp: number; max: number }

const HALF: Format = { bits: 11, minExp: -14, max: 65504 };
const BFLOAT: Format = { bits: 8, minExp: -126, max: (2 - 2 ** -7) * 2 ** 127 };

const scratch = new DataView(new ArrayBuffer(8));

/** floor(log2(|v|)) for a finite non-zero double, read from its exponent field (exact, unlike Math.log2). */
function exponentOf(v: number): number {
  scratch.setFloat64(0, v);
  const biased = (scratch.getUint16(0) >> 4) & 0x7ff;
  // Double subnormals (below 2^-1022) are far below both formats' least exponent: any value
  // under it gives the same ulp.
  return biased === 0 ? -1023 : biased - 1023;
}

function roundTo(f: Format, v: number): number {
  if (v === 0 || !Number.isFinite(v)) return v;
  const a = Math.abs(v);
  // The spacing of representable values around |v|: fixed below the least normal exponent
  // (subnormals), else 2^(e - bits + 1). Dividing and multiplying by a power of two is exact.
  const ulp = 2 ** (Math.max(exponentOf(a), f.minExp) - f.bits + 1);
  const q = a / ulp;
  let r = Math.floor(q);
  const rest = q - r;
  if (rest > 0.5 || (rest === 0.5 && r % 2 === 1)) r += 1;
  // A value at or above max + ulp/2 rounds to 2^(emax+1), which the format cannot hold: infinity.
  const rounded = r * ulp > f.max ? Infinity : r * ulp;
  return v < 0 ? -rounded : rounded;
}

/** The nearest FLOAT16 (IEEE 754 binary16) value to `v`, ties to even, overflow to +-infinity. Same as ECMAScript's Math.f16round. */
export function roundHalfImpl(v: number): number {
  return roundTo(HALF, v);
}

const nativeF16round = (Math as unknown as { f16round?: (v: number) => number }).f16round;

/** The nearest FLOAT16 value to `v` (Math.f16round where Node has it, else roundHalfImpl). */
export const roundHalf: (v: number) => number = nativeF16round ?? roundHalfImpl;

/**
 * The nearest BFLOAT16 value to `v`, ties to even, overflow to +-infinity. For a `v` that is a
 * FLOAT (binary32) value this is ONNX Runtime's conversion (onnxruntime 1.20,
 * include/onnxruntime/core/framework/float16.h, BFloat16 constructor from float: add a bias of
 * 0x7fff plus the lowest kept bit, keep the top 16 bits), which is round to nearest, ties to even.
 */
export function roundBfloat16(v: number): number {
  return roundTo(BFLOAT, v);
}
