// Bit-exact scalar conversions between fp32 and the narrow formats of
// FORMATS.md §4.1/§4.2. Every encoder takes an fp32 value and returns the
// stored bit pattern; every decoder returns the exact fp32 value of a pattern.
//
// Rounding is round-to-nearest-even everywhere (what the PTX `cvt.rn` and the
// CUDA `__nv_fp8_*` constructors do). The FP8/FP4 encoders saturate to the
// largest finite value ("satfinite"), as TE's casts do; bf16 and fp16 follow
// IEEE and overflow to infinity.
//
// The functions are inline and TP_HOST_DEVICE: the CUDA quantize kernels
// compile this very code, so the reference executor (native and WASM) and
// the GPU produce the same bytes by construction, not by a second
// implementation kept in step. Integer arithmetic only, except one fp32 add
// whose rounding mode is pinned (see subnormal_units).
#ifndef TENSORPLAN_NUMERIC_FORMATS_H
#define TENSORPLAN_NUMERIC_FORMATS_H

#include <cstdint>
#include <cstring>

#include "tensorplan/numerics/host_device.h"

namespace tp {

TP_HOST_DEVICE inline uint32_t float_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(value);
#else
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}

TP_HOST_DEVICE inline float float_from_bits(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

TP_HOST_DEVICE inline bool is_nan_bits(uint32_t bits) { return (bits & 0x7FFFFFFFu) > 0x7F800000u; }
TP_HOST_DEVICE inline bool is_inf_bits(uint32_t bits) { return (bits & 0x7FFFFFFFu) == 0x7F800000u; }

// Shape of a small IEEE-like binary format: exponent field width, mantissa
// width and bias. Subnormals sit at exponent field 0, as in all formats here.
struct MiniFloat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
};

constexpr MiniFloat kFp16Format{5, 10, 15};
constexpr MiniFloat kE4M3Format{4, 3, 7};
constexpr MiniFloat kE5M2Format{5, 2, 15};
constexpr MiniFloat kE2M1Format{2, 1, 1};

// Rounds the magnitude of a finite fp32 (given by its bits, sign ignored) to
// the nearest code of `format` with ties to even, on integers only so that
// the result is exact on every host. The code may exceed the format's largest
// finite code; callers decide between saturation and infinity. `limit` is
// returned when the value is far above the format's range, so the shifts
// below never overflow.
TP_HOST_DEVICE inline uint32_t round_magnitude(uint32_t fp32_bits, MiniFloat format, uint32_t limit) {
  const int exp32 = static_cast<int>((fp32_bits >> 23) & 0xFF);
  const uint32_t mantissa32 = fp32_bits & 0x7FFFFF;
  if (exp32 == 0 && mantissa32 == 0) return 0;
  const int max_field = (1 << format.exponent_bits) - 1;
  // fp32 subnormals behave like exponent 1 without the implicit bit.
  const int effective_exp = exp32 == 0 ? 1 : exp32;
  const uint64_t significand = exp32 == 0 ? mantissa32 : (mantissa32 | 0x800000u);
  const int target_exp = effective_exp - 127 + format.bias;
  if (target_exp > max_field) return limit;
  if (target_exp >= 1 && exp32 != 0) {
    // Normal in the target: keep mantissa_bits of the fraction.
    const int shift = 23 - format.mantissa_bits;
    uint64_t base = (static_cast<uint64_t>(target_exp) << format.mantissa_bits) | (mantissa32 >> shift);
    const uint64_t rest = mantissa32 & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (base & 1))) ++base;  // a carry moves into the exponent
    return static_cast<uint32_t>(base);
  }
  // Subnormal in the target: count units of 2^(1 - bias - mantissa_bits).
  const int shift = (1 - format.bias - format.mantissa_bits) - (effective_exp - 150);
  if (shift > 25) return 0;  // below half the smallest subnormal
  uint64_t base = significand >> shift;
  const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (base & 1))) ++base;
  return static_cast<uint32_t>(base);
}

// Exact fp32 value of a finite magnitude code of `format`.
TP_HOST_DEVICE inline float decode_magnitude(uint32_t code, MiniFloat format) {
  const uint32_t field = code >> format.mantissa_bits;
  const uint32_t mantissa = code & ((1u << format.mantissa_bits) - 1);
  if (field == 0) {
    // mantissa * 2^(1 - bias - mantissa_bits), exact in fp32 for all formats here.
    const int exponent = 1 - format.bias - format.mantissa_bits;
    return static_cast<float>(mantissa) * float_from_bits(static_cast<uint32_t>(exponent + 127) << 23);
  }
  const uint32_t exp32 = field - static_cast<uint32_t>(format.bias) + 127;
  return float_from_bits((exp32 << 23) | (mantissa << (23 - format.mantissa_bits)));
}

// bf16: keeps the top 16 bits of fp32 after RNE; NaN stays a quiet NaN with
// its sign and payload top bits, overflow goes to infinity.
TP_HOST_DEVICE inline uint16_t float_to_bf16(float value) {
  const uint32_t bits = float_bits(value);
  if (is_nan_bits(bits)) return static_cast<uint16_t>((bits >> 16) | 0x0040);
  const uint32_t lsb = (bits >> 16) & 1;
  return static_cast<uint16_t>((bits + 0x7FFF + lsb) >> 16);
}

TP_HOST_DEVICE inline float bf16_to_float(uint16_t bits) { return float_from_bits(static_cast<uint32_t>(bits) << 16); }

// IEEE binary16: RNE, overflow to infinity, subnormals kept, NaN quieted.
TP_HOST_DEVICE inline uint16_t float_to_fp16(float value) {
  const uint32_t bits = float_bits(value);
  const uint32_t sign = (bits >> 16) & 0x8000;
  if (is_nan_bits(bits)) return static_cast<uint16_t>(sign | 0x7E00 | ((bits & 0x7FFFFF) >> 13));
  if (is_inf_bits(bits)) return static_cast<uint16_t>(sign | 0x7C00);
  uint32_t code = round_magnitude(bits, kFp16Format, 0x7C00);
  if (code >= 0x7C00) code = 0x7C00;  // overflow rounds to infinity (IEEE)
  return static_cast<uint16_t>(sign | code);
}

TP_HOST_DEVICE inline float fp16_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t magnitude = bits & 0x7FFF;
  if ((magnitude >> 10) == 0x1F) return float_from_bits(sign | 0x7F800000 | ((magnitude & 0x3FF) << 13));
  return float_from_bits(sign | float_bits(decode_magnitude(magnitude, kFp16Format)));
}

// The FP8/FP4 encoders specialise the generic rounding for speed (they run
// once per element). Normal results: add the rounding bias to the fp32 bits
// and shift, so RNE and the carry into the exponent come for free. Subnormal
// results: scale by a power of two (exact) and let the fp32 adder round to an
// integer with the 2^23 trick. The add is pinned to round-to-nearest-even
// and kept apart from the multiply, so no compiler contracts them into an
// FMA on any target.
TP_HOST_DEVICE inline uint32_t subnormal_units(uint32_t magnitude_bits, float unit_inverse) {
#if defined(__CUDA_ARCH__)
  const float shifted = __fadd_rn(__fmul_rn(float_from_bits(magnitude_bits), unit_inverse), 8388608.0f);
#else
  volatile float scaled = float_from_bits(magnitude_bits) * unit_inverse;  // exact: a power of two
  const float shifted = scaled + 8388608.0f;                                // rounds to an integer (RNE)
#endif
  return float_bits(shifted) - 0x4B000000u;
}

// OCP E4M3 ("fn"): bias 7, no infinity, 0x7F/0xFF are NaN, max 448 (0x7E).
// Out-of-range values and infinities saturate to ±448; NaN encodes as 0x7F
// with the input's sign bit.
TP_HOST_DEVICE inline uint8_t float_to_e4m3(float value) {
  const uint32_t bits = float_bits(value);
  const uint32_t sign = (bits >> 24) & 0x80;
  const uint32_t a = bits & 0x7FFFFFFF;
  if (a > 0x7F800000) return static_cast<uint8_t>(0x7F | sign);
  if (a >= 0x43E00000) return static_cast<uint8_t>(0x7E | sign);  // >= 448 (and inf) saturates
  if (a >= 0x3C800000) {                                          // >= 2^-6: normal
    const uint32_t rounded = (a + 0x7FFFF + ((a >> 20) & 1)) >> 20;
    return static_cast<uint8_t>((rounded - (120u << 3)) | sign);
  }
  return static_cast<uint8_t>(subnormal_units(a, 512.0f) | sign);  // units of 2^-9
}

// OCP E5M2: bias 15, 0x7C is infinity, max finite 57344 (0x7B). Saturating:
// infinities and out-of-range values become ±57344; NaN encodes as 0x7E with
// the input's sign bit.
TP_HOST_DEVICE inline uint8_t float_to_e5m2(float value) {
  const uint32_t bits = float_bits(value);
  const uint32_t sign = (bits >> 24) & 0x80;
  const uint32_t a = bits & 0x7FFFFFFF;
  if (a > 0x7F800000) return static_cast<uint8_t>(0x7E | sign);
  if (a >= 0x47600000) return static_cast<uint8_t>(0x7B | sign);  // >= 57344 (and inf) saturates
  if (a >= 0x38800000) {                                          // >= 2^-14: normal
    const uint32_t rounded = (a + 0xFFFFF + ((a >> 21) & 1)) >> 21;
    return static_cast<uint8_t>((rounded - (112u << 2)) | sign);
  }
  return static_cast<uint8_t>(subnormal_units(a, 65536.0f) | sign);  // units of 2^-16
}

// E2M1 (a 4-bit code in the low nibble): magnitudes {0,.5,1,1.5,2,3,4,6},
// bit 3 the sign. RNE onto those magnitudes with ties to the even code
// (0.25->0, 0.75->1, 5->4), clamped to ±6. E2M1 has no NaN: a NaN input gives
// +6 (code 0x7); this choice is ours, TE never feeds NaN to this cast.
TP_HOST_DEVICE inline uint8_t float_to_e2m1(float value) {
  const uint32_t bits = float_bits(value);
  const uint32_t sign = (bits >> 28) & 0x8;
  const uint32_t a = bits & 0x7FFFFFFF;
  if (a > 0x7F800000) return 0x7;
  if (a >= 0x40C00000) return static_cast<uint8_t>(0x7 | sign);  // >= 6 (and inf) saturates
  if (a >= 0x3F800000) {                                         // >= 1: normal
    const uint32_t rounded = (a + 0x1FFFFF + ((a >> 22) & 1)) >> 22;
    return static_cast<uint8_t>((rounded - (126u << 1)) | sign);
  }
  return static_cast<uint8_t>(subnormal_units(a, 2.0f) | sign);  // units of 0.5
}

TP_HOST_DEVICE inline float e2m1_to_float(uint8_t code) {
  const uint32_t sign = static_cast<uint32_t>(code & 0x8) << 28;
  return float_from_bits(sign | float_bits(decode_magnitude(code & 0x7u, kE2M1Format)));
}

// Arithmetic FP8 decoders. The host goes through 256-entry tables built from
// these (dequantize decodes every element, and a lookup is several times
// faster on a CPU); the GPU computes them.
TP_HOST_DEVICE inline float decode_e4m3(uint8_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x80) << 24;
  const uint32_t magnitude = bits & 0x7Fu;
  if (magnitude == 0x7F) return float_from_bits(sign | 0x7FC00000);
  return float_from_bits(sign | float_bits(decode_magnitude(magnitude, kE4M3Format)));
}

TP_HOST_DEVICE inline float decode_e5m2(uint8_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x80) << 24;
  const uint32_t magnitude = bits & 0x7Fu;
  if (magnitude == 0x7C) return float_from_bits(sign | 0x7F800000);
  if (magnitude > 0x7C) return float_from_bits(sign | 0x7FC00000);
  return float_from_bits(sign | float_bits(decode_magnitude(magnitude, kE5M2Format)));
}

// 256-entry tables of decode_e4m3 / decode_e5m2 (host only).
const float* e4m3_decode_table();
const float* e5m2_decode_table();

TP_HOST_DEVICE inline float e4m3_to_float(uint8_t bits) {
#if defined(__CUDA_ARCH__)
  return decode_e4m3(bits);
#else
  return e4m3_decode_table()[bits];
#endif
}

TP_HOST_DEVICE inline float e5m2_to_float(uint8_t bits) {
#if defined(__CUDA_ARCH__)
  return decode_e5m2(bits);
#else
  return e5m2_decode_table()[bits];
#endif
}

// E8M0 scale from an fp32 value v, rounding the exponent UP, exactly as TE's
// software path `float_to_e8m0` (FORMATS.md §4.5): NaN -> 0xFF, +/-inf ->
// 0xFE, 0 -> 0; otherwise the exponent field, plus one when the mantissa is
// non-zero, except that 0xFE stays and a subnormal v <= 2^-127 gives 0.
TP_HOST_DEVICE inline uint8_t float_to_e8m0_round_up(float value) {
  const uint32_t bits = float_bits(value);
  if (is_nan_bits(bits)) return 0xFF;
  if (is_inf_bits(bits)) return 0xFE;
  if ((bits & 0x7FFFFFFF) == 0) return 0x00;
  // TE reads the exponent from the raw bits (a negative v would wrap; amax
  // based inputs are never negative).
  uint32_t exponent = (bits >> 23) & 0xFF;
  const uint32_t mantissa = bits & 0x7FFFFF;
  if (mantissa > 0 && exponent != 0xFE && !(exponent == 0 && mantissa <= 0x400000)) ++exponent;
  return static_cast<uint8_t>(exponent);
}

// 2^(E-127); 0xFF is NaN. E = 0 gives the fp32 subnormal 2^-127.
TP_HOST_DEVICE inline float e8m0_to_float(uint8_t bits) {
  if (bits == 0xFF) return float_from_bits(0x7FC00000);
  if (bits == 0) return float_from_bits(0x00400000);
  return float_from_bits(static_cast<uint32_t>(bits) << 23);
}

// The element multiplier 2^(127-E) built from its bits (TE's exp2f_rcp):
// E = 255 -> NaN, E = 254 -> 2^-127 (subnormal), otherwise exponent field 254-E.
TP_HOST_DEVICE inline float e8m0_reciprocal(uint8_t bits) {
  if (bits == 0xFF) return float_from_bits(0x7FFFFFFF);
  if (bits == 0xFE) return float_from_bits(0x00400000);
  return float_from_bits(static_cast<uint32_t>(254 - bits) << 23);
}

// Slow generic RNE + satfinite encoder for a small IEEE-like format
// (exponent field 0 = subnormals), kept to cross-check the fast encoders
// above: returns the sign bit above the exponent and mantissa, ORed with the
// magnitude code, saturated at max_code; NaN gives nan_code with the sign.
uint32_t encode_small_float_reference(float value, int exponent_bits, int mantissa_bits, int bias,
                                      uint32_t max_code, uint32_t nan_code);

// Packs two E2M1 codes into a byte: element 2i in the low nibble.
TP_HOST_DEVICE inline uint8_t pack_e2m1_pair(uint8_t even_code, uint8_t odd_code) {
  return static_cast<uint8_t>((even_code & 0xF) | ((odd_code & 0xF) << 4));
}

// IEEE-style fmaxf: a NaN operand is ignored (what TE's amax reductions do).
TP_HOST_DEVICE inline float fmax_ignoring_nan(float a, float b) {
  if (a != a) return b;
  if (b != b) return a;
  return a > b ? a : b;
}

// One NaN for every computed value: 0x7FFFFFFF, the NaN a GPU returns from
// any fp32 operation. CPUs keep an operand's payload and sign instead (x86
// makes 0 * inf the negative 0xFFC00000; WASM leaves NaN bits unspecified),
// so every executor output and every code cast from a product goes through
// this, and host, WASM and GPU write the same bytes.
constexpr uint32_t kCanonicalNanBits = 0x7FFFFFFFu;
TP_HOST_DEVICE inline float canonical_nan(float x) {
  return is_nan_bits(float_bits(x)) ? float_from_bits(kCanonicalNanBits) : x;
}

// |x| by clearing the sign bit (NaN stays NaN), the same on every target.
TP_HOST_DEVICE inline float abs_bits(float x) { return float_from_bits(float_bits(x) & 0x7FFFFFFFu); }

// Largest finite values, as TE's TypeExtrema uses them.
constexpr float kE4M3Max = 448.0f;
constexpr float kE5M2Max = 57344.0f;
constexpr float kE2M1Max = 6.0f;
constexpr float kBF16Max = 3.38953139e38f;  // 0x7F7F
constexpr float kFP16Max = 65504.0f;
constexpr float kFloatMax = 3.40282347e38f;  // FLT_MAX, spelled out for device code

}  // namespace tp

#endif  // TENSORPLAN_NUMERIC_FORMATS_H
