// What every CUDA file of the executor shares: CUDA errors as tp::Status,
// grid-stride loops, and element access in the logical dtypes with the
// core's own conversions (numeric_formats.h), so stores round and write NaN
// exactly as the reference executor does.
#ifndef TENSORPLAN_CUDA_DEVICE_COMMON_CUH
#define TENSORPLAN_CUDA_DEVICE_COMMON_CUH

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "formats/dtype.h"
#include "tensorplan/numerics/numeric_formats.h"
#include "base/status.h"

namespace tpc {

inline tp::Status cuda_status(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return tp::Status::ok();
  return tp::Status(TP_ERR_UNSUPPORTED, what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// The launch error of the kernel just launched, if any.
inline tp::Status launch_status(const std::string& kernel) { return cuda_status(cudaGetLastError(), kernel); }

#define TPC_CHECK(expr, what)                                    \
  do {                                                           \
    const cudaError_t tpc_e_ = (expr);                           \
    if (tpc_e_ != cudaSuccess) return tpc::cuda_status(tpc_e_, what); \
  } while (0)

#define TPC_GRID_STRIDE(i, n) \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// A grid-stride loop whose bound is rounded up to whole warps, so every lane
// of a warp runs each step and shuffles see them all (block sizes are
// multiples of 32); `i < n` says whether a lane has an item.
#define TPC_WARP_GRID_STRIDE(i, n)                                                                 \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < ((n) + 31) / 32 * 32; \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// Blocks for a grid-stride loop over `items`, at least 1 and at most `cap`.
inline int grid_blocks(int64_t items, int threads = 256, int64_t cap = 65535 * 8) {
  const int64_t blocks = (items + threads - 1) / threads;
  return static_cast<int>(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}

// Element i of a tensor of dtype code `dtype` (tp::DType: fp32, fp16, bf16) as fp32 (exact).
__device__ __forceinline__ float load_element(const void* p, int dtype, int64_t i) {
  if (dtype == static_cast<int>(tp::DType::kFloat32)) return static_cast<const float*>(p)[i];
  const uint16_t b = static_cast<const uint16_t*>(p)[i];
  return dtype == static_cast<int>(tp::DType::kFloat16) ? tp::fp16_to_float(b) : tp::bf16_to_float(b);
}

// Stores a computed value: NaN canonical, then RNE to fp16/bf16 (tp::encode_output's rule).
__device__ __forceinline__ void store_element(void* p, int dtype, int64_t i, float v) {
  v = tp::canonical_nan(v);
  if (dtype == static_cast<int>(tp::DType::kFloat32)) {
    static_cast<float*>(p)[i] = v;
  } else {
    static_cast<uint16_t*>(p)[i] = dtype == static_cast<int>(tp::DType::kFloat16) ? tp::float_to_fp16(v) : tp::float_to_bf16(v);
  }
}

// Eight elements at a time: the bandwidth-bound kernels (amax, per-tensor
// FP8, MXFP8, NVFP4 rows) move 16 bytes per load instead of 2 or 4. They take
// this path only where the tensor starts at a 16-byte boundary (the planner's
// default 256-byte alignment gives it) and fall back to element access else.
constexpr int kVector = 8;

__host__ __device__ __forceinline__ bool vector_aligned(const void* p, int bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

// Elements i..i+7 (i a multiple of 8) of a 16-byte aligned tensor as fp32:
// one 16-byte load for fp16/bf16, two for fp32. Little-endian, as load_element.
__device__ __forceinline__ void load_vector(const void* p, int dtype, int64_t i, float v[kVector]) {
  if (dtype == static_cast<int>(tp::DType::kFloat32)) {
    const float4* q = static_cast<const float4*>(p) + i / 4;
    const float4 a = q[0], b = q[1];
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
    return;
  }
  const uint4 w = static_cast<const uint4*>(p)[i / 8];
  const uint32_t words[4] = {w.x, w.y, w.z, w.w};
  const bool fp16 = dtype == static_cast<int>(tp::DType::kFloat16);
  for (int k = 0; k < 4; ++k) {
    const uint16_t lo = static_cast<uint16_t>(words[k] & 0xFFFFu), hi = static_cast<uint16_t>(words[k] >> 16);
    v[2 * k] = fp16 ? tp::fp16_to_float(lo) : tp::bf16_to_float(lo);
    v[2 * k + 1] = fp16 ? tp::fp16_to_float(hi) : tp::bf16_to_float(hi);
  }
}

// Stores elements i..i+7 by store_element's rule (canonical NaN, then RNE).
__device__ __forceinline__ void store_vector(void* p, int dtype, int64_t i, const float v[kVector]) {
  if (dtype == static_cast<int>(tp::DType::kFloat32)) {
    float4* q = static_cast<float4*>(p) + i / 4;
    q[0] = make_float4(tp::canonical_nan(v[0]), tp::canonical_nan(v[1]), tp::canonical_nan(v[2]), tp::canonical_nan(v[3]));
    q[1] = make_float4(tp::canonical_nan(v[4]), tp::canonical_nan(v[5]), tp::canonical_nan(v[6]), tp::canonical_nan(v[7]));
    return;
  }
  const bool fp16 = dtype == static_cast<int>(tp::DType::kFloat16);
  uint32_t words[4];
  for (int k = 0; k < 4; ++k) {
    const float a = tp::canonical_nan(v[2 * k]), b = tp::canonical_nan(v[2 * k + 1]);
    const uint32_t lo = fp16 ? tp::float_to_fp16(a) : tp::float_to_bf16(a);
    const uint32_t hi = fp16 ? tp::float_to_fp16(b) : tp::float_to_bf16(b);
    words[k] = lo | (hi << 16);
  }
  static_cast<uint4*>(p)[i / 8] = make_uint4(words[0], words[1], words[2], words[3]);
}

// Eight byte codes as one 8-byte word, first code in the lowest byte.
__device__ __forceinline__ uint2 pack_codes(const uint8_t c[kVector]) {
  return make_uint2(c[0] | (c[1] << 8) | (c[2] << 16) | (static_cast<uint32_t>(c[3]) << 24),
                    c[4] | (c[5] << 8) | (c[6] << 16) | (static_cast<uint32_t>(c[7]) << 24));
}

// The inverse of pack_codes.
__device__ __forceinline__ void unpack_codes(uint2 word, uint8_t c[kVector]) {
  for (int t = 0; t < 4; ++t) {
    c[t] = static_cast<uint8_t>(word.x >> (8 * t));
    c[t + 4] = static_cast<uint8_t>(word.y >> (8 * t));
  }
}

// Max over `width` lanes (a power of two up to 32), NaN ignored.
__device__ __forceinline__ float warp_max(float v, unsigned mask, int width) {
  for (int offset = width / 2; offset > 0; offset /= 2) v = tp::fmax_ignoring_nan(v, __shfl_xor_sync(mask, v, offset, width));
  return v;
}

// Non-negative floats order like their bit patterns, so an integer atomicMax
// is a float max. Every amax starts from 0 through fmax_ignoring_nan (as the
// reference's amax_of), so it never holds a NaN, even for an all-NaN block.
__device__ __forceinline__ void atomic_max_nonnegative(float* at, float v) {
  atomicMax(reinterpret_cast<unsigned int*>(at), tp::float_bits(v));
}

}  // namespace tpc

#endif  // TENSORPLAN_CUDA_DEVICE_COMMON_CUH
