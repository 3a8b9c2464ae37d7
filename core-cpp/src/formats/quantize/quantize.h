// Reference quantize / dequantize for every recipe (FORMATS.md §4), in plain
// C++ so that the WASM build runs the same numerics. Input is the raw bytes
// of the spec's logical dtype (fp32, bf16 or fp16, little-endian, row-major);
// output is every buffer of tensor_spec_buffers(spec), in flatten order.
//
// Arithmetic follows TE's kernels operation by operation in fp32 (scale
// computation, multiply, RNE/satfinite cast), so codes and scale bytes are
// bit-exact with the format definitions. Where TE's kernels leave bytes
// uninitialised (scale padding), the reference writes zeros.
//
// Every buffer whose size the caller's shape sets (the outputs, the
// transposed and Hadamard scratch copies) is a checked allocation
// (host_buffer.h): a host that cannot give it makes the call return
// OUT_OF_MEMORY "quantize: <buffer>: cannot allocate <n> bytes" instead of
// aborting. The _into forms write into the caller's memory and allocate
// only scratch.
#ifndef TENSORPLAN_QUANTIZE_H
#define TENSORPLAN_QUANTIZE_H

#include <cstdint>
#include <vector>

#include "base/host_buffer.h"
#include "tensorplan/numerics/quantize_math.h"
#include "formats/tensor_spec.h"

namespace tp {

struct QuantizeParams {
  // Current scaling and block FP8: amax floor (TE `amax_epsilon`, default 0).
  float amax_epsilon = 0.0f;
  // Delayed scaling: the quantizer's current scale (from recipe state).
  float delayed_scale = 1.0f;
};

// Read-only bytes of one buffer (an input of dequantize).
struct ByteSpan {
  const uint8_t* data = nullptr;
  int64_t size = 0;
};

struct QuantizeOutput {
  std::vector<BufferSpec> buffers;  // the spec's buffers, flatten order
  // Every buffer back to back in flatten order (tp_quantize hands this
  // allocation over as its result array, without a copy); buffer i is
  // bytes[offsets[i], offsets[i + 1]).
  HostBuffer bytes;
  std::vector<int64_t> offsets;
  // The amax the cast observed: per-tensor recipes give {amax(x)} (delayed
  // scaling writes it into amax_history[0]); NVFP4 gives its stored amaxes;
  // MXFP8 / block FP8 give {amax(x)} for reference.
  std::vector<float> amax;

  ByteSpan buffer(size_t i) const { return {bytes.data() + offsets[i], offsets[i + 1] - offsets[i]}; }
  // Every buffer, the form dequantize reads.
  std::vector<ByteSpan> spans() const {
    std::vector<ByteSpan> all;
    for (size_t i = 0; i < buffers.size(); ++i) all.push_back(buffer(i));
    return all;
  }
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

// Quantizes into one allocation holding every buffer ("quantize: output
// buffers (<names>)").
Status quantize(const TensorSpec& spec, const uint8_t* input, int64_t input_bytes, const QuantizeParams& params,
                QuantizeOutput* out);
// Quantizes into the caller's buffers: out[i] receives the spec's buffer i
// (tensor_spec_buffers order, out[i] holding at least its bytes; none may
// overlap the input). `amax` as in QuantizeOutput.
Status quantize_into(const TensorSpec& spec, const uint8_t* input, int64_t input_bytes, const QuantizeParams& params,
                     const std::vector<uint8_t*>& out, std::vector<float>* amax);

// Rebuilds the logical tensor (raw bytes of spec.dtype) from the buffers in
// flatten order. Uses the rowwise buffers when present, else the columnwise
// ones (transposed back; NVFP4 Hadamard undone with the transpose matrix).
// The output ("dequantize: output") is up to 8x the buffers' bytes.
Status dequantize(const TensorSpec& spec, const std::vector<ByteSpan>& buffers, HostBuffer* out);
// The same into the caller's `out_bytes` bytes at `out`, which must hold the
// logical tensor (dequantized_bytes) and not overlap the buffers.
Status dequantize_into(const TensorSpec& spec, const std::vector<ByteSpan>& buffers, uint8_t* out, int64_t out_bytes);
// The bytes dequantize writes for `spec`.
Status dequantized_bytes(const TensorSpec& spec, int64_t* bytes);

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
