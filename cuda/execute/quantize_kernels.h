// Quantize and dequantize on the GPU for every recipe of FORMATS.md, with
// the scale rules and casts of core-cpp's quantize_math.h and
// numeric_formats.h compiled for the device: the same bytes as tp::quantize
// and tp::dequantize (the reference executor), by construction.
//
// Device pointers only; nothing is allocated. Where a recipe needs a scalar
// between kernels (a tensor amax), it lives in one of the op's own output
// buffers until the buffer's final value is written, so the executor keeps
// exactly one device allocation per plan.
#ifndef TENSORPLAN_CUDA_QUANTIZE_KERNELS_H
#define TENSORPLAN_CUDA_QUANTIZE_KERNELS_H

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "formats/quantize/quantize.h"

namespace tpc {

// x: the logical tensor (spec.dtype: fp32, bf16 or fp16). buffers: the
// spec's buffers in flatten order (tp::tensor_spec_buffers), each at least
// its size. Launches on `stream` and returns without synchronising.
tp::Status quantize_on_device(const tp::TensorSpec& spec, const tp::QuantizeParams& params, const void* x,
                              const std::vector<uint8_t*>& buffers, cudaStream_t stream);

// *out = max |x| over n elements of dtype code `dtype` (fp32/fp16/bf16), NaN
// ignored, as the reference's amax; `out` is device memory (4-byte aligned).
tp::Status tensor_amax(const void* x, int dtype, int64_t n, float* out, cudaStream_t stream);

// Rebuilds the logical tensor into x from the buffers, as tp::dequantize.
tp::Status dequantize_on_device(const tp::TensorSpec& spec, const std::vector<const uint8_t*>& buffers, void* x,
                                cudaStream_t stream);

}  // namespace tpc

#endif  // TENSORPLAN_CUDA_QUANTIZE_KERNELS_H
