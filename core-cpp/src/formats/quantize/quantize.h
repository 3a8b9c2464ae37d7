// Reference quantize / dequantize for every recipe (FORMATS.md §4), in plain
// C++ so that the WASM build runs the same numerics. Input is the raw bytes
// of the spec's logical dtype (fp32, bf16 or fp16, little-endian, row-major);
// output is every buffer of tensor_spec_buffers(spec), in flatten order.
//
// Arithmetic follows TE's kernels operation by operation in fp32 (scale
// computation, multiply, RNE/satfinite cast), so codes and scale bytes are
// bit-exact with the format definitions. Where TE's kernels leave bytes
// uninitialised (scale padding), the reference writes zeros.
#ifndef TENSORPLAN_QUANTIZE_H
#define TENSORPLAN_QUANTIZE_H

#include <cstdint>
#include <vector>

#include "tensorplan/numerics/quantize_math.h"
#include "formats/tensor_spec.h"

namespace tp {

struct QuantizeParams {
  // Current scaling and block FP8: amax floor (TE `amax_epsilon`, default 0).
  float amax_epsilon = 0.0f;
  // Delayed scaling: the quantizer's current scale (from recipe state).
  float delayed_scale = 1.0f;
};

struct QuantizeOutput {
  std::vector<BufferSpec> buffers;           // the spec's buffers, flatten order
  std::vector<std::vector<uint8_t>> bytes;   // one byte array per buffer
  // The amax the cast observed: per-tensor recipes give {amax(x)} (delayed
  // scaling writes it into amax_history[0]); NVFP4 gives its stored amaxes;
  // MXFP8 / block FP8 give {amax(x)} for reference.
  std::vector<float> amax;
};

// Converts raw fp32/bf16/fp16 bytes to fp32 values (exact widening).
Status decode_input(DType dtype, const uint8_t* bytes, int64_t byte_count, int64_t numel,
                    std::vector<float>* out);
// Converts fp32 values to raw bytes of `dtype` (RNE narrowing for bf16/fp16;
// NaN made canonical first, see canonical_nan).
Status encode_output(DType dtype, const std::vector<float>& values, std::vector<uint8_t>* out);

// compute_scale_from_amax, nvfp4_global_encode_scale and the block scale
// rules live in quantize_math.h, shared with the CUDA kernels.

// The 16x16 NVFP4 Hadamard matrix diag(s)*H/4 (row-major), all signs +1 when
// `no_signs`. Orthogonal: its inverse is its transpose.
std::vector<float> nvfp4_hadamard_matrix(bool no_signs);

Status quantize(const TensorSpec& spec, const uint8_t* input, int64_t input_bytes, const QuantizeParams& params,
                QuantizeOutput* out);

// Rebuilds the logical tensor (raw bytes of spec.dtype) from the buffers in
// flatten order. Uses the rowwise buffers when present, else the columnwise
// ones (transposed back; NVFP4 Hadamard undone with the transpose matrix).
Status dequantize(const TensorSpec& spec, const std::vector<std::vector<uint8_t>>& buffers,
                  std::vector<uint8_t>* out);

// §4.4 delayed scaling update for Q quantizers sharing a recipe state.
// `history` is [L][Q] row-major and `scale` is [Q]; both are updated in place:
// amax_i = max over the old history column (max) or old row 0 (most recent);
// the history rolls left by one row and row 0 is cleared;
// scale_i = fp8_max * 2^-margin / amax_i when amax_i is finite and > 0, else
// kept, with an infinite result replaced by FLT_MAX. `amax_out` gets amax_i.
enum class AmaxAlgo : int32_t { kMax = 0, kMostRecent = 1 };
Status delayed_scaling_update(int64_t history_len, int64_t count, std::vector<float>* history,
                              std::vector<float>* scale, AmaxAlgo algo, float fp8_max, int32_t margin,
                              std::vector<float>* amax_out);

}  // namespace tp

#endif  // TENSORPLAN_QUANTIZE_H
