// The scale rules of every recipe (FORMATS.md §4.3-§4.6) as inline
// TP_HOST_DEVICE functions: how an amax becomes a scale, how a block's scale
// is coded, how a 16-element NVFP4 chunk is Hadamard-transformed. The
// reference quantize (core-cpp/src/formats/quantize/) and the CUDA quantize kernels
// (cuda/execute/quantize_kernels.cu) both call these, so they agree bit for bit:
// amax is a max (order-free) and everything else is the same fp32
// operations in the same order. Divisions are IEEE (correctly rounded) on
// both sides; nvcc's default -prec-div=true is made explicit with __fdiv_rn.
#ifndef TENSORPLAN_QUANTIZE_MATH_H
#define TENSORPLAN_QUANTIZE_MATH_H

#include <cstdint>

#include "tensorplan/numerics/numeric_formats.h"

namespace tp {

TP_HOST_DEVICE inline float divide_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

// fminf(x, FLT_MAX): NaN and +inf become FLT_MAX.
TP_HOST_DEVICE inline float clamp_to_float_max(float x) { return x <= kFloatMax ? x : kFloatMax; }

// FP8 code of a computed value v (x * scale): E5M2 when `e5m2`, else E4M3.
// A NaN product is canonical first, so its code does not depend on whether a
// CPU or a GPU multiplied (positive NaN: 0x7F / 0x7E).
TP_HOST_DEVICE inline uint8_t encode_fp8(bool e5m2, float v) {
  v = canonical_nan(v);
  return e5m2 ? float_to_e5m2(v) : float_to_e4m3(v);
}
TP_HOST_DEVICE inline float decode_fp8(bool e5m2, uint8_t code) { return e5m2 ? e5m2_to_float(code) : e4m3_to_float(code); }

// §4.3: scale from amax (epsilon floor, 0/inf/NaN -> 1, overflow ->
// value_for_inf, optional round-down to a power of two).
TP_HOST_DEVICE inline float compute_scale_from_amax(float amax, float fp8_max, bool pow2, float epsilon,
                                                    float value_for_inf) {
  if (amax < epsilon) amax = epsilon;
  const uint32_t bits = float_bits(amax);
  if (is_inf_bits(bits) || is_nan_bits(bits) || amax == 0.0f) return 1.0f;
  float scale = divide_rn(fp8_max, amax);
  if (is_inf_bits(float_bits(scale))) scale = value_for_inf;
  if (pow2) scale = float_from_bits(float_bits(scale) & 0xFF800000u);
  return scale;
}

// §4.5: the E8M0 scale of a 32-element MXFP8 block from its amax.
TP_HOST_DEVICE inline uint8_t mxfp8_block_scale(float block_amax, float fp8_max) {
  return float_to_e8m0_round_up(block_amax * divide_rn(1.0f, fp8_max));
}

// §4.6: S_enc = 448*6 / global_amax, clamped to FLT_MAX, 1 when amax is 0 or
// the result 0.
TP_HOST_DEVICE inline float nvfp4_global_encode_scale(float global_amax) {
  const float scale = clamp_to_float_max(divide_rn(448.0f * kE2M1Max, global_amax));
  if (global_amax == 0.0f || scale == 0.0f) return 1.0f;
  return scale;
}

// §4.6: the E4M3 scale of a 16-element NVFP4 block and the multiplier its
// elements are cast with, from the block amax and the tensor's S_enc.
struct Nvfp4BlockScale {
  uint8_t code;
  float multiplier;
};

TP_HOST_DEVICE inline Nvfp4BlockScale nvfp4_block_scale(float block_amax, float s_enc) {
  const float s_dec = divide_rn(1.0f, s_enc);
  const float s_enc_over_6 = s_enc * divide_rn(1.0f, kE2M1Max);
  const uint8_t code = float_to_e4m3(clamp_to_float_max(block_amax * s_enc_over_6));
  const float denominator = e4m3_to_float(code) * s_dec;
  return {code, clamp_to_float_max(divide_rn(1.0f, denominator))};
}

// Dequantize: the factor an NVFP4 element code is multiplied by.
constexpr float kNvfp4FactorInv = static_cast<float>(1.0 / (6.0 * 448.0));
TP_HOST_DEVICE inline float nvfp4_dequant_scale(uint8_t scale_code, float global_amax) {
  return e4m3_to_float(scale_code) * global_amax * kNvfp4FactorInv;
}

// Entry (i, j) of the NVFP4 16x16 Hadamard matrix diag(s) * H / 4, all signs
// +1 when `no_signs`. Orthogonal: its inverse is its transpose.
TP_HOST_DEVICE inline float nvfp4_hadamard_entry(int i, int j, bool no_signs) {
  // Sign vector s, as bits (bit i set = -1).
  constexpr uint32_t kNegativeSigns = 0xD7E8u;  // rows 3,5,6,7,8,9,10,12,14,15
#if defined(__CUDA_ARCH__)
  const int parity = __popc(static_cast<unsigned>(i & j)) & 1;
#else
  const int parity = __builtin_popcount(static_cast<unsigned>(i & j)) & 1;
#endif
  const bool negative_row = !no_signs && ((kNegativeSigns >> i) & 1u);
  return (parity != 0) != negative_row ? -0.25f : 0.25f;
}

// out[j] = sum_i v[i] * M[i][j] (M[j][i] when `transpose_matrix`), summed in
// double in the order i = 0..15 on every target. Each product (a float times
// +-1/4) is exact in double, so an FMA gives the same sum; the sum itself is
// exact for bf16 inputs of similar magnitude, but not in general, which is why
// the order is fixed. Then rounded to fp32 and, when `round_to_bf16`, to bf16,
// as the unfused TE path and the PyTorch reference produce a bf16 tensor.
//
// TP_UNROLL_16 asks host compilers to unroll both loops, so that the +-1/4
// entries become constants (about 4x faster on a CPU); it changes no
// operation or its order. Device code is left as it was.
#if defined(__CUDA_ARCH__)
#define TP_UNROLL_16
#else
#define TP_UNROLL_16 _Pragma("GCC unroll 16")
#endif
TP_HOST_DEVICE inline void nvfp4_hadamard16(const float* v, float* out, bool transpose_matrix, bool no_signs,
                                            bool round_to_bf16) {
  TP_UNROLL_16
  for (int j = 0; j < 16; ++j) {
    double sum = 0;
    TP_UNROLL_16
    for (int i = 0; i < 16; ++i) {
      const float h = transpose_matrix ? nvfp4_hadamard_entry(j, i, no_signs) : nvfp4_hadamard_entry(i, j, no_signs);
      sum += static_cast<double>(v[i]) * h;
    }
    const float rounded = static_cast<float>(sum);
    out[j] = round_to_bf16 ? bf16_to_float(float_to_bf16(rounded)) : rounded;
  }
}

}  // namespace tp

#endif  // TENSORPLAN_QUANTIZE_MATH_H
