#include "tensorplan/numeric_formats.h"

#include <cstring>

namespace tp {

uint32_t float_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float float_from_bits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

namespace {

// Shape of a small IEEE-like binary format: exponent field width, mantissa
// width and bias. Subnormals sit at exponent field 0, as in all formats here.
struct MiniFloat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
};

// Rounds the magnitude of a finite fp32 (given by its bits, sign ignored) to
// the nearest code of `format` with ties to even, working on integers only so
// that the result is exact on every host. The code may exceed the format's
// largest finite code; callers decide between saturation and infinity.
// `limit` is returned when the value is far above the format's range, so the
// shifts below never overflow.
uint32_t round_magnitude(uint32_t fp32_bits, const MiniFloat& format, uint32_t limit) {
  const int exp32 = static_cast<int>((fp32_bits >> 23) & 0xFF);
  const uint32_t mantissa32 = fp32_bits & 0x7FFFFF;
  if (exp32 == 0 && mantissa32 == 0) return 0;
  const int max_field = (1 << format.exponent_bits) - 1;
  // fp32 subnormals behave like exponent 1 without the implicit bit.
  const int effective_exp = exp32 == 0 ? 1 : exp32;
  const uint64_t significand = exp32 == 0 ? mantissa32 : (mantissa32 | 0x800000u);
  const int target_exp = effective_exp - 127 + format.bias;
  if (target_exp > max_field) return limit;
  int shift;
  uint64_t base;
  if (target_exp >= 1 && exp32 != 0) {
    // Normal in the target: keep mantissa_bits of the fraction.
    shift = 23 - format.mantissa_bits;
    base = (static_cast<uint64_t>(target_exp) << format.mantissa_bits) |
           (mantissa32 >> shift);
    const uint64_t rest = mantissa32 & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (base & 1))) ++base;  // a carry moves into the exponent
    return static_cast<uint32_t>(base);
  }
  // Subnormal in the target: count units of 2^(1 - bias - mantissa_bits).
  shift = (1 - format.bias - format.mantissa_bits) - (effective_exp - 150);
  if (shift > 25) return 0;  // below half the smallest subnormal
  base = significand >> shift;
  const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (base & 1))) ++base;
  return static_cast<uint32_t>(base);
}

bool is_nan_bits(uint32_t bits) { return (bits & 0x7FFFFFFF) > 0x7F800000; }
bool is_inf_bits(uint32_t bits) { return (bits & 0x7FFFFFFF) == 0x7F800000; }

// Decodes a small IEEE-like format code (magnitude part) that is finite.
float decode_magnitude(uint32_t code, const MiniFloat& format) {
  const uint32_t field = code >> format.mantissa_bits;
  const uint32_t mantissa = code & ((1u << format.mantissa_bits) - 1);
  if (field == 0) {
    // mantissa * 2^(1 - bias - mantissa_bits), exact in fp32 for all formats here.
    const int exponent = 1 - format.bias - format.mantissa_bits;
    float unit = float_from_bits(static_cast<uint32_t>(exponent + 127) << 23);
    return static_cast<float>(mantissa) * unit;
  }
  const uint32_t exp32 = field - static_cast<uint32_t>(format.bias) + 127;
  return float_from_bits((exp32 << 23) | (mantissa << (23 - format.mantissa_bits)));
}

constexpr MiniFloat kFp16{5, 10, 15};
constexpr MiniFloat kE4M3{4, 3, 7};
constexpr MiniFloat kE5M2{5, 2, 15};
constexpr MiniFloat kE2M1{2, 1, 1};

}  // namespace

uint32_t encode_small_float_reference(float value, int exponent_bits, int mantissa_bits, int bias,
                                      uint32_t max_code, uint32_t nan_code) {
  const MiniFloat format{exponent_bits, mantissa_bits, bias};
  const uint32_t bits = float_bits(value);
  const uint32_t sign = (bits >> 31) << (exponent_bits + mantissa_bits);
  if (is_nan_bits(bits)) return nan_code | sign;
  if (is_inf_bits(bits)) return max_code | sign;
  uint32_t code = round_magnitude(bits, format, max_code + 1);
  if (code > max_code) code = max_code;
  return code | sign;
}

uint16_t float_to_bf16(float value) {
  const uint32_t bits = float_bits(value);
  if (is_nan_bits(bits)) return static_cast<uint16_t>((bits >> 16) | 0x0040);
  const uint32_t lsb = (bits >> 16) & 1;
  return static_cast<uint16_t>((bits + 0x7FFF + lsb) >> 16);
}

float bf16_to_float(uint16_t bits) { return float_from_bits(static_cast<uint32_t>(bits) << 16); }

uint16_t float_to_fp16(float value) {
  const uint32_t bits = float_bits(value);
  const uint32_t sign = (bits >> 16) & 0x8000;
  if (is_nan_bits(bits)) return static_cast<uint16_t>(sign | 0x7E00 | ((bits & 0x7FFFFF) >> 13));
  if (is_inf_bits(bits)) return static_cast<uint16_t>(sign | 0x7C00);
  uint32_t code = round_magnitude(bits, kFp16, 0x7C00);
  if (code >= 0x7C00) code = 0x7C00;  // overflow rounds to infinity (IEEE)
  return static_cast<uint16_t>(sign | code);
}

float fp16_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t magnitude = bits & 0x7FFF;
  if ((magnitude >> 10) == 0x1F) {
    const uint32_t mantissa = magnitude & 0x3FF;
    return float_from_bits(sign | 0x7F800000 | (mantissa << 13));
  }
  return float_from_bits(sign | float_bits(decode_magnitude(magnitude, kFp16)));
}

// The FP8/FP4 encoders below specialise the generic rounding for speed (they
// run once per element). Normal results: add the rounding bias to the fp32
// bits and shift, so RNE and the carry into the exponent come for free.
// Subnormal results: scale by a power of two (exact) and let the fp32 adder
// round to an integer with the 2^23 trick (default round-to-nearest-even).
namespace {

uint32_t subnormal_units(uint32_t magnitude_bits, float unit_inverse) {
  const float scaled = float_from_bits(magnitude_bits) * unit_inverse;  // exact: a power of two
  const float shifted = scaled + 8388608.0f;                            // rounds to an integer (RNE)
  return float_bits(shifted) - 0x4B000000u;
}

}  // namespace

uint8_t float_to_e4m3(float value) {
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

uint8_t float_to_e5m2(float value) {
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

uint8_t float_to_e2m1(float value) {
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

float e2m1_to_float(uint8_t code) {
  const uint32_t sign = static_cast<uint32_t>(code & 0x8) << 28;
  return float_from_bits(sign | float_bits(decode_magnitude(code & 0x7, kE2M1)));
}

namespace {

float decode_e4m3_slow(uint8_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x80) << 24;
  const uint32_t magnitude = bits & 0x7F;
  if (magnitude == 0x7F) return float_from_bits(sign | 0x7FC00000);
  return float_from_bits(sign | float_bits(decode_magnitude(magnitude, kE4M3)));
}

float decode_e5m2_slow(uint8_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x80) << 24;
  const uint32_t magnitude = bits & 0x7F;
  if (magnitude == 0x7C) return float_from_bits(sign | 0x7F800000);
  if (magnitude > 0x7C) return float_from_bits(sign | 0x7FC00000);
  return float_from_bits(sign | float_bits(decode_magnitude(magnitude, kE5M2)));
}

// 256-entry decode tables, built once from the formulas above: dequantize
// decodes every element, and a table lookup is several times faster.
struct Fp8Tables {
  float e4m3[256];
  float e5m2[256];
  Fp8Tables() {
    for (int code = 0; code < 256; ++code) {
      e4m3[code] = decode_e4m3_slow(static_cast<uint8_t>(code));
      e5m2[code] = decode_e5m2_slow(static_cast<uint8_t>(code));
    }
  }
};

const Fp8Tables& fp8_tables() {
  static const Fp8Tables tables;
  return tables;
}

}  // namespace

float e4m3_to_float(uint8_t bits) { return fp8_tables().e4m3[bits]; }


float e5m2_to_float(uint8_t bits) { return fp8_tables().e5m2[bits]; }

uint8_t float_to_e8m0_round_up(float value) {
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

float e8m0_to_float(uint8_t bits) {
  if (bits == 0xFF) return float_from_bits(0x7FC00000);
  if (bits == 0) return float_from_bits(0x00400000);
  return float_from_bits(static_cast<uint32_t>(bits) << 23);
}

float e8m0_reciprocal(uint8_t bits) {
  if (bits == 0xFF) return float_from_bits(0x7FFFFFFF);
  if (bits == 0xFE) return float_from_bits(0x00400000);
  return float_from_bits(static_cast<uint32_t>(254 - bits) << 23);
}

}  // namespace tp
