// CUDA executor: device memory and kernels for op set v1, plugged into the
// one executor loop (tp::run_plan, execute_lifecycle.h) that also runs the
// reference executor, so both make the same trace, stats and errors. Kernels are correctness-first:
// grid-stride loops, fp32 accumulation in the reference's order (k = 0..K-1,
// rows sequential per thread), so results match the reference bit for bit
// for data movement and within fp32 rounding (FMA contraction) elsewhere.
#include "execute/cuda_executor.h"

#include <cuda_runtime.h>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "formats/dtype.h"
#include "execute/element_alignment.h"
#include "execute/execute_lifecycle.h"
#include "tensorplan/numerics/numeric_formats.h"
#include "execute/reference_kernels.h"
#include "tensorplan/numerics/shape.h"

#include "device/device_common.cuh"
#include "execute/quantize_kernels.h"

namespace tpc {

struct DeviceArena {
  void* base = nullptr;
  int64_t bytes = 0;
  cudaStream_t stream = nullptr;
};

namespace {

std::atomic<int64_t> g_allocations{0};

cudaError_t device_malloc(void** p, int64_t bytes) {
  g_allocations.fetch_add(1);
  return cudaMalloc(p, static_cast<size_t>(bytes > 0 ? bytes : 1));  // never NULL for a live storage
}

__device__ __forceinline__ float d_gelu(float x) {
  const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
  return 0.5f * x * (1.0f + tanhf(inner));
}
__device__ __forceinline__ float d_gelu_grad(float x) {
  const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
  const float t = tanhf(inner);
  const float dinner = 0.7978845608028654f * (1.0f + 3.0f * 0.044715f * x * x);
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * dinner;
}
__device__ __forceinline__ float d_silu(float x) { return x / (1.0f + expf(-x)); }
__device__ __forceinline__ float d_silu_grad(float x) {
  const float s = 1.0f / (1.0f + expf(-x));
  return s * (1.0f + x * (1.0f - s));
}

struct Elementwise {
  const void* a;
  const void* b;
  void* y;
  int da, db, dy, op;
  int64_t n, nb;
  float alpha;
};

__global__ void elementwise_kernel(Elementwise p) {
  TPC_GRID_STRIDE(i, p.n) {
    const float x = load_element(p.a, p.da, i);
    const float w = p.b ? load_element(p.b, p.db, p.nb == 0 ? 0 : i % p.nb) : 0.0f;
    float r = 0.0f;
    switch (static_cast<tp::OpCode>(p.op)) {
      case tp::OpCode::kAdd: r = x + w; break;
      case tp::OpCode::kMul: r = x * w; break;
      case tp::OpCode::kScale: r = x * p.alpha; break;
      case tp::OpCode::kRelu: r = x > 0.0f ? x : 0.0f; break;
      case tp::OpCode::kGelu: r = d_gelu(x); break;
      case tp::OpCode::kSilu: r = d_silu(x); break;
      case tp::OpCode::kReluBackward: r = w > 0.0f ? x : 0.0f; break;
      case tp::OpCode::kGeluBackward: r = x * d_gelu_grad(w); break;
      case tp::OpCode::kSiluBackward: r = x * d_silu_grad(w); break;
      default: r = x; break;
    }
    store_element(p.y, p.dy, i, r);
  }
}

__global__ void fill_kernel(void* y, int dy, int64_t n, float v) {
  TPC_GRID_STRIDE(i, n) { store_element(y, dy, i, v); }
}

// Matmul tiles: a block of 16 x 16 threads computes a 64 x 64 tile of C,
// each thread the 4 x 4 outputs (ty + 16i, tx + 16j), so a warp reads
// shared memory at consecutive or broadcast addresses. K goes through
// shared memory 16 at a time.
constexpr int kMatmulThreads = 16;
constexpr int kMatmulTile = 64;
constexpr int kMatmulDepth = 16;
constexpr int kMatmulPerThread = kMatmulTile / kMatmulThreads;

// C[c_row0 + m, n] = sum_k op(A)[a_row0 + m, k] * op(B)[b_base][k, n]. Every
// output accumulates k = 0..K-1 in order, one multiply-add each, as the
// reference does (the GPU contracts each into an FMA).
__global__ void matmul_kernel(const void* A, int da, int ta, int64_t a_row0, int64_t m_total, const void* B, int db,
                              int tb, int64_t b_base, void* C, int dc, int64_t c_row0, int64_t rows, int64_t K,
                              int64_t N) {
  __shared__ float as[kMatmulDepth][kMatmulTile];  // as[k][m]
  __shared__ float bs[kMatmulDepth][kMatmulTile];  // bs[k][n]
  const int tid = threadIdx.y * kMatmulThreads + threadIdx.x;
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * kMatmulTile, n0 = static_cast<int64_t>(blockIdx.x) * kMatmulTile;
  float acc[kMatmulPerThread][kMatmulPerThread] = {};
  for (int64_t k0 = 0; k0 < K; k0 += kMatmulDepth) {
    // Neighbouring threads load neighbouring addresses: along k for A and
    // for transposed B, along m or n otherwise.
    for (int e = tid; e < kMatmulTile * kMatmulDepth; e += kMatmulThreads * kMatmulThreads) {
      const int m = ta ? e % kMatmulTile : e / kMatmulDepth, ka = ta ? e / kMatmulTile : e % kMatmulDepth;
      const int64_t gm = m0 + m, gk = k0 + ka;
      as[ka][m] = (gm < rows && gk < K) ? load_element(A, da, ta ? gk * m_total + (a_row0 + gm) : (a_row0 + gm) * K + gk) : 0.0f;
      const int n = tb ? e / kMatmulDepth : e % kMatmulTile, kb = tb ? e % kMatmulDepth : e / kMatmulTile;
      const int64_t gn = n0 + n, gkb = k0 + kb;
      bs[kb][n] = (gn < N && gkb < K) ? load_element(B, db, b_base + (tb ? gn * K + gkb : gkb * N + gn)) : 0.0f;
    }
    __syncthreads();
    const int64_t kmax = K - k0 < kMatmulDepth ? K - k0 : kMatmulDepth;
    for (int64_t kk = 0; kk < kmax; ++kk) {
      float a[kMatmulPerThread], b[kMatmulPerThread];
      for (int i = 0; i < kMatmulPerThread; ++i) a[i] = as[kk][threadIdx.y + kMatmulThreads * i];
      for (int j = 0; j < kMatmulPerThread; ++j) b[j] = bs[kk][threadIdx.x + kMatmulThreads * j];
      for (int i = 0; i < kMatmulPerThread; ++i) {
        for (int j = 0; j < kMatmulPerThread; ++j) acc[i][j] += a[i] * b[j];
      }
    }
    __syncthreads();
  }
  for (int i = 0; i < kMatmulPerThread; ++i) {
    const int64_t m = m0 + threadIdx.y + kMatmulThreads * i;
    for (int j = 0; j < kMatmulPerThread; ++j) {
      const int64_t n = n0 + threadIdx.x + kMatmulThreads * j;
      if (m < rows && n < N) store_element(C, dc, (c_row0 + m) * N + n, acc[i][j]);
    }
  }
}

struct Norm {
  const void* x;
  const void* gamma;
  const void* beta;
  void* y;
  float* mean;
  float* rstd;
  int dx, dg, db, dy, layer;
  int64_t rows, cols;
  float eps;
};

__global__ void norm_kernel(Norm p) {
  TPC_GRID_STRIDE(r, p.rows) {
    const int64_t base = r * p.cols;
    float mean = 0.0f;
    if (p.layer) {
      float sum = 0.0f;
      for (int64_t j = 0; j < p.cols; ++j) sum += load_element(p.x, p.dx, base + j);
      mean = sum / static_cast<float>(p.cols);
    }
    float sq = 0.0f;
    for (int64_t j = 0; j < p.cols; ++j) {
      const float d = load_element(p.x, p.dx, base + j) - mean;
      sq += d * d;
    }
    const float rstd = 1.0f / sqrtf(sq / static_cast<float>(p.cols) + p.eps);
    for (int64_t j = 0; j < p.cols; ++j) {
      float y = (load_element(p.x, p.dx, base + j) - mean) * rstd * load_element(p.gamma, p.dg, j);
      if (p.layer) y += load_element(p.beta, p.db, j);
      store_element(p.y, p.dy, base + j, y);
    }
    if (p.mean) p.mean[r] = mean;
    if (p.rstd) p.rstd[r] = rstd;
  }
}

struct NormBackward {
  const void* dy;
  const void* x;
  const void* gamma;
  const void* mean;
  const void* rstd;
  void* dx;
  void* dgamma;
  void* dbeta;
  int d_dy, d_x, d_g, d_mean, d_rstd, d_dx, d_dg, d_db, layer;
  int64_t rows, cols;
};

__global__ void norm_backward_rows(NormBackward p) {
  TPC_GRID_STRIDE(r, p.rows) {
    const int64_t base = r * p.cols;
    const float mean = p.layer ? load_element(p.mean, p.d_mean, r) : 0.0f;
    const float rstd = load_element(p.rstd, p.d_rstd, r);
    float sum_g = 0.0f, sum_gx = 0.0f;
    for (int64_t j = 0; j < p.cols; ++j) {
      const float xhat = (load_element(p.x, p.d_x, base + j) - mean) * rstd;
      const float g = load_element(p.dy, p.d_dy, base + j) * load_element(p.gamma, p.d_g, j);
      sum_g += g;
      sum_gx += g * xhat;
    }
    const float mg = p.layer ? sum_g / static_cast<float>(p.cols) : 0.0f;
    const float mgx = sum_gx / static_cast<float>(p.cols);
    for (int64_t j = 0; j < p.cols; ++j) {
      const float xhat = (load_element(p.x, p.d_x, base + j) - mean) * rstd;
      const float g = load_element(p.dy, p.d_dy, base + j) * load_element(p.gamma, p.d_g, j);
      store_element(p.dx, p.d_dx, base + j, rstd * (g - mg - xhat * mgx));
    }
  }
}

__global__ void norm_backward_cols(NormBackward p) {
  TPC_GRID_STRIDE(j, p.cols) {
    float dg = 0.0f, db = 0.0f;
    for (int64_t r = 0; r < p.rows; ++r) {
      const float mean = p.layer ? load_element(p.mean, p.d_mean, r) : 0.0f;
      const float xhat = (load_element(p.x, p.d_x, r * p.cols + j) - mean) * load_element(p.rstd, p.d_rstd, r);
      const float d = load_element(p.dy, p.d_dy, r * p.cols + j);
      dg += d * xhat;
      db += d;
    }
    store_element(p.dgamma, p.d_dg, j, dg);
    if (p.layer) store_element(p.dbeta, p.d_db, j, db);
  }
}

__global__ void softmax_kernel(const void* a, int da, const void* b, int db, void* y, int dy, int64_t rows,
                               int64_t cols, int backward) {
  TPC_GRID_STRIDE(r, rows) {
    const int64_t base = r * cols;
    if (!backward) {
      float mx = -INFINITY;
      for (int64_t j = 0; j < cols; ++j) mx = fmaxf(mx, load_element(a, da, base + j));
      float sum = 0.0f;
      for (int64_t j = 0; j < cols; ++j) sum += expf(load_element(a, da, base + j) - mx);
      for (int64_t j = 0; j < cols; ++j) store_element(y, dy, base + j, expf(load_element(a, da, base + j) - mx) / sum);
    } else {
      float dot = 0.0f;
      for (int64_t j = 0; j < cols; ++j) dot += load_element(a, da, base + j) * load_element(b, db, base + j);
      for (int64_t j = 0; j < cols; ++j) store_element(y, dy, base + j, load_element(b, db, base + j) * (load_element(a, da, base + j) - dot));
    }
  }
}

__global__ void transpose_kernel(const unsigned char* x, unsigned char* y, int64_t batches, int64_t rows,
                                 int64_t cols, int elem) {
  TPC_GRID_STRIDE(i, batches * rows * cols) {
    const int64_t j = i % cols;
    const int64_t r = (i / cols) % rows;
    const int64_t b = i / (rows * cols);
    const unsigned char* src = x + i * elem;
    unsigned char* dst = y + ((b * cols + j) * rows + r) * elem;
    for (int e = 0; e < elem; ++e) dst[e] = src[e];
  }
}

// ---- Launches, one function per op family; shapes were checked by
// tp::check_reference_op (CudaDevice::run_op) before any of them runs. ------

using tp::cols_of;
using tp::numel;
using tp::rows_of;

tp::Status launch_copy(const tp::TensorRef& x, const tp::TensorRef& y, const std::string& label, cudaStream_t stream) {
  if (x.data != y.data && x.bytes > 0) {
    TPC_CHECK(cudaMemcpyAsync(y.data, x.data, static_cast<size_t>(x.bytes), cudaMemcpyDeviceToDevice, stream), label);
  }
  return tp::Status::ok();
}

tp::Status launch_fill(const std::vector<double>& a, const tp::TensorRef& y, const std::string& label, cudaStream_t stream) {
  if (y.dtype == 0 || y.dtype == 1 || y.dtype == 2) {
    const int64_t n = numel(y.shape);
    if (n > 0) fill_kernel<<<grid_blocks(n), 256, 0, stream>>>(y.data, y.dtype, n, static_cast<float>(a[0]));
  } else if (y.bytes > 0) {
    TPC_CHECK(cudaMemsetAsync(y.data, static_cast<int>(a[0]), static_cast<size_t>(y.bytes), stream), label);
  }
  return tp::Status::ok();
}

// matmul: attributes {transpose_a, transpose_b}; grouped_matmul: {transpose_b, rows of each group...}.
tp::Status launch_matmul(bool grouped, const std::vector<double>& a, const std::vector<tp::TensorRef>& in,
                         const tp::TensorRef& C, const std::string& label, cudaStream_t stream) {
  const bool ta = !grouped && !a.empty() && a[0] == 1.0;
  const bool tb = grouped ? a[0] == 1.0 : (a.size() > 1 && a[1] == 1.0);
  const tp::TensorRef &A = in[0], &B = in[1];
  const int64_t M = ta ? A.shape[1] : A.shape[0];
  const int64_t K = ta ? A.shape[0] : A.shape[1];
  const int64_t N = C.shape[1];
  const int64_t groups = grouped ? B.shape[0] : 1;
  int64_t row = 0;
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t rows = grouped ? static_cast<int64_t>(a[static_cast<size_t>(g + 1)]) : M;
    if (rows > 0 && N > 0) {
      const int64_t row_tiles = (rows + kMatmulTile - 1) / kMatmulTile;
      if (row_tiles > 65535) {
        return tp::Status::unsupported(label + ": " + std::to_string(rows) + " rows in one matmul, more than the " +
                                       std::to_string(65535 * kMatmulTile) + " the CUDA kernel's grid covers");
      }
      const dim3 grid(static_cast<unsigned>((N + kMatmulTile - 1) / kMatmulTile), static_cast<unsigned>(row_tiles));
      matmul_kernel<<<grid, dim3(kMatmulThreads, kMatmulThreads), 0, stream>>>(
          A.data, A.dtype, ta ? 1 : 0, row, M, B.data, B.dtype, tb ? 1 : 0, g * K * N, C.data, C.dtype, row, rows, K, N);
    }
    row += rows;
  }
  return tp::Status::ok();
}

void launch_elementwise(tp::OpCode code, const std::vector<double>& a, const std::vector<tp::TensorRef>& in,
                        const tp::TensorRef& y, cudaStream_t stream) {
  Elementwise p{};
  p.a = in[0].data;
  p.da = in[0].dtype;
  if (in.size() > 1) {
    p.b = in[1].data;
    p.db = in[1].dtype;
    p.nb = numel(in[1].shape);
  }
  p.y = y.data;
  p.dy = y.dtype;
  p.op = static_cast<int>(code);
  p.n = numel(in[0].shape);
  p.alpha = code == tp::OpCode::kScale ? static_cast<float>(a[0]) : 0.0f;
  if (p.n > 0) elementwise_kernel<<<grid_blocks(p.n), 256, 0, stream>>>(p);
}

// layernorm: x, gamma, beta -> y [, mean, rstd]; rmsnorm: x, gamma -> y [, rstd].
void launch_norm(bool layer, const std::vector<double>& a, const std::vector<tp::TensorRef>& in,
                 const std::vector<tp::TensorRef>& out, cudaStream_t stream) {
  Norm p{};
  p.layer = layer ? 1 : 0;
  p.x = in[0].data;
  p.dx = in[0].dtype;
  p.gamma = in[1].data;
  p.dg = in[1].dtype;
  if (layer) {
    p.beta = in[2].data;
    p.db = in[2].dtype;
  }
  p.y = out[0].data;
  p.dy = out[0].dtype;
  if (layer && out.size() == 3) {
    p.mean = reinterpret_cast<float*>(out[1].data);
    p.rstd = reinterpret_cast<float*>(out[2].data);
  } else if (!layer && out.size() == 2) {
    p.rstd = reinterpret_cast<float*>(out[1].data);
  }
  p.rows = rows_of(in[0].shape);
  p.cols = cols_of(in[0].shape);
  p.eps = a.empty() ? 1e-5f : static_cast<float>(a[0]);
  if (p.rows > 0) norm_kernel<<<grid_blocks(p.rows, 128), 128, 0, stream>>>(p);
}

// layernorm_backward: dy, x, gamma, mean, rstd -> dx, dgamma, dbeta; rmsnorm_backward: dy, x, gamma, rstd -> dx, dgamma.
void launch_norm_backward(bool layer, const std::vector<tp::TensorRef>& in, const std::vector<tp::TensorRef>& out,
                          cudaStream_t stream) {
  NormBackward p{};
  p.layer = layer ? 1 : 0;
  p.dy = in[0].data;
  p.d_dy = in[0].dtype;
  p.x = in[1].data;
  p.d_x = in[1].dtype;
  p.gamma = in[2].data;
  p.d_g = in[2].dtype;
  if (layer) {
    p.mean = in[3].data;
    p.d_mean = in[3].dtype;
  }
  p.rstd = in[layer ? 4 : 3].data;
  p.d_rstd = in[layer ? 4 : 3].dtype;
  p.dx = out[0].data;
  p.d_dx = out[0].dtype;
  p.dgamma = out[1].data;
  p.d_dg = out[1].dtype;
  if (layer) {
    p.dbeta = out[2].data;
    p.d_db = out[2].dtype;
  }
  p.rows = rows_of(in[1].shape);
  p.cols = cols_of(in[1].shape);
  if (p.rows > 0) norm_backward_rows<<<grid_blocks(p.rows, 128), 128, 0, stream>>>(p);
  if (p.cols > 0) norm_backward_cols<<<grid_blocks(p.cols, 128), 128, 0, stream>>>(p);
}

void launch_softmax(bool backward, const std::vector<tp::TensorRef>& in, const tp::TensorRef& y, cudaStream_t stream) {
  const int64_t rows = rows_of(in[0].shape);
  if (rows == 0) return;
  softmax_kernel<<<grid_blocks(rows, 128), 128, 0, stream>>>(in[0].data, in[0].dtype, backward ? in[1].data : nullptr,
                                                             backward ? in[1].dtype : 0, y.data, y.dtype, rows,
                                                             cols_of(in[0].shape), backward ? 1 : 0);
}

void launch_transpose(const tp::TensorRef& x, const tp::TensorRef& y, cudaStream_t stream) {
  const int64_t R = x.shape[x.shape.size() - 2], C = x.shape[x.shape.size() - 1];
  const int64_t B = R * C == 0 ? 0 : numel(x.shape) / (R * C);
  const int elem = tp::dtype_element_bytes(static_cast<tp::DType>(x.dtype));
  if (B * R * C > 0) {
    transpose_kernel<<<grid_blocks(B * R * C), 256, 0, stream>>>(static_cast<const unsigned char*>(x.data),
                                                                 static_cast<unsigned char*>(y.data), B, R, C, elem);
  }
}

// quantize_kernels.h, with the spec the reference quantizes with.
tp::Status launch_quantize(bool forward, const std::vector<double>& a, const std::vector<tp::TensorRef>& in,
                           const std::vector<tp::TensorRef>& out, const std::string& label, cudaStream_t stream) {
  const tp::TensorRef& logical = forward ? in[0] : out[0];
  tp::TensorSpec spec;
  tp::QuantizeParams params;
  TP_RETURN_IF_ERROR(tp::quantize_op_spec(a, logical, label, &spec, &params));
  if (forward) {
    std::vector<uint8_t*> buffers;
    for (const tp::TensorRef& t : out) buffers.push_back(t.data);
    return quantize_on_device(spec, params, logical.data, buffers, stream);
  }
  std::vector<const uint8_t*> buffers;
  for (const tp::TensorRef& t : in) buffers.push_back(t.data);
  return dequantize_on_device(spec, buffers, logical.data, stream);
}

// Launches one op, then reports its launch error, if any.
tp::Status launch(tp::OpCode code, const std::vector<double>& a, const std::vector<tp::TensorRef>& in,
                  const std::vector<tp::TensorRef>& out, const std::string& label, cudaStream_t stream) {
  using tp::OpCode;
  switch (code) {
    case OpCode::kView: return tp::Status::ok();
    case OpCode::kCopy: return launch_copy(in[0], out[0], label, stream);
    case OpCode::kFill: TP_RETURN_IF_ERROR(launch_fill(a, out[0], label, stream)); break;
    case OpCode::kMatmul:
    case OpCode::kGroupedMatmul:
      TP_RETURN_IF_ERROR(launch_matmul(code == OpCode::kGroupedMatmul, a, in, out[0], label, stream));
      break;
    case OpCode::kAdd:
    case OpCode::kMul:
    case OpCode::kScale:
    case OpCode::kRelu:
    case OpCode::kGelu:
    case OpCode::kSilu:
    case OpCode::kReluBackward:
    case OpCode::kGeluBackward:
    case OpCode::kSiluBackward: launch_elementwise(code, a, in, out[0], stream); break;
    case OpCode::kLayerNorm:
    case OpCode::kRmsNorm: launch_norm(code == OpCode::kLayerNorm, a, in, out, stream); break;
    case OpCode::kLayerNormBackward:
    case OpCode::kRmsNormBackward: launch_norm_backward(code == OpCode::kLayerNormBackward, in, out, stream); break;
    case OpCode::kSoftmax:
    case OpCode::kSoftmaxBackward: launch_softmax(code == OpCode::kSoftmaxBackward, in, out[0], stream); break;
    case OpCode::kTranspose: launch_transpose(in[0], out[0], stream); break;
    case OpCode::kAmax:
      TP_RETURN_IF_ERROR(tensor_amax(in[0].data, in[0].dtype, numel(in[0].shape), reinterpret_cast<float*>(out[0].data), stream));
      break;
    case OpCode::kQuantize:
    case OpCode::kDequantize:
      TP_RETURN_IF_ERROR(launch_quantize(code == OpCode::kQuantize, a, in, out, label, stream));
      break;
  }
  TPC_CHECK(cudaGetLastError(), label);
  return tp::Status::ok();
}

constexpr int64_t kPersistentAlignment = 256;

// A device allocation failure is OUT_OF_MEMORY like the host's; other CUDA errors keep cuda_status.
tp::Status malloc_status(cudaError_t e, const std::string& what, int64_t bytes) {
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free error so the next call starts clean
    return tp::Status::out_of_memory(what, bytes);
  }
  return cuda_status(e, what + " (" + std::to_string(bytes) + " bytes)");
}

// Device memory and the kernels of this file for tp::run_plan: the arena
// mode's one allocation (the given DeviceArena, or one made for the run)
// holds the arena and then every persistent storage; separate mode makes one
// cudaMalloc per storage. All work goes on one stream.
class CudaDevice final : public tp::ExecutionDevice {
 public:
  explicit CudaDevice(DeviceArena* given) : given_(given) {}
  ~CudaDevice() override {
    if (owned_base_) cudaFree(owned_base_);
    if (owned_stream_) cudaStreamDestroy(owned_stream_);
  }

  // The stream: the given arena's, or one made for this run.
  tp::Status start() {
    if (given_ != nullptr) {
      stream_ = given_->stream;
      return tp::Status::ok();
    }
    TPC_CHECK(cudaStreamCreateWithFlags(&owned_stream_, cudaStreamNonBlocking), "creating a stream");
    stream_ = owned_stream_;
    return tp::Status::ok();
  }

  int64_t persistent_alignment() const override { return kPersistentAlignment; }

  tp::Status acquire_arena(int64_t bytes, uint8_t** base, int64_t* allocations) override {
    *allocations = 0;
    if (given_ != nullptr) {
      if (given_->bytes < bytes) {
        return tp::Status::invalid("the device arena has " + std::to_string(given_->bytes) + " bytes, the plan needs " +
                                   std::to_string(bytes));
      }
      *base = static_cast<uint8_t*>(given_->base);
      return tp::Status::ok();
    }
    if (bytes > 0) {  // a plan of 0 bytes needs no allocation, only the stream
      TP_RETURN_IF_ERROR(malloc_status(device_malloc(&owned_base_, bytes), "device arena", bytes));
      *allocations = 1;
    }
    *base = static_cast<uint8_t*>(owned_base_);
    return tp::Status::ok();
  }
  tp::Status allocate(int64_t bytes, const std::string& what, uint8_t** data) override {
    void* p = nullptr;
    TP_RETURN_IF_ERROR(malloc_status(device_malloc(&p, bytes), "device " + what, bytes));
    *data = static_cast<uint8_t*>(p);
    return tp::Status::ok();
  }
  tp::Status release(uint8_t* data) override {
    TPC_CHECK(cudaFree(data), "cudaFree");
    return tp::Status::ok();
  }
  tp::Status clear(uint8_t* data, int64_t bytes) override {
    if (bytes > 0) TPC_CHECK(cudaMemsetAsync(data, 0, static_cast<size_t>(bytes), stream_), "clearing a storage");
    return tp::Status::ok();
  }
  tp::Status copy_in(uint8_t* data, const uint8_t* host, int64_t bytes, const std::string& what) override {
    TPC_CHECK(cudaMemcpyAsync(data, host, static_cast<size_t>(bytes), cudaMemcpyHostToDevice, stream_), what);
    return tp::Status::ok();
  }
  tp::Status copy_out(uint8_t* host, const uint8_t* data, int64_t bytes) override {
    TPC_CHECK(cudaMemcpyAsync(host, data, static_cast<size_t>(bytes), cudaMemcpyDeviceToHost, stream_), "copying outputs");
    return tp::Status::ok();
  }
  tp::Status run_op(tp::OpCode code, const std::vector<double>& attributes, const std::vector<tp::TensorRef>& inputs,
                    const std::vector<tp::TensorRef>& outputs, const std::string& label) override {
    // The kernels trust their shapes and addresses: the reference's checks and
    // the element alignment come first, so a refused op never reaches the GPU.
    TP_RETURN_IF_ERROR(tp::check_reference_op(code, attributes, inputs, outputs, label));
    TP_RETURN_IF_ERROR(tp::check_element_alignment(code, inputs, outputs, label));
    return launch(code, attributes, inputs, outputs, label, stream_);
  }
  tp::Status finish() override {
    TPC_CHECK(cudaStreamSynchronize(stream_), "executing the plan");
    return tp::Status::ok();
  }

 private:
  DeviceArena* given_;
  void* owned_base_ = nullptr;
  cudaStream_t owned_stream_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

tp::Status arena_create(int64_t bytes, DeviceArena** out) {
  *out = nullptr;
  DeviceArena* arena = new DeviceArena();
  arena->bytes = bytes;
  // An arena of 0 bytes needs no allocation, only the stream.
  cudaError_t e = bytes > 0 ? device_malloc(&arena->base, bytes) : cudaSuccess;
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&arena->stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    if (arena->base) cudaFree(arena->base);
    delete arena;
    return malloc_status(e, "device arena", bytes);
  }
  *out = arena;
  return tp::Status::ok();
}

void arena_destroy(DeviceArena* arena) {
  if (!arena) return;
  if (arena->stream) cudaStreamDestroy(arena->stream);
  if (arena->base) cudaFree(arena->base);
  delete arena;
}

int64_t arena_size(const DeviceArena* arena) { return arena ? arena->bytes : 0; }

int64_t device_allocation_count() { return g_allocations.load(); }

int64_t plan_device_bytes(const tp::PlanningGraph& pg, int64_t arena_bytes) {
  return tp::arena_extent(pg, arena_bytes, kPersistentAlignment);
}

tp::Status execute_cuda(const tp::PlanningGraph& pg, const tp::OpSemantics& s, const tp::ExecRequest& req,
                        DeviceArena* arena, tp::ExecResult* out) {
  CudaDevice device(arena);
  TP_RETURN_IF_ERROR(device.start());
  return tp::run_plan(pg, s, req, &device, out);
}

}  // namespace tpc
