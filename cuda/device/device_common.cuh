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
