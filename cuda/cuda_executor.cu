// CUDA executor: one device allocation, one stream, kernels for op set v1,
// the reference executor's lifecycle trace. Kernels are correctness-first:
// grid-stride loops, fp32 accumulation in the reference's order (k = 0..K-1,
// rows sequential per thread), so results match the reference bit for bit
// for data movement and within fp32 rounding (FMA contraction) elsewhere.
#include "cuda_executor.h"

#include <cuda_runtime.h>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "tensorplan/dtype.h"
#include "tensorplan/liveness.h"
#include "tensorplan/numeric_formats.h"
#include "tensorplan/reference_kernels.h"

#include "device_common.cuh"
#include "quantize_kernels.h"

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

constexpr int kTile = 16;

// C[c_row0 + m, n] = sum_k op(A)[a_row0 + m, k] * op(B)[b_base][k, n], k in order.
__global__ void matmul_kernel(const void* A, int da, int ta, int64_t a_row0, int64_t m_total, const void* B, int db,
                              int tb, int64_t b_base, void* C, int dc, int64_t c_row0, int64_t rows, int64_t K,
                              int64_t N) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int64_t m = static_cast<int64_t>(blockIdx.y) * kTile + threadIdx.y;
  const int64_t n = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int64_t k0 = 0; k0 < K; k0 += kTile) {
    const int64_t ka = k0 + threadIdx.x;
    const int64_t kb = k0 + threadIdx.y;
    as[threadIdx.y][threadIdx.x] =
        (m < rows && ka < K) ? load_element(A, da, ta ? ka * m_total + (a_row0 + m) : (a_row0 + m) * K + ka) : 0.0f;
    bs[threadIdx.y][threadIdx.x] = (n < N && kb < K) ? load_element(B, db, b_base + (tb ? n * K + kb : kb * N + n)) : 0.0f;
    __syncthreads();
    const int64_t kmax = K - k0 < kTile ? K - k0 : kTile;
    for (int64_t kk = 0; kk < kmax; ++kk) acc += as[threadIdx.y][kk] * bs[kk][threadIdx.x];
    __syncthreads();
  }
  if (m < rows && n < N) store_element(C, dc, (c_row0 + m) * N + n, acc);
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

int64_t numel(const tp::TensorRef& t) {
  int64_t n = 1;
  for (int64_t d : t.shape) n *= d;
  return n;
}
int64_t rows_of(const tp::TensorRef& t) { return t.shape.empty() ? 1 : numel(t) / (t.shape.back() == 0 ? 1 : t.shape.back()); }
int64_t cols_of(const tp::TensorRef& t) { return t.shape.empty() ? 1 : t.shape.back(); }

// Launches one op; shapes were checked by tp::check_reference_op.
tp::Status launch(tp::OpCode code, const std::vector<double>& a, const std::vector<tp::TensorRef>& in,
                  const std::vector<tp::TensorRef>& out, const std::string& label, cudaStream_t stream) {
  using tp::OpCode;
  switch (code) {
    case OpCode::kView:
      return tp::Status::ok();
    case OpCode::kCopy:
      if (in[0].data != out[0].data && in[0].bytes > 0) {
        TPC_CHECK(cudaMemcpyAsync(out[0].data, in[0].data, static_cast<size_t>(in[0].bytes), cudaMemcpyDeviceToDevice, stream), label);
      }
      return tp::Status::ok();
    case OpCode::kFill: {
      const tp::TensorRef& y = out[0];
      if (y.dtype == 0 || y.dtype == 1 || y.dtype == 2) {
        const int64_t n = numel(y);
        if (n > 0) fill_kernel<<<grid_blocks(n), 256, 0, stream>>>(y.data, y.dtype, n, static_cast<float>(a[0]));
      } else if (y.bytes > 0) {
        TPC_CHECK(cudaMemsetAsync(y.data, static_cast<int>(a[0]), static_cast<size_t>(y.bytes), stream), label);
      }
      break;
    }
    case OpCode::kMatmul:
    case OpCode::kGroupedMatmul: {
      const bool grouped = code == OpCode::kGroupedMatmul;
      const bool ta = !grouped && !a.empty() && a[0] == 1.0;
      const bool tb = grouped ? a[0] == 1.0 : (a.size() > 1 && a[1] == 1.0);
      const tp::TensorRef &A = in[0], &B = in[1], &C = out[0];
      const int64_t M = ta ? A.shape[1] : A.shape[0];
      const int64_t K = ta ? A.shape[0] : A.shape[1];
      const int64_t N = C.shape[1];
      const int64_t groups = grouped ? B.shape[0] : 1;
      int64_t row = 0;
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t rows = grouped ? static_cast<int64_t>(a[static_cast<size_t>(g + 1)]) : M;
        if (rows > 0 && N > 0) {
          if ((rows + kTile - 1) / kTile > 65535) return tp::Status::unsupported(label + ": more than 1048560 rows per matmul");
          const dim3 grid(static_cast<unsigned>((N + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
          matmul_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(A.data, A.dtype, ta ? 1 : 0, row, M, B.data, B.dtype, tb ? 1 : 0,
                                                                  g * K * N, C.data, C.dtype, row, rows, K, N);
        }
        row += rows;
      }
      break;
    }
    case OpCode::kAdd:
    case OpCode::kMul:
    case OpCode::kScale:
    case OpCode::kRelu:
    case OpCode::kGelu:
    case OpCode::kSilu:
    case OpCode::kReluBackward:
    case OpCode::kGeluBackward:
    case OpCode::kSiluBackward: {
      Elementwise p{};
      p.a = in[0].data;
      p.da = in[0].dtype;
      if (in.size() > 1) {
        p.b = in[1].data;
        p.db = in[1].dtype;
        p.nb = numel(in[1]);
      }
      p.y = out[0].data;
      p.dy = out[0].dtype;
      p.op = static_cast<int>(code);
      p.n = numel(in[0]);
      p.alpha = code == OpCode::kScale ? static_cast<float>(a[0]) : 0.0f;
      if (p.n > 0) elementwise_kernel<<<grid_blocks(p.n), 256, 0, stream>>>(p);
      break;
    }
    case OpCode::kLayerNorm:
    case OpCode::kRmsNorm: {
      Norm p{};
      p.layer = code == OpCode::kLayerNorm ? 1 : 0;
      p.x = in[0].data;
      p.dx = in[0].dtype;
      p.gamma = in[1].data;
      p.dg = in[1].dtype;
      if (p.layer) {
        p.beta = in[2].data;
        p.db = in[2].dtype;
      }
      p.y = out[0].data;
      p.dy = out[0].dtype;
      if (p.layer && out.size() == 3) {
        p.mean = reinterpret_cast<float*>(out[1].data);
        p.rstd = reinterpret_cast<float*>(out[2].data);
      } else if (!p.layer && out.size() == 2) {
        p.rstd = reinterpret_cast<float*>(out[1].data);
      }
      p.rows = rows_of(in[0]);
      p.cols = cols_of(in[0]);
      p.eps = a.empty() ? 1e-5f : static_cast<float>(a[0]);
      if (p.rows > 0) norm_kernel<<<grid_blocks(p.rows, 128), 128, 0, stream>>>(p);
      break;
    }
    case OpCode::kLayerNormBackward:
    case OpCode::kRmsNormBackward: {
      NormBackward p{};
      p.layer = code == OpCode::kLayerNormBackward ? 1 : 0;
      p.dy = in[0].data;
      p.d_dy = in[0].dtype;
      p.x = in[1].data;
      p.d_x = in[1].dtype;
      p.gamma = in[2].data;
      p.d_g = in[2].dtype;
      if (p.layer) {
        p.mean = in[3].data;
        p.d_mean = in[3].dtype;
      }
      p.rstd = in[p.layer ? 4 : 3].data;
      p.d_rstd = in[p.layer ? 4 : 3].dtype;
      p.dx = out[0].data;
      p.d_dx = out[0].dtype;
      p.dgamma = out[1].data;
      p.d_dg = out[1].dtype;
      if (p.layer) {
        p.dbeta = out[2].data;
        p.d_db = out[2].dtype;
      }
      p.rows = rows_of(in[1]);
      p.cols = cols_of(in[1]);
      if (p.rows > 0) norm_backward_rows<<<grid_blocks(p.rows, 128), 128, 0, stream>>>(p);
      if (p.cols > 0) norm_backward_cols<<<grid_blocks(p.cols, 128), 128, 0, stream>>>(p);
      break;
    }
    case OpCode::kSoftmax:
    case OpCode::kSoftmaxBackward: {
      const bool backward = code == OpCode::kSoftmaxBackward;
      const int64_t rows = rows_of(in[0]);
      if (rows > 0) {
        softmax_kernel<<<grid_blocks(rows, 128), 128, 0, stream>>>(in[0].data, in[0].dtype, backward ? in[1].data : nullptr,
                                                                   backward ? in[1].dtype : 0, out[0].data, out[0].dtype,
                                                                   rows, cols_of(in[0]), backward ? 1 : 0);
      }
      break;
    }
    case OpCode::kTranspose: {
      const tp::TensorRef& x = in[0];
      const int64_t R = x.shape[x.shape.size() - 2], C = x.shape[x.shape.size() - 1];
      const int64_t B = R * C == 0 ? 0 : numel(x) / (R * C);
      const int elem = tp::dtype_element_bytes(static_cast<tp::DType>(x.dtype));
      if (B * R * C > 0) {
        transpose_kernel<<<grid_blocks(B * R * C), 256, 0, stream>>>(static_cast<const unsigned char*>(x.data),
                                                                     static_cast<unsigned char*>(out[0].data), B, R, C, elem);
      }
      break;
    }
    case OpCode::kAmax: {
      TP_RETURN_IF_ERROR(tensor_amax(in[0].data, in[0].dtype, numel(in[0]), reinterpret_cast<float*>(out[0].data), stream));
      break;
    }
    case OpCode::kQuantize:
    case OpCode::kDequantize: {
      const bool forward = code == OpCode::kQuantize;
      const tp::TensorRef& logical = forward ? in[0] : out[0];
      tp::TensorSpec spec;
      tp::QuantizeParams params;
      TP_RETURN_IF_ERROR(tp::quantize_op_spec(a, logical, label, &spec, &params));
      if (forward) {
        std::vector<uint8_t*> buffers;
        for (const tp::TensorRef& t : out) buffers.push_back(t.data);
        TP_RETURN_IF_ERROR(quantize_on_device(spec, params, logical.data, buffers, stream));
      } else {
        std::vector<const uint8_t*> buffers;
        for (const tp::TensorRef& t : in) buffers.push_back(t.data);
        TP_RETURN_IF_ERROR(dequantize_on_device(spec, buffers, logical.data, stream));
      }
      break;
    }
  }
  TPC_CHECK(cudaGetLastError(), label);
  return tp::Status::ok();
}

constexpr int64_t kPersistentAlignment = 256;

}  // namespace

tp::Status arena_create(int64_t bytes, DeviceArena** out) {
  *out = nullptr;
  DeviceArena* arena = new DeviceArena();
  arena->bytes = bytes;
  // A plan of 0 bytes needs no allocation, only the stream.
  cudaError_t e = bytes > 0 ? device_malloc(&arena->base, bytes) : cudaSuccess;
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&arena->stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    if (arena->base) cudaFree(arena->base);
    delete arena;
    return cuda_status(e, "allocating a device arena of " + std::to_string(bytes) + " bytes");
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
  int64_t end = arena_bytes;
  for (const tp::Storage& s : pg.storage.storages) {
    if (!s.persistent) continue;
    end = (end + kPersistentAlignment - 1) / kPersistentAlignment * kPersistentAlignment + s.aligned_bytes;
  }
  return end;
}

tp::Status execute_cuda(const tp::PlanningGraph& pg, const tp::OpSemantics& s, const tp::ExecRequest& req,
                        DeviceArena* given_arena, tp::ExecResult* out) {
  const tp::Graph& g = pg.graph;
  TP_RETURN_IF_ERROR(tp::check_op_semantics(pg, s));
  TP_RETURN_IF_ERROR(tp::check_schedule(pg, req.order));
  tp::Liveness live;
  TP_RETURN_IF_ERROR(tp::compute_liveness(pg, req.order, &live));
  const int32_t S = pg.storage_count();
  const int32_t steps = static_cast<int32_t>(req.order.size());
  const bool arena_mode = req.mode == tp::ExecMode::kArena;
  if (arena_mode && static_cast<int32_t>(req.storage_offset.size()) != S) {
    return tp::Status::invalid("storage_offset has " + std::to_string(req.storage_offset.size()) + " entries, the graph has " +
                               std::to_string(S) + " storages");
  }

  // Device offsets: arena storages at their planned offsets, persistent ones after the arena.
  std::vector<int64_t> offset(static_cast<size_t>(S), -1);
  int64_t end = req.arena_bytes;
  for (int32_t st = 0; st < S; ++st) {
    const tp::Storage& storage = pg.storage.storages[static_cast<size_t>(st)];
    if (storage.persistent) {
      end = (end + kPersistentAlignment - 1) / kPersistentAlignment * kPersistentAlignment;
      offset[static_cast<size_t>(st)] = end;
      end += storage.aligned_bytes;
      continue;
    }
    if (!arena_mode || (live.birth[static_cast<size_t>(st)] < 0 && !storage.graph_input)) continue;
    const int64_t off = req.storage_offset[static_cast<size_t>(st)];
    if (off < 0 || off > req.arena_bytes || storage.aligned_bytes > req.arena_bytes - off) {
      return tp::Status::invalid("storage of " + tp::tensor_label(g, storage.root_tensor) + " at offset " + std::to_string(off) +
                                 " is outside the arena of " + std::to_string(req.arena_bytes) + " bytes");
    }
    offset[static_cast<size_t>(st)] = off;
  }

  // Check every op before touching the device.
  auto host_ref = [&](int32_t t) {
    tp::TensorRef r;
    r.bytes = g.tensors[static_cast<size_t>(t)].bytes;
    r.dtype = s.tensor_dtype[static_cast<size_t>(t)];
    r.shape = s.tensor_shape[static_cast<size_t>(t)];
    r.label = tp::tensor_label(g, t);
    return r;
  };
  for (int32_t op : req.order) {
    const tp::GraphOp& gop = g.ops[static_cast<size_t>(op)];
    std::vector<tp::TensorRef> ins, outs;
    for (int32_t t : gop.inputs) ins.push_back(host_ref(t));
    for (int32_t t : gop.outputs) outs.push_back(host_ref(t));
    TP_RETURN_IF_ERROR(tp::check_reference_op(static_cast<tp::OpCode>(s.op_codes[static_cast<size_t>(op)]),
                                              s.attributes[static_cast<size_t>(op)], ins, outs, "op " + tp::op_label(g, op)));
  }

  // Memory: one allocation (given or made here), or one per storage.
  DeviceArena* arena = given_arena;
  DeviceArena* owned = nullptr;
  const int64_t before = g_allocations.load();
  std::vector<void*> separate(static_cast<size_t>(S), nullptr);
  struct Cleanup {
    DeviceArena** owned;
    std::vector<void*>* separate;
    ~Cleanup() {
      for (void* p : *separate) if (p) cudaFree(p);
      arena_destroy(*owned);
    }
  } cleanup{&owned, &separate};
  const int64_t need = arena_mode ? end : 0;
  if (arena_mode && arena != nullptr && arena->bytes < need) {
    return tp::Status::invalid("the device arena has " + std::to_string(arena->bytes) + " bytes, the plan needs " + std::to_string(need));
  }
  if (arena == nullptr) {
    TP_RETURN_IF_ERROR(arena_create(arena_mode ? need : 0, &owned));
    arena = owned;
  }
  cudaStream_t stream = arena->stream;
  uint8_t* base = static_cast<uint8_t*>(arena->base);
  int64_t live_bytes = 0, peak = arena_mode ? need : 0;
  auto storage_base = [&](int32_t st) -> uint8_t* {
    const bool in_arena = arena_mode || pg.storage.storages[static_cast<size_t>(st)].persistent;
    return in_arena && arena_mode ? base + offset[static_cast<size_t>(st)] : static_cast<uint8_t*>(separate[static_cast<size_t>(st)]);
  };
  auto allocate = [&](int32_t st) -> tp::Status {
    const tp::Storage& storage = pg.storage.storages[static_cast<size_t>(st)];
    if (!arena_mode) {
      void* p = nullptr;
      TPC_CHECK(device_malloc(&p, storage.aligned_bytes), "cudaMalloc for " + tp::tensor_label(g, storage.root_tensor));
      separate[static_cast<size_t>(st)] = p;
      if (!storage.persistent) {
        live_bytes += storage.aligned_bytes;
        if (live_bytes > peak) peak = live_bytes;
      }
    }
    if (storage.aligned_bytes > 0) {
      TPC_CHECK(cudaMemsetAsync(storage_base(st), 0, static_cast<size_t>(storage.aligned_bytes), stream), "clearing a storage");
    }
    return tp::Status::ok();
  };
  auto release = [&](int32_t st) -> tp::Status {
    if (arena_mode) return tp::Status::ok();
    live_bytes -= pg.storage.storages[static_cast<size_t>(st)].aligned_bytes;
    TPC_CHECK(cudaFree(separate[static_cast<size_t>(st)]), "cudaFree");
    separate[static_cast<size_t>(st)] = nullptr;
    return tp::Status::ok();
  };
  auto device_ref = [&](int32_t t) {
    tp::TensorRef r = host_ref(t);
    r.data = storage_base(pg.storage.tensor_storage[static_cast<size_t>(t)]) + pg.storage.tensor_offset[static_cast<size_t>(t)];
    return r;
  };

  std::vector<bool> alive(static_cast<size_t>(S), false);
  for (int32_t st = 0; st < S; ++st) {
    const tp::Storage& storage = pg.storage.storages[static_cast<size_t>(st)];
    if (storage.graph_input || storage.persistent) {
      TP_RETURN_IF_ERROR(allocate(st));
      alive[static_cast<size_t>(st)] = true;
    }
  }
  std::vector<bool> given(g.tensors.size(), false);
  for (size_t k = 0; k < req.input_tensors.size(); ++k) {
    const int32_t t = req.input_tensors[k];
    if (t < 0 || static_cast<size_t>(t) >= g.tensors.size()) return tp::Status::invalid("input_tensors: no such tensor");
    if (!alive[static_cast<size_t>(pg.storage.tensor_storage[static_cast<size_t>(t)])]) {
      return tp::Status::invalid("input " + tp::tensor_label(g, t) + " is neither a graph input nor persistent");
    }
    if (static_cast<int64_t>(req.input_bytes[k].size()) != g.tensors[static_cast<size_t>(t)].bytes) {
      return tp::Status::invalid("input " + tp::tensor_label(g, t) + " has " + std::to_string(req.input_bytes[k].size()) +
                                 " bytes, the graph says " + std::to_string(g.tensors[static_cast<size_t>(t)].bytes));
    }
    if (!req.input_bytes[k].empty()) {
      TPC_CHECK(cudaMemcpyAsync(device_ref(t).data, req.input_bytes[k].data(), req.input_bytes[k].size(), cudaMemcpyHostToDevice, stream),
                "copying input " + tp::tensor_label(g, t));
    }
    given[static_cast<size_t>(t)] = true;
  }
  for (int32_t t : g.inputs) {
    if (!given[static_cast<size_t>(t)]) return tp::Status::invalid("graph input " + tp::tensor_label(g, t) + " has no bytes");
  }

  const tp::StepLifecycle lifecycle = tp::step_lifecycle(pg, live);
  const auto& born = lifecycle.born;
  const auto& dying = lifecycle.dying;
  for (int32_t step = 0; step < steps; ++step) {
    for (int32_t st : born[static_cast<size_t>(step)]) {
      TP_RETURN_IF_ERROR(allocate(st));
      alive[static_cast<size_t>(st)] = true;
      out->trace.push_back(tp::TraceEvent{step, pg.storage.storages[static_cast<size_t>(st)].root_tensor, true});
    }
    const int32_t op = req.order[static_cast<size_t>(step)];
    const tp::GraphOp& gop = g.ops[static_cast<size_t>(op)];
    std::vector<tp::TensorRef> ins, outs;
    for (int32_t t : gop.inputs) ins.push_back(device_ref(t));
    for (int32_t t : gop.outputs) outs.push_back(device_ref(t));
    TP_RETURN_IF_ERROR(launch(static_cast<tp::OpCode>(s.op_codes[static_cast<size_t>(op)]), s.attributes[static_cast<size_t>(op)], ins,
                              outs, "op " + tp::op_label(g, op), stream));
    for (int32_t st : dying[static_cast<size_t>(step)]) {
      TP_RETURN_IF_ERROR(release(st));
      alive[static_cast<size_t>(st)] = false;
      out->trace.push_back(tp::TraceEvent{step, pg.storage.storages[static_cast<size_t>(st)].root_tensor, false});
    }
  }
  for (int32_t t : g.outputs) {
    std::vector<uint8_t> bytes(static_cast<size_t>(g.tensors[static_cast<size_t>(t)].bytes), 0);
    if (alive[static_cast<size_t>(pg.storage.tensor_storage[static_cast<size_t>(t)])] && !bytes.empty()) {
      TPC_CHECK(cudaMemcpyAsync(bytes.data(), device_ref(t).data, bytes.size(), cudaMemcpyDeviceToHost, stream), "copying outputs");
    }
    out->outputs.push_back(std::move(bytes));
  }
  TPC_CHECK(cudaStreamSynchronize(stream), "executing the plan");
  out->stats.allocations = g_allocations.load() - before;
  out->stats.peak_bytes = peak;
  return tp::Status::ok();
}

}  // namespace tpc
