// Bit-exact scalar conversions between fp32 and the narrow formats of
// FORMATS.md §4.1/§4.2. Every encoder takes an fp32 value and returns the
// stored bit pattern; every decoder returns the exact fp32 value of a pattern.
//
// Rounding is round-to-nearest-even everywhere (what the PTX `cvt.rn` and the
// CUDA `__nv_fp8_*` constructors do). The FP8/FP4 encoders saturate to the
// largest finite value ("satfinite"), as TE's casts do; bf16 and fp16 follow
// IEEE and overflow to infinity.
#ifndef TENSORPLAN_NUMERIC_FORMATS_H
#define TENSORPLAN_NUMERIC_FORMATS_H

#include <cstdint>

namespace tp {

uint32_t float_bits(float value);
float float_from_bits(uint32_t bits);

// bf16: keeps the top 16 bits of fp32 after RNE; NaN stays a quiet NaN with
// its sign and payload top bits, overflow goes to infinity.
uint16_t float_to_bf16(float value);
float bf16_to_float(uint16_t bits);

// IEEE binary16: RNE, overflow to infinity, subnormals kept, NaN quieted.
uint16_t float_to_fp16(float value);
float fp16_to_float(uint16_t bits);

// OCP E4M3 ("fn"): bias 7, no infinity, 0x7F/0xFF are NaN, max 448 (0x7E).
// Out-of-range values and infinities saturate to ±448; NaN encodes as
// 0x7F with the input's sign bit.
uint8_t float_to_e4m3(float value);
float e4m3_to_float(uint8_t bits);

// OCP E5M2: bias 15, 0x7C is infinity, max finite 57344 (0x7B). Saturating:
// infinities and out-of-range values become ±57344; NaN encodes as 0x7E
// with the input's sign bit.
uint8_t float_to_e5m2(float value);
float e5m2_to_float(uint8_t bits);

// E2M1 (a 4-bit code in the low nibble): magnitudes {0,.5,1,1.5,2,3,4,6},
// bit 3 the sign. RNE onto those magnitudes with ties to the even code
// (0.25->0, 0.75->1, 5->4), clamped to ±6. E2M1 has no NaN: a NaN input gives
// +6 (code 0x7); this choice is ours, TE never feeds NaN to this cast.
uint8_t float_to_e2m1(float value);
float e2m1_to_float(uint8_t code);

// E8M0 scale from an fp32 value v, rounding the exponent UP, exactly as TE's
// software path `float_to_e8m0` (FORMATS.md §4.5): NaN -> 0xFF, +/-inf ->
// 0xFE, 0 -> 0; otherwise the exponent field, plus one when the mantissa is
// non-zero, except that 0xFE stays and a subnormal v <= 2^-127 gives 0.
uint8_t float_to_e8m0_round_up(float value);
// 2^(E-127); 0xFF is NaN. E = 0 gives the fp32 subnormal 2^-127.
float e8m0_to_float(uint8_t bits);
// The element multiplier 2^(127-E) built from its bits (TE's exp2f_rcp):
// E = 255 -> NaN, E = 254 -> 2^-127 (subnormal), otherwise exponent field 254-E.
float e8m0_reciprocal(uint8_t bits);

// Slow generic RNE + satfinite encoder for a small IEEE-like format
// (exponent field 0 = subnormals), kept to cross-check the fast encoders
// above: returns the sign bit above the exponent and mantissa, ORed with the
// magnitude code, saturated at max_code; NaN gives nan_code with the sign.
uint32_t encode_small_float_reference(float value, int exponent_bits, int mantissa_bits, int bias,
                                      uint32_t max_code, uint32_t nan_code);

// Packs two E2M1 codes into a byte: element 2i in the low nibble.
inline uint8_t pack_e2m1_pair(uint8_t even_code, uint8_t odd_code) {
  return static_cast<uint8_t>((even_code & 0xF) | ((odd_code & 0xF) << 4));
}

// IEEE-style fmaxf: a NaN operand is ignored (what TE's amax reductions do).
inline float fmax_ignoring_nan(float a, float b) {
  if (a != a) return b;
  if (b != b) return a;
  return a > b ? a : b;
}

// Largest finite values, as TE's TypeExtrema uses them.
constexpr float kE4M3Max = 448.0f;
constexpr float kE5M2Max = 57344.0f;
constexpr float kE2M1Max = 6.0f;
constexpr float kBF16Max = 3.38953139e38f;  // 0x7F7F
constexpr float kFP16Max = 65504.0f;

}  // namespace tp

#endif  // TENSORPLAN_NUMERIC_FORMATS_H
