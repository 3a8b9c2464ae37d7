// GPU quantize / dequantize (see quantize_kernels.h). Each recipe is the
// reference's loop nest (core-cpp/src/formats/quantize/) spread over threads:
// amaxes are maxima, so any reduction order gives the reference's value, and
// every scale and code comes from the shared TP_HOST_DEVICE functions. Memory
// access is arranged for coalescing: consecutive threads touch consecutive
// elements on the read side, and transposed outputs (and, when dequantizing,
// transposed inputs) go through shared-memory tiles.
#include "execute/quantize_kernels.h"

#include "device/device_common.cuh"

#include <cuda_runtime.h>

#include <string>

#include "formats/dtype.h"
#include "tensorplan/numerics/numeric_formats.h"
#include "tensorplan/numerics/quantize_math.h"
#include "formats/recipe.h"
#include "formats/scale_swizzle.h"

namespace tpc {

using tp::DType;
using tp::Recipe;

namespace {

// Where the scale of block `block` of row `row` sits: the compact matrix's
// row-major index, or the GEMM-swizzled one (FORMATS.md).
__device__ __forceinline__ int64_t scale_index(bool swizzled, int64_t row, int64_t block, int64_t scale_cols) {
  return swizzled ? tp::swizzled_scale_index(row, block, scale_cols) : row * scale_cols + block;
}

// ---- amax --------------------------------------------------------------------

// *out = max(*out, max |x|) over n elements; *out starts at zero. Eight
// elements per load where x starts at 16 bytes, the last n % 8 one by one
// (a maximum does not depend on the order it is folded in).
__global__ void amax_kernel(const void* x, int dtype, int64_t n, float* out) {
  float a = 0.0f;
  const int64_t vectors = vector_aligned(x, 16) ? n / kVector : 0;
  TPC_GRID_STRIDE(g, vectors) {
    float v[kVector];
    load_vector(x, dtype, g * kVector, v);
    for (int t = 0; t < kVector; ++t) a = tp::fmax_ignoring_nan(a, tp::abs_bits(v[t]));
  }
  TPC_GRID_STRIDE(r, n - vectors * kVector) { a = tp::fmax_ignoring_nan(a, tp::abs_bits(load_element(x, dtype, vectors * kVector + r))); }
  a = warp_max(a, 0xffffffffu, 32);
  __shared__ float warp_amax[32];
  if (threadIdx.x % 32 == 0) warp_amax[threadIdx.x / 32] = a;
  __syncthreads();
  if (threadIdx.x == 0) {
    float block = 0.0f;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) block = tp::fmax_ignoring_nan(block, warp_amax[w]);
    atomic_max_nonnegative(out, block);
  }
}

// out[r] = max |x[r, :]|: one block per row (grid-stride over rows).
__global__ void row_amax_kernel(const void* x, int dtype, int64_t rows, int64_t cols, float* out) {
  __shared__ float warp_amax[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    float a = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) a = tp::fmax_ignoring_nan(a, tp::abs_bits(load_element(x, dtype, r * cols + j)));
    a = warp_max(a, 0xffffffffu, 32);
    if (threadIdx.x % 32 == 0) warp_amax[threadIdx.x / 32] = a;
    __syncthreads();
    if (threadIdx.x == 0) {
      float row = 0.0f;
      for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) row = tp::fmax_ignoring_nan(row, warp_amax[w]);
      out[r] = row;
    }
    __syncthreads();
  }
}

}  // namespace

tp::Status tensor_amax(const void* x, int dtype, int64_t n, float* out, cudaStream_t stream) {
  TPC_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream), "amax (clear)");
  amax_kernel<<<grid_blocks(n, 256, 1024), 256, 0, stream>>>(x, dtype, n, out);
  return launch_status("amax_kernel");
}

namespace {

// ---- per-tensor FP8 (delayed and current scaling) ----------------------------

struct PerTensorCast {
  const void* x;
  int dtype;
  int64_t m, k;
  bool e5m2;
  // Current scaling: scale from *amax; delayed: `delayed_scale`.
  const float* amax;
  float fp8_max, epsilon, delayed_scale;
  bool pow2;
  uint8_t* data;       // m x k codes, or null
  uint8_t* transpose;  // k x m codes, or null
};

__device__ __forceinline__ float per_tensor_scale(const PerTensorCast& p) {
  return p.amax ? tp::compute_scale_from_amax(*p.amax, p.fp8_max, p.pow2, p.epsilon, tp::kFloatMax) : p.delayed_scale;
}

// 32 x 32 tiles, 32 x 8 threads: reads and `data` writes run along rows;
// `transpose` writes run along columns of x, staged in shared memory. Tiles
// are numbered on grid.x (grid.y would cap M at 65535 tiles) and looped.
__global__ void per_tensor_cast_kernel(PerTensorCast p) {
  __shared__ uint8_t tile[32][33];
  const float scale = per_tensor_scale(p);
  const int64_t tiles_k = (p.k + 31) / 32, tiles = ((p.m + 31) / 32) * tiles_k;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t r0 = (t / tiles_k) * 32, c0 = (t % tiles_k) * 32;
    for (int dy = threadIdx.y; dy < 32; dy += 8) {
      const int64_t r = r0 + dy, c = c0 + threadIdx.x;
      if (r < p.m && c < p.k) {
        const uint8_t code = tp::encode_fp8(p.e5m2, load_element(p.x, p.dtype, r * p.k + c) * scale);
        if (p.data) p.data[r * p.k + c] = code;
        tile[dy][threadIdx.x] = code;
      }
    }
    if (p.transpose) {
      __syncthreads();
      for (int dx = threadIdx.y; dx < 32; dx += 8) {
        const int64_t c = c0 + dx, r = r0 + threadIdx.x;
        if (r < p.m && c < p.k) p.transpose[c * p.m + r] = tile[threadIdx.x][dx];
      }
      __syncthreads();  // the next tile reuses `tile`
    }
  }
}

// With _transpose, eight elements per thread: one block per 64 x 64 tile of
// x (looped over grid.x), 256 threads. Pass one reads rows of x as 16-byte
// vectors, writes `data` along rows (8-byte words) and stages the codes in
// shared memory; pass two gathers eight codes down a column of the tile and
// writes them as one 8-byte word along a row of x^T. Needs x at 16 bytes,
// k % 8 == 0 and m % 8 == 0 (whole words in both layouts), `data` and
// `transpose` at 8 (the launcher checks); tiles at the edges of x are cut at
// whole words.
__global__ void per_tensor_tile_vector_kernel(PerTensorCast p) {
  __shared__ uint8_t tile[64][64 + 8];  // padded rows: fewer bank conflicts in pass two
  const float scale = per_tensor_scale(p);
  const int64_t tiles_k = (p.k + 63) / 64, tiles = ((p.m + 63) / 64) * tiles_k;
  const int lane_row = threadIdx.x / 8, lane_word = (threadIdx.x % 8) * kVector;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t r0 = (t / tiles_k) * 64, c0 = (t % tiles_k) * 64;
    for (int dy = lane_row; dy < 64; dy += 32) {
      const int64_t r = r0 + dy, c = c0 + lane_word;
      if (r < p.m && c < p.k) {
        float v[kVector];
        uint8_t codes[kVector];
        load_vector(p.x, p.dtype, r * p.k + c, v);
        for (int q = 0; q < kVector; ++q) {
          codes[q] = tp::encode_fp8(p.e5m2, v[q] * scale);
          tile[dy][lane_word + q] = codes[q];
        }
        if (p.data) reinterpret_cast<uint2*>(p.data + r * p.k + c)[0] = pack_codes(codes);
      }
    }
    __syncthreads();
    for (int dx = lane_row; dx < 64; dx += 32) {
      const int64_t c = c0 + dx, r = r0 + lane_word;
      if (r < p.m && c < p.k) {
        uint8_t codes[kVector];
        for (int q = 0; q < kVector; ++q) codes[q] = tile[lane_word + q][dx];
        reinterpret_cast<uint2*>(p.transpose + c * p.m + r)[0] = pack_codes(codes);
      }
    }
    __syncthreads();  // the next tile reuses `tile`
  }
}

// Rowwise only (no _transpose): x in flat order, eight elements per step and
// one 8-byte store of codes; x at 16 bytes and _data at 8 (the launcher
// checks). The last n % 8 elements one by one.
__global__ void per_tensor_rowwise_kernel(PerTensorCast p) {
  const float scale = per_tensor_scale(p);
  const int64_t n = p.m * p.k, vectors = n / kVector;
  TPC_GRID_STRIDE(g, vectors) {
    float v[kVector];
    uint8_t codes[kVector];
    load_vector(p.x, p.dtype, g * kVector, v);
    for (int t = 0; t < kVector; ++t) codes[t] = tp::encode_fp8(p.e5m2, v[t] * scale);
    reinterpret_cast<uint2*>(p.data)[g] = pack_codes(codes);
  }
  TPC_GRID_STRIDE(r, n - vectors * kVector) {
    const int64_t i = vectors * kVector + r;
    p.data[i] = tp::encode_fp8(p.e5m2, load_element(p.x, p.dtype, i) * scale);
  }
}

// Runs after the cast: overwrites the amax parked in _scale_inv with 1/scale.
__global__ void per_tensor_scale_inv_kernel(PerTensorCast p, float* scale_inv) {
  *scale_inv = tp::canonical_nan(tp::divide_rn(1.0f, per_tensor_scale(p)));
}

// ---- MXFP8 (blocks of 32) ----------------------------------------------------

struct Mxfp8 {
  const void* x;
  int dtype;
  int64_t m, k;
  bool e5m2, swizzled;
  float fp8_max;
  uint8_t* data;
  uint8_t* scales;
  int64_t scale_rows, scale_cols;  // the compact scale matrix of this usage
};

// Rowwise: one warp per block of 32 consecutive elements (k % 32 == 0, so a
// block never straddles rows and every warp runs the loop in lockstep).
__global__ void mxfp8_rowwise_kernel(Mxfp8 p) {
  const int64_t n = p.m * p.k;
  TPC_GRID_STRIDE(i, n) {
    const float v = load_element(p.x, p.dtype, i);
    const float block_amax = warp_max(tp::fmax_ignoring_nan(0.0f, tp::abs_bits(v)), 0xffffffffu, 32);
    const uint8_t e = tp::mxfp8_block_scale(block_amax, p.fp8_max);
    p.data[i] = tp::encode_fp8(p.e5m2, v * tp::e8m0_reciprocal(e));
    if (threadIdx.x % 32 == 0) {
      const int64_t row = i / p.k, block = (i % p.k) / 32;
      p.scales[scale_index(p.swizzled, row, block, p.scale_cols)] = e;
    }
  }
}

// Elements 8g..8g+7 of x into v (zeros for a lane without an item) and the
// amax of the block that `lanes` neighbouring lanes hold together.
__device__ __forceinline__ float load_block(const void* x, int dtype, int64_t g, bool active, int lanes, float v[kVector]) {
  for (int t = 0; t < kVector; ++t) v[t] = 0.0f;
  if (active) load_vector(x, dtype, g * kVector, v);
  float a = 0.0f;
  for (int t = 0; t < kVector; ++t) a = tp::fmax_ignoring_nan(a, tp::abs_bits(v[t]));
  return warp_max(a, 0xffffffffu, lanes);
}

// Rowwise, eight elements per thread: four neighbouring lanes hold one block
// of 32 and fold its amax with two shuffles; each stores its codes as one
// 8-byte word and the first of the four writes the scale. x at 16 bytes and
// _rowwise_data at 8 (the launcher checks).
__global__ void mxfp8_rowwise_vector_kernel(Mxfp8 p) {
  const int64_t vectors = p.m * p.k / kVector;
  TPC_WARP_GRID_STRIDE(g, vectors) {
    const bool active = g < vectors;
    float v[kVector];
    const float block_amax = load_block(p.x, p.dtype, g, active, 4, v);
    if (!active) continue;
    const uint8_t e = tp::mxfp8_block_scale(block_amax, p.fp8_max);
    const float multiplier = tp::e8m0_reciprocal(e);
    uint8_t codes[kVector];
    for (int t = 0; t < kVector; ++t) codes[t] = tp::encode_fp8(p.e5m2, v[t] * multiplier);
    reinterpret_cast<uint2*>(p.data)[g] = pack_codes(codes);
    if (threadIdx.x % 4 == 0) {
      const int64_t i = g * kVector, row = i / p.k, block = (i % p.k) / 32;
      p.scales[scale_index(p.swizzled, row, block, p.scale_cols)] = e;
    }
  }
}

// Columnwise: one thread per (32-row band, column); neighbouring threads read
// neighbouring columns. Data keeps the logical layout.
__global__ void mxfp8_columnwise_kernel(Mxfp8 p) {
  const int64_t items = (p.m / 32) * p.k;
  TPC_GRID_STRIDE(item, items) {
    const int64_t band = item / p.k, col = item % p.k;
    const int64_t first = band * 32 * p.k + col;
    float block_amax = 0.0f;
    for (int r = 0; r < 32; ++r) block_amax = tp::fmax_ignoring_nan(block_amax, tp::abs_bits(load_element(p.x, p.dtype, first + r * p.k)));
    const uint8_t e = tp::mxfp8_block_scale(block_amax, p.fp8_max);
    const float multiplier = tp::e8m0_reciprocal(e);
    for (int r = 0; r < 32; ++r) {
      p.data[first + r * p.k] = tp::encode_fp8(p.e5m2, load_element(p.x, p.dtype, first + r * p.k) * multiplier);
    }
    // The swizzled matrix is the compact one transposed: S(column, band).
    p.scales[p.swizzled ? tp::swizzled_scale_index(col, band, p.scale_rows) : band * p.scale_cols + col] = e;
  }
}

// ---- NVFP4 (blocks of 16, two codes per byte) --------------------------------

struct Nvfp4 {
  const void* x;
  int dtype;
  int64_t rows, cols;    // of the matrix quantized along its rows (x, or x^T for columnwise)
  const float* amax;     // one global amax, or one per row when `row_scaled`
  bool row_scaled, swizzled, hadamard, no_signs;
  uint8_t* data;
  uint8_t* scales;
  int64_t scale_cols;
};

// Rowwise: a half-warp per 16-element block (n % 256 == 0, so warps stay
// full). The block's first lane works out the scale (four IEEE divisions)
// and broadcasts the multiplier; even lanes store the packed pair.
__global__ void nvfp4_rowwise_kernel(Nvfp4 p) {
  const int64_t n = p.rows * p.cols;
  TPC_GRID_STRIDE(i, n) {
    const float v = load_element(p.x, p.dtype, i);
    const float block_amax = warp_max(tp::fmax_ignoring_nan(0.0f, tp::abs_bits(v)), 0xffffffffu, 16);
    const int64_t row = i / p.cols, block = (i % p.cols) / 16;
    const bool leader = threadIdx.x % 16 == 0;
    tp::Nvfp4BlockScale scale{0, 0.0f};
    if (leader) scale = tp::nvfp4_block_scale(block_amax, tp::nvfp4_global_encode_scale(p.row_scaled ? p.amax[row] : p.amax[0]));
    const float multiplier = __shfl_sync(0xffffffffu, scale.multiplier, static_cast<int>(threadIdx.x % 32) & ~15);
    const uint8_t code = tp::float_to_e2m1(v * multiplier);
    const uint8_t odd = static_cast<uint8_t>(__shfl_down_sync(0xffffffffu, code, 1));
    if (i % 2 == 0) p.data[i / 2] = tp::pack_e2m1_pair(code, odd);
    if (leader) p.scales[scale_index(p.swizzled, row, block, p.scale_cols)] = scale.code;
  }
}

// Rowwise, eight elements per thread: two neighbouring lanes hold one block
// of 16. The even lane works out the scale and passes the multiplier on;
// each lane stores its eight codes as one 4-byte word. x at 16 bytes and
// _rowwise_data at 4 (the launcher checks).
__global__ void nvfp4_rowwise_vector_kernel(Nvfp4 p) {
  const int64_t vectors = p.rows * p.cols / kVector;
  TPC_WARP_GRID_STRIDE(g, vectors) {
    const bool active = g < vectors;
    float v[kVector];
    const float block_amax = load_block(p.x, p.dtype, g, active, 2, v);
    const int64_t i = g * kVector, row = i / p.cols, block = (i % p.cols) / 16;
    const bool leader = threadIdx.x % 2 == 0;
    tp::Nvfp4BlockScale scale{0, 0.0f};
    if (active && leader) scale = tp::nvfp4_block_scale(block_amax, tp::nvfp4_global_encode_scale(p.row_scaled ? p.amax[row] : p.amax[0]));
    const float multiplier = __shfl_sync(0xffffffffu, scale.multiplier, static_cast<int>(threadIdx.x % 32) & ~1);
    if (!active) continue;
    uint32_t word = 0;
    for (int q = 0; q < kVector / 2; ++q) {
      const uint8_t pair = tp::pack_e2m1_pair(tp::float_to_e2m1(v[2 * q] * multiplier), tp::float_to_e2m1(v[2 * q + 1] * multiplier));
      word |= static_cast<uint32_t>(pair) << (8 * q);
    }
    reinterpret_cast<uint32_t*>(p.data)[g] = word;
    if (leader) p.scales[scale_index(p.swizzled, row, block, p.scale_cols)] = scale.code;
  }
}

// Columnwise: y = x^T (optionally Hadamard-transformed per 16 elements and
// rounded to bf16, as TE's unfused path), quantized along its rows. One
// thread per (row j of y = column j of x, 16-element chunk).
__device__ __forceinline__ void nvfp4_column_chunk(const Nvfp4& p, int64_t j, int64_t chunk, float* y) {
  // p.rows = K (columns of x), p.cols = M (rows of x).
  float v[16];
  for (int t = 0; t < 16; ++t) v[t] = load_element(p.x, p.dtype, (chunk * 16 + t) * p.rows + j);
  if (p.hadamard) {
    tp::nvfp4_hadamard16(v, y, false, p.no_signs, true);
  } else {
    for (int t = 0; t < 16; ++t) y[t] = v[t];
  }
}

// One block per tile of 32 columns j of x by 8 chunks (128 rows of x), looped
// over grid.x, 32 x 8 threads: thread (tx, ty) takes column j0 + tx, chunk
// ch0 + ty, so a warp reads 32 neighbouring columns of x. With `amax_only` it
// only folds max |y| into *amax_out (pass one). Otherwise each thread stages
// its 8 packed bytes in shared memory and the block then writes them out
// along rows of y: 8 threads per row of 64 contiguous bytes.
__global__ void nvfp4_columnwise_kernel(Nvfp4 p, bool amax_only, float* amax_out) {
  __shared__ uint2 staged[32][9];  // staged[row j - j0][chunk - ch0]: 16 codes (padded: fewer bank conflicts)
  const int64_t chunks = p.cols / 16;
  const int64_t tiles_j = (p.rows + 31) / 32, tiles = ((chunks + 7) / 8) * tiles_j;
  const int tid = threadIdx.y * 32 + threadIdx.x;
  const bool aligned = reinterpret_cast<uintptr_t>(p.data) % 8 == 0;  // row starts are (M / 2)-byte multiples of 8
  float folded = 0.0f;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t j0 = (t % tiles_j) * 32, ch0 = (t / tiles_j) * 8;
    const int64_t j = j0 + threadIdx.x, chunk = ch0 + threadIdx.y;
    if (j < p.rows && chunk < chunks) {
      float y[16];
      nvfp4_column_chunk(p, j, chunk, y);
      float block_amax = 0.0f;
      for (int e = 0; e < 16; ++e) block_amax = tp::fmax_ignoring_nan(block_amax, tp::abs_bits(y[e]));
      if (amax_only) {
        folded = tp::fmax_ignoring_nan(folded, block_amax);
      } else {
        const tp::Nvfp4BlockScale scale = tp::nvfp4_block_scale(block_amax, tp::nvfp4_global_encode_scale(p.amax[0]));
        uint8_t packed[8];
        for (int e = 0; e < 16; e += 2) {
          packed[e / 2] = tp::pack_e2m1_pair(tp::float_to_e2m1(y[e] * scale.multiplier), tp::float_to_e2m1(y[e + 1] * scale.multiplier));
        }
        uint2 word;
        memcpy(&word, packed, 8);
        staged[threadIdx.x][threadIdx.y] = word;
        p.scales[scale_index(p.swizzled, j, chunk, p.scale_cols)] = scale.code;
      }
    }
    if (amax_only) continue;  // uniform over the grid
    __syncthreads();
    const int64_t row = j0 + tid / 8, out_chunk = ch0 + tid % 8;
    if (row < p.rows && out_chunk < chunks) {
      uint8_t* out = p.data + (row * p.cols + out_chunk * 16) / 2;
      const uint2 word = staged[tid / 8][tid % 8];
      if (aligned) {
        *reinterpret_cast<uint2*>(out) = word;
      } else {
        uint8_t bytes[8];
        memcpy(bytes, &word, 8);
        for (int b = 0; b < 8; ++b) out[b] = bytes[b];
      }
    }
    __syncthreads();  // the next tile reuses `staged`
  }
  if (amax_only) {
    folded = warp_max(folded, 0xffffffffu, 32);  // every thread is here: the tile loop is uniform
    if (threadIdx.x == 0) atomic_max_nonnegative(amax_out, folded);
  }
}

// ---- FP8 block scaling (1x128, 128x1 and 128x128 tiles) ----------------------

struct Fp8Block {
  const void* x;
  int dtype;
  int64_t m, k;
  bool two_d, e5m2, pow2;
  float fp8_max, epsilon, value_for_inf;
  uint8_t* row_data;   // m x k codes, or null
  float* row_scales;   // scale_inv, or null
  int64_t row_scale_cols;
  uint8_t* col_data;   // k x m codes (x^T quantized along its rows), or null
  float* col_scales;
  int64_t col_scale_cols;
};

// A block FP8 region's shared memory: the folded amaxes (fp32 bits; for 2D
// row_amax[0] holds the region's), the scales, and the columnwise codes
// staged for writing along rows of x^T (padded rows: fewer bank conflicts).
struct RegionShared {
  unsigned int row_amax[128];
  unsigned int col_amax[128];
  float row_scale[128];
  float col_scale[128];
  uint8_t staged[128][129];
};

// The scales of one 128 x 128 region from its folded amaxes (in `sh`): one
// per row and per column for 1D tiles, one for 2D (in [0]). Each goes to
// shared memory for the cast and, as scale_inv, to its output. Threads
// `tid` < 128 of the block take one row and column each.
__device__ __forceinline__ void region_scales(const Fp8Block& p, RegionShared* sh, int tid, int64_t r0, int64_t c0, int rows, int cols) {
  const bool row_tiles = !p.two_d && p.row_data, col_tiles = !p.two_d && p.col_data;
  const int64_t mb = r0 / 128, kb = c0 / 128;
  for (int t = tid; t < 128; t += 256) {
    if (p.two_d) {
      if (t == 0) {
        const float s = tp::compute_scale_from_amax(tp::float_from_bits(sh->row_amax[0]), p.fp8_max, p.pow2, p.epsilon, p.value_for_inf);
        sh->row_scale[0] = sh->col_scale[0] = s;
        const float inv = tp::divide_rn(1.0f, s);
        if (p.row_scales) p.row_scales[mb * p.row_scale_cols + kb] = inv;
        if (p.col_scales) p.col_scales[kb * p.col_scale_cols + mb] = inv;
      }
      continue;
    }
    if (row_tiles && t < rows) {
      const float s = tp::compute_scale_from_amax(tp::float_from_bits(sh->row_amax[t]), p.fp8_max, p.pow2, p.epsilon, p.value_for_inf);
      sh->row_scale[t] = s;
      p.row_scales[kb * p.row_scale_cols + r0 + t] = tp::divide_rn(1.0f, s);
    }
    if (col_tiles && t < cols) {
      const float s = tp::compute_scale_from_amax(tp::float_from_bits(sh->col_amax[t]), p.fp8_max, p.pow2, p.epsilon, p.value_for_inf);
      sh->col_scale[t] = s;
      p.col_scales[mb * p.col_scale_cols + c0 + t] = tp::divide_rn(1.0f, s);
    }
  }
}

// One block per 128 x 128 region of x (looped over grid.x), 32 x 8 threads.
// Pass one folds the amax of every tile that meets the region: each thread
// owns columns tx + 32s (s < 4) and rows ty + 8r, keeps its maxima in
// registers, reduces a row across its warp (one warp per row: no atomics)
// and a column across the 8 warps (8 shared atomics). 2D tiles fold it all
// into one value. Pass two casts, staging columnwise codes in shared memory
// so both outputs are written along their rows.
__global__ void fp8_block_kernel(Fp8Block p) {
  __shared__ RegionShared sh;
  const bool row_tiles = !p.two_d && p.row_data, col_tiles = !p.two_d && p.col_data;
  const int tid = threadIdx.y * 32 + threadIdx.x;
  const int64_t tiles_k = (p.k + 127) / 128, tiles = ((p.m + 127) / 128) * tiles_k;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t r0 = (tile / tiles_k) * 128, c0 = (tile % tiles_k) * 128;
    const int rows = static_cast<int>(p.m - r0 < 128 ? p.m - r0 : 128), cols = static_cast<int>(p.k - c0 < 128 ? p.k - c0 : 128);
    for (int t = tid; t < 128; t += 256) sh.row_amax[t] = sh.col_amax[t] = 0u;
    __syncthreads();
    float col_max[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float region_max = 0.0f;
    for (int dr = threadIdx.y; dr < rows; dr += 8) {  // the same trip count for a whole warp
      float row_max = 0.0f;
      for (int s = 0; s < 4; ++s) {
        const int dc = threadIdx.x + 32 * s;
        if (dc >= cols) continue;
        const float a = tp::fmax_ignoring_nan(0.0f, tp::abs_bits(load_element(p.x, p.dtype, (r0 + dr) * p.k + c0 + dc)));
        row_max = tp::fmax_ignoring_nan(row_max, a);
        col_max[s] = tp::fmax_ignoring_nan(col_max[s], a);
      }
      region_max = tp::fmax_ignoring_nan(region_max, row_max);
      if (row_tiles) {
        row_max = warp_max(row_max, 0xffffffffu, 32);
        if (threadIdx.x == 0) sh.row_amax[dr] = tp::float_bits(row_max);
      }
    }
    if (p.two_d) {
      region_max = warp_max(region_max, 0xffffffffu, 32);
      if (threadIdx.x == 0) atomicMax(&sh.row_amax[0], tp::float_bits(region_max));
    }
    if (col_tiles) {
      for (int s = 0; s < 4; ++s) {
        if (threadIdx.x + 32 * s < cols) atomicMax(&sh.col_amax[threadIdx.x + 32 * s], tp::float_bits(col_max[s]));
      }
    }
    __syncthreads();
    region_scales(p, &sh, tid, r0, c0, rows, cols);
    __syncthreads();
    for (int dr = threadIdx.y; dr < rows; dr += 8) {
      for (int dc = threadIdx.x; dc < cols; dc += 32) {
        const float v = load_element(p.x, p.dtype, (r0 + dr) * p.k + c0 + dc);
        if (p.row_data) p.row_data[(r0 + dr) * p.k + c0 + dc] = tp::encode_fp8(p.e5m2, v * sh.row_scale[p.two_d ? 0 : dr]);
        if (p.col_data) sh.staged[dc][dr] = tp::encode_fp8(p.e5m2, v * sh.col_scale[p.two_d ? 0 : dc]);
      }
    }
    if (p.col_data) {
      __syncthreads();
      for (int dc = threadIdx.y; dc < cols; dc += 8) {
        for (int dr = threadIdx.x; dr < rows; dr += 32) p.col_data[(c0 + dc) * p.m + r0 + dr] = sh.staged[dc][dr];
      }
    }
    __syncthreads();  // the next region reuses shared memory
  }
}

// As fp8_block_kernel, eight elements per thread: 256 threads, 16 per row of
// the region, each on eight neighbouring columns (16-byte loads, 8-byte
// stores of row codes and of staged column codes). A row's amax folds across
// its 16 lanes; a column's across the two rows of a warp, then the warps
// (shared atomics). Needs x at 16 bytes, m % 8 == 0 and k % 8 == 0 (regions
// cut at whole words) and the data at 8 (the launcher checks).
__global__ void fp8_block_vector_kernel(Fp8Block p) {
  __shared__ RegionShared sh;
  const bool row_tiles = !p.two_d && p.row_data, col_tiles = !p.two_d && p.col_data;
  const int tid = threadIdx.x, lane_row = tid / 16, lane_word = (tid % 16) * kVector;
  const int64_t tiles_k = (p.k + 127) / 128, tiles = ((p.m + 127) / 128) * tiles_k;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t r0 = (tile / tiles_k) * 128, c0 = (tile % tiles_k) * 128;
    const int rows = static_cast<int>(p.m - r0 < 128 ? p.m - r0 : 128), cols = static_cast<int>(p.k - c0 < 128 ? p.k - c0 : 128);
    const bool lane_in = lane_word < cols;
    for (int t = tid; t < 128; t += 256) sh.row_amax[t] = sh.col_amax[t] = 0u;
    __syncthreads();
    float col_max[kVector] = {};
    float region_max = 0.0f;
    for (int dr = lane_row; dr < rows; dr += 16) {  // rows is even: both rows of a warp take the same trips
      float v[kVector] = {};
      if (lane_in) load_vector(p.x, p.dtype, (r0 + dr) * p.k + c0 + lane_word, v);
      float row_max = 0.0f;
      for (int q = 0; q < kVector; ++q) {
        const float a = tp::fmax_ignoring_nan(0.0f, tp::abs_bits(v[q]));
        row_max = tp::fmax_ignoring_nan(row_max, a);
        col_max[q] = tp::fmax_ignoring_nan(col_max[q], a);
      }
      region_max = tp::fmax_ignoring_nan(region_max, row_max);
      if (row_tiles) {
        row_max = warp_max(row_max, 0xffffffffu, 16);
        if (lane_word == 0) sh.row_amax[dr] = tp::float_bits(row_max);
      }
    }
    if (p.two_d) {
      region_max = warp_max(region_max, 0xffffffffu, 32);
      if (tid % 32 == 0) atomicMax(&sh.row_amax[0], tp::float_bits(region_max));
    }
    if (col_tiles) {
      for (int q = 0; q < kVector; ++q) {
        col_max[q] = tp::fmax_ignoring_nan(col_max[q], __shfl_xor_sync(0xffffffffu, col_max[q], 16));
        if (tid % 32 < 16 && lane_in) atomicMax(&sh.col_amax[lane_word + q], tp::float_bits(col_max[q]));
      }
    }
    __syncthreads();
    region_scales(p, &sh, tid, r0, c0, rows, cols);
    __syncthreads();
    for (int dr = lane_row; dr < rows && lane_in; dr += 16) {
      float v[kVector];
      load_vector(p.x, p.dtype, (r0 + dr) * p.k + c0 + lane_word, v);
      if (p.row_data) {
        uint8_t codes[kVector];
        const float scale = sh.row_scale[p.two_d ? 0 : dr];
        for (int q = 0; q < kVector; ++q) codes[q] = tp::encode_fp8(p.e5m2, v[q] * scale);
        reinterpret_cast<uint2*>(p.row_data + (r0 + dr) * p.k + c0 + lane_word)[0] = pack_codes(codes);
      }
      if (p.col_data) {
        for (int q = 0; q < kVector; ++q) sh.staged[lane_word + q][dr] = tp::encode_fp8(p.e5m2, v[q] * sh.col_scale[p.two_d ? 0 : lane_word + q]);
      }
    }
    if (p.col_data) {
      __syncthreads();
      for (int dc = lane_row; dc < cols; dc += 16) {
        if (lane_word >= rows) continue;
        uint8_t codes[kVector];
        for (int q = 0; q < kVector; ++q) codes[q] = sh.staged[dc][lane_word + q];
        reinterpret_cast<uint2*>(p.col_data + (c0 + dc) * p.m + r0 + lane_word)[0] = pack_codes(codes);
      }
    }
    __syncthreads();  // the next region reuses shared memory
  }
}

// ---- dequantize ----------------------------------------------------------------

struct Dequant {
  int recipe;
  bool rowwise, e5m2, swizzled, row_scaled, two_d;
  int64_t m, k;
  const uint8_t* data;
  const uint8_t* scales;  // E8M0 / E4M3 bytes, or fp32 values (per-tensor, block)
  const float* amax;      // NVFP4
  int64_t scale_rows, scale_cols;
  void* x;
  int dtype;
};

__device__ __forceinline__ float scale_f32(const uint8_t* scales, int64_t index) {
  return reinterpret_cast<const float*>(scales)[index];
}

// Logical element (i, j) of x from its code (an FP8 byte, or an E2M1 nibble
// for NVFP4) and its scale, as the reference's loops compute it.
__device__ __forceinline__ float dequantize_at(const Dequant& p, int64_t i, int64_t j, uint8_t code) {
  switch (static_cast<Recipe>(p.recipe)) {
    case Recipe::kFp8Delayed:
    case Recipe::kFp8Current:
      return tp::decode_fp8(p.e5m2, code) * scale_f32(p.scales, 0);
    case Recipe::kMxfp8: {
      const int64_t s = p.rowwise ? scale_index(p.swizzled, i, j / 32, p.scale_cols)
                                  : (p.swizzled ? tp::swizzled_scale_index(j, i / 32, p.scale_rows) : (i / 32) * p.scale_cols + j);
      return tp::decode_fp8(p.e5m2, code) * tp::e8m0_to_float(p.scales[s]);
    }
    case Recipe::kNvfp4: {
      const int64_t s = scale_index(p.swizzled, i, j / 16, p.scale_cols);
      return tp::e2m1_to_float(code) * tp::nvfp4_dequant_scale(p.scales[s], p.row_scaled ? p.amax[i] : p.amax[0]);
    }
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D: {
      const int64_t s = p.two_d ? (i / 128) * p.scale_cols + j / 128 : (j / 128) * p.scale_cols + i;
      return tp::decode_fp8(p.e5m2, code) * scale_f32(p.scales, s);
    }
    default:
      return 0.0f;
  }
}

// Code of element `at` in data kept in the logical layout.
__device__ __forceinline__ uint8_t code_at(const Dequant& p, int64_t at) {
  if (p.recipe != static_cast<int>(Recipe::kNvfp4)) return p.data[at];
  const uint8_t byte = p.data[at / 2];
  return (at % 2 == 0) ? (byte & 0xF) : (byte >> 4);
}

// Rowwise data and MXFP8 (both usages keep the logical layout): one thread
// per logical element (i, j), as the reference's loops; reads and writes are
// both along rows of x. Elements from `first` on (the vector kernel's tail).
__global__ void dequantize_kernel(Dequant p, int64_t first) {
  const int64_t n = p.m * p.k - first;
  TPC_GRID_STRIDE(r, n) {
    const int64_t at = first + r;
    store_element(p.x, p.dtype, at, dequantize_at(p, at / p.k, at % p.k, code_at(p, at)));
  }
}

// As dequantize_kernel, eight elements per thread: one 8-byte load of FP8
// codes (4 bytes for NVFP4) and one 16-byte store of x (two for fp32). x at
// 16 bytes and the data at 8 (4) (the launcher checks); the last n % 8
// elements go to dequantize_kernel.
__global__ void dequantize_vector_kernel(Dequant p) {
  const int64_t vectors = p.m * p.k / kVector;
  const bool fp4 = p.recipe == static_cast<int>(Recipe::kNvfp4);
  TPC_GRID_STRIDE(g, vectors) {
    uint8_t codes[kVector];
    if (fp4) {
      const uint32_t word = reinterpret_cast<const uint32_t*>(p.data)[g];
      for (int t = 0; t < kVector; ++t) codes[t] = (word >> (4 * t)) & 0xF;  // element 2q low nibble, 2q+1 high
    } else {
      unpack_codes(reinterpret_cast<const uint2*>(p.data)[g], codes);
    }
    // One 64-bit division per eight elements (they wrap to the next row only when k < 8 or k % 8 != 0).
    int64_t i = g * kVector / p.k, j = g * kVector % p.k;
    float v[kVector];
    for (int t = 0; t < kVector; ++t, ++j) {
      while (j >= p.k) j -= p.k, ++i;
      v[t] = dequantize_at(p, i, j, codes[t]);
    }
    store_vector(p.x, p.dtype, g * kVector, v);
  }
}

// Scale of logical element (i, j) when its FP8 codes are kept as x^T: the
// per-tensor scale, or block FP8's columnwise one (1D: one scale per 128
// elements down a column of x, scale_cols of them per block row; 2D: the
// 128 x 128 grid, transposed). Both transposed kernels read it here.
__device__ __forceinline__ float transposed_fp8_scale(const Dequant& p, int64_t i, int64_t j) {
  const bool block = p.recipe == static_cast<int>(Recipe::kFp8Block1D) || p.recipe == static_cast<int>(Recipe::kFp8Block2D);
  const int64_t s = !block ? 0 : p.two_d ? (j / 128) * p.scale_cols + i / 128 : (i / 128) * p.scale_cols + j;
  return scale_f32(p.scales, s);
}

// Transposed FP8 data (per-tensor `_transpose`, block-FP8 columnwise): the
// k x m codes of x^T. One block per 32 x 32 tile of x (looped over grid.x),
// 32 x 8 threads. Pass one reads rows of x^T (consecutive threads, consecutive
// bytes), decodes and scales as the reference does element (i, j) and parks
// the value in shared memory; pass two writes rows of x.
__global__ void dequantize_fp8_transposed_kernel(Dequant p) {
  __shared__ float tile[32][33];  // tile[j - c0][i - r0]
  const int64_t tiles_k = (p.k + 31) / 32, tiles = ((p.m + 31) / 32) * tiles_k;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t r0 = (t / tiles_k) * 32, c0 = (t % tiles_k) * 32;
    for (int dy = threadIdx.y; dy < 32; dy += 8) {
      const int64_t j = c0 + dy, i = r0 + threadIdx.x;
      if (i < p.m && j < p.k) {
        tile[dy][threadIdx.x] = tp::decode_fp8(p.e5m2, p.data[j * p.m + i]) * transposed_fp8_scale(p, i, j);
      }
    }
    __syncthreads();
    for (int dx = threadIdx.y; dx < 32; dx += 8) {
      const int64_t i = r0 + dx, j = c0 + threadIdx.x;
      if (i < p.m && j < p.k) store_element(p.x, p.dtype, i * p.k + j, tile[threadIdx.x][dx]);
    }
    __syncthreads();  // the next tile reuses `tile`
  }
}

// As dequantize_fp8_transposed_kernel, eight elements per thread, on 64 x 64
// tiles of x with 256 threads: pass one reads 8-byte words of codes along
// rows of x^T, pass two writes x along its rows as 16-byte vectors. Needs x
// at 16 bytes, the codes at 8, m % 8 == 0 and k % 8 == 0 (the launcher checks).
__global__ void dequantize_fp8_transposed_vector_kernel(Dequant p) {
  __shared__ float tile[64][65];  // tile[j - c0][i - r0]
  const int64_t tiles_k = (p.k + 63) / 64, tiles = ((p.m + 63) / 64) * tiles_k;
  const int lane_row = threadIdx.x / 8, lane_word = (threadIdx.x % 8) * kVector;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t r0 = (t / tiles_k) * 64, c0 = (t % tiles_k) * 64;
    for (int dx = lane_row; dx < 64; dx += 32) {
      const int64_t j = c0 + dx, i0 = r0 + lane_word;
      if (j < p.k && i0 < p.m) {
        uint8_t codes[kVector];
        unpack_codes(reinterpret_cast<const uint2*>(p.data + j * p.m + i0)[0], codes);
        for (int q = 0; q < kVector; ++q) {
          const int64_t i = i0 + q;
          tile[dx][lane_word + q] = tp::decode_fp8(p.e5m2, codes[q]) * transposed_fp8_scale(p, i, j);
        }
      }
    }
    __syncthreads();
    for (int dy = lane_row; dy < 64; dy += 32) {
      const int64_t i = r0 + dy, j0 = c0 + lane_word;
      if (i < p.m && j0 < p.k) {
        float v[kVector];
        for (int q = 0; q < kVector; ++q) v[q] = tile[lane_word + q][dy];
        store_vector(p.x, p.dtype, i * p.k + j0, v);
      }
    }
    __syncthreads();  // the next tile reuses `tile`
  }
}

// Columnwise NVFP4 without the Hadamard transform: y = x^T (k x m, two codes
// per byte, m % 16 == 0) quantized along its rows. One block per 64 x 64 tile
// of x (looped over grid.x), 32 x 8 threads. Pass one: each thread reads one
// byte of a row of y (consecutive threads, consecutive bytes) and decodes its
// two elements (i and i + 1, same 16-block) as the reference; pass two writes
// rows of x.
__global__ void dequantize_nvfp4_columnwise_kernel(Dequant p) {
  __shared__ float tile[64][65];  // tile[j - c0][i - r0]
  const int64_t tiles_k = (p.k + 63) / 64, tiles = ((p.m + 63) / 64) * tiles_k;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t r0 = (t / tiles_k) * 64, c0 = (t % tiles_k) * 64;
    for (int dy = threadIdx.y; dy < 64; dy += 8) {
      const int64_t j = c0 + dy, i = r0 + 2 * threadIdx.x;  // i even, so i + 1 < m too (m % 16 == 0)
      if (i < p.m && j < p.k) {
        const uint8_t byte = p.data[(j * p.m + i) / 2];
        const int64_t s = scale_index(p.swizzled, j, i / 16, p.scale_cols);
        const float scale = tp::nvfp4_dequant_scale(p.scales[s], p.row_scaled ? p.amax[j] : p.amax[0]);
        tile[dy][2 * threadIdx.x] = tp::e2m1_to_float(byte & 0xF) * scale;
        tile[dy][2 * threadIdx.x + 1] = tp::e2m1_to_float(byte >> 4) * scale;
      }
    }
    __syncthreads();
    for (int dx = threadIdx.y; dx < 64; dx += 8) {
      for (int h = 0; h < 64; h += 32) {
        const int64_t i = r0 + dx, j = c0 + h + threadIdx.x;
        if (i < p.m && j < p.k) store_element(p.x, p.dtype, i * p.k + j, tile[h + threadIdx.x][dx]);
      }
    }
    __syncthreads();  // the next tile reuses `tile`
  }
}

// Columnwise NVFP4 with the Hadamard transform: per (column j of x, 16-row
// chunk), decode 16 values of y = x^T, undo the transform with the
// transposed matrix (no bf16 rounding, as the reference) and store them.
// The mirror of nvfp4_columnwise_kernel: one block per tile of 32 rows j of y
// by 8 chunks (looped over grid.x), 32 x 8 threads. The block first reads the
// tile's packed codes along rows of y (8 threads per 64 contiguous bytes) into
// shared memory; then thread (tx, ty) takes row j0 + tx, chunk ch0 + ty, so a
// warp writes 32 neighbouring columns of x.
__global__ void dequantize_nvfp4_hadamard_kernel(Dequant p, bool no_signs) {
  __shared__ uint2 staged[32][9];  // staged[row j - j0][chunk - ch0]: 16 codes (padded: fewer bank conflicts)
  const int64_t chunks = p.m / 16;
  const int64_t tiles_j = (p.k + 31) / 32, tiles = ((chunks + 7) / 8) * tiles_j;
  const int tid = threadIdx.y * 32 + threadIdx.x;
  const bool aligned = reinterpret_cast<uintptr_t>(p.data) % 8 == 0;  // row starts are (m / 2)-byte multiples of 8
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t j0 = (t % tiles_j) * 32, ch0 = (t / tiles_j) * 8;
    const int64_t row = j0 + tid / 8, in_chunk = ch0 + tid % 8;
    if (row < p.k && in_chunk < chunks) {
      const uint8_t* in = p.data + (row * p.m + in_chunk * 16) / 2;
      uint2 word;
      if (aligned) {
        word = *reinterpret_cast<const uint2*>(in);
      } else {
        uint8_t bytes[8];
        for (int b = 0; b < 8; ++b) bytes[b] = in[b];
        memcpy(&word, bytes, 8);
      }
      staged[tid / 8][tid % 8] = word;
    }
    __syncthreads();
    const int64_t j = j0 + threadIdx.x, chunk = ch0 + threadIdx.y;
    if (j < p.k && chunk < chunks) {
      const int64_t s = scale_index(p.swizzled, j, chunk, p.scale_cols);
      const float scale = tp::nvfp4_dequant_scale(p.scales[s], p.amax[0]);
      const uint2 word = staged[threadIdx.x][threadIdx.y];
      uint8_t bytes[8];
      memcpy(bytes, &word, 8);
      float y[16], x[16];
      // Element e = j * m + chunk * 16 + e' of y: even e (low nibble) iff even e', as m % 16 == 0.
      for (int e = 0; e < 16; ++e) y[e] = tp::e2m1_to_float((e % 2 == 0) ? (bytes[e / 2] & 0xF) : (bytes[e / 2] >> 4)) * scale;
      tp::nvfp4_hadamard16(y, x, true, no_signs, false);
      for (int e = 0; e < 16; ++e) store_element(p.x, p.dtype, (chunk * 16 + e) * p.k + j, x[e]);
    }
    __syncthreads();  // the next tile reuses `staged`
  }
}

// ---- host side -----------------------------------------------------------------

struct NamedBuffers {
  std::vector<tp::BufferSpec> specs;
  std::vector<uint8_t*> pointers;
  uint8_t* get(const char* name) const {
    for (size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].name == name) return pointers[i];
    }
    return nullptr;
  }
};

tp::Status name_buffers(const tp::TensorSpec& spec, const std::vector<uint8_t*>& pointers, NamedBuffers* out) {
  TP_RETURN_IF_ERROR(tp::tensor_spec_buffers(spec, &out->specs));
  if (out->specs.size() != pointers.size()) {
    return tp::Status::invalid("the recipe has " + std::to_string(out->specs.size()) + " buffers, " +
                               std::to_string(pointers.size()) + " given");
  }
  for (size_t i = 0; i < pointers.size(); ++i) {
    const bool scalar_buffer = out->specs[i].role != tp::BufferRole::kData;
    if (scalar_buffer && reinterpret_cast<uintptr_t>(pointers[i]) % 4 != 0) {
      return tp::Status::invalid("buffer " + out->specs[i].name + " is not 4-byte aligned on the device");
    }
  }
  out->pointers = pointers;
  return tp::Status::ok();
}

float max_finite_of(DType dtype) {
  if (dtype == DType::kBFloat16) return tp::kBF16Max;
  if (dtype == DType::kFloat16) return tp::kFP16Max;
  return tp::kFloatMax;
}

// Blocks for a kernel that loops over the tiles of an m x k matrix on grid.x.
unsigned tile_blocks(int64_t m, int64_t k, int64_t tile_m, int64_t tile_k) {
  const int64_t tiles = ((m + tile_m - 1) / tile_m) * ((k + tile_k - 1) / tile_k);
  return static_cast<unsigned>(tiles < 1 ? 1 : (tiles > (1 << 20) ? (1 << 20) : tiles));
}

unsigned tile_blocks(int64_t m, int64_t k, int64_t tile) { return tile_blocks(m, k, tile, tile); }

}  // namespace

tp::Status quantize_on_device(const tp::TensorSpec& spec, const tp::QuantizeParams& params, const void* x,
                              const std::vector<uint8_t*>& buffers, cudaStream_t stream) {
  NamedBuffers named;
  TP_RETURN_IF_ERROR(name_buffers(spec, buffers, &named));
  const int64_t m = tp::rows_of(spec.shape), k = tp::cols_of(spec.shape), n = m * k;
  const int dtype = static_cast<int>(spec.dtype);
  const tp::FormatOptions& o = spec.options;
  const bool e5m2 = o.fp8_dtype == DType::kFloat8E5M2;
  if (spec.recipe != Recipe::kNone && spec.dtype != DType::kFloat32 && spec.dtype != DType::kBFloat16 && spec.dtype != DType::kFloat16) {
    return tp::Status::invalid(std::string("input dtype = ") + tp::dtype_name(spec.dtype) + ": must be fp32, bf16 or fp16");
  }
  switch (spec.recipe) {
    case Recipe::kNone:
      TPC_CHECK(cudaMemcpyAsync(named.pointers[0], x, static_cast<size_t>(named.specs[0].bytes), cudaMemcpyDeviceToDevice, stream),
                "quantize (copy)");
      return tp::Status::ok();
    case Recipe::kFp8Delayed:
    case Recipe::kFp8Current: {
      float* scale_inv = reinterpret_cast<float*>(named.get("_scale_inv"));
      PerTensorCast p{x, dtype, m, k, e5m2, nullptr, tp::fp8_max_of(o.fp8_dtype), params.amax_epsilon, params.delayed_scale,
                      o.pow2_scales, named.get("_data"), named.get("_transpose")};
      if (spec.recipe == Recipe::kFp8Current) {
        TP_RETURN_IF_ERROR(tensor_amax(x, dtype, n, scale_inv, stream));  // parked in _scale_inv until the end
        p.amax = scale_inv;
      }
      const bool vectors = vector_aligned(x, 16) && vector_aligned(p.data, 8) && vector_aligned(p.transpose, 8);
      if (n > 0 && vectors && !p.transpose) {
        per_tensor_rowwise_kernel<<<grid_blocks(n / kVector + 1, 256), 256, 0, stream>>>(p);
      } else if (n > 0 && vectors && k % kVector == 0 && m % kVector == 0) {
        per_tensor_tile_vector_kernel<<<tile_blocks(m, k, 64), 256, 0, stream>>>(p);
      } else if (n > 0) {
        per_tensor_cast_kernel<<<tile_blocks(m, k, 32), dim3(32, 8), 0, stream>>>(p);
      }
      TP_RETURN_IF_ERROR(launch_status("per_tensor_cast_kernel"));
      per_tensor_scale_inv_kernel<<<1, 1, 0, stream>>>(p, scale_inv);
      return launch_status("per_tensor_scale_inv_kernel");
    }
    case Recipe::kMxfp8: {
      std::vector<int64_t> row_shape, col_shape;
      TP_RETURN_IF_ERROR(tp::scale_shape(spec.recipe, m, k, false, &row_shape));
      TP_RETURN_IF_ERROR(tp::scale_shape(spec.recipe, m, k, true, &col_shape));
      const float fp8_max = tp::fp8_max_of(o.fp8_dtype);
      if (spec.rowwise) {
        Mxfp8 p{x, dtype, m, k, e5m2, o.gemm_swizzled_scales, fp8_max, named.get("_rowwise_data"), named.get("_rowwise_scale_inv"),
                row_shape[0], row_shape[1]};
        TPC_CHECK(cudaMemsetAsync(p.scales, 0, static_cast<size_t>(row_shape[0] * row_shape[1]), stream), "quantize (clear)");  // padding is zero
        if (n > 0 && vector_aligned(x, 16) && vector_aligned(p.data, 8)) {
          mxfp8_rowwise_vector_kernel<<<grid_blocks(n / kVector, 256), 256, 0, stream>>>(p);
        } else if (n > 0) {
          mxfp8_rowwise_kernel<<<grid_blocks(n, 256), 256, 0, stream>>>(p);
        }
        TP_RETURN_IF_ERROR(launch_status("mxfp8_rowwise_kernel"));
      }
      if (spec.columnwise) {
        Mxfp8 p{x, dtype, m, k, e5m2, o.gemm_swizzled_scales, fp8_max, named.get("_columnwise_data"),
                named.get("_columnwise_scale_inv"), col_shape[0], col_shape[1]};
        TPC_CHECK(cudaMemsetAsync(p.scales, 0, static_cast<size_t>(col_shape[0] * col_shape[1]), stream), "quantize (clear)");
        if (n > 0) mxfp8_columnwise_kernel<<<grid_blocks((m / 32) * k, 256), 256, 0, stream>>>(p);
        TP_RETURN_IF_ERROR(launch_status("mxfp8_columnwise_kernel"));
      }
      return tp::Status::ok();
    }
    case Recipe::kNvfp4: {
      if (o.nvfp4_row_scaled && spec.columnwise) {
        return tp::Status::unsupported("nvfp4 row-scaled columnwise quantization is not in the reference (TE's columnwise "
                                       "amax layout for row-scaled tensors is unverified); use rowwise usage only");
      }
      if (spec.columnwise && o.nvfp4_hadamard && spec.dtype != DType::kBFloat16) {
        return tp::Status::invalid(std::string("nvfp4 Hadamard transform needs bf16 input, dtype is ") + tp::dtype_name(spec.dtype));
      }
      std::vector<int64_t> row_shape, col_shape;
      TP_RETURN_IF_ERROR(tp::scale_shape(spec.recipe, m, k, false, &row_shape));
      TP_RETURN_IF_ERROR(tp::scale_shape(spec.recipe, m, k, true, &col_shape));
      if (spec.rowwise) {
        float* amax = reinterpret_cast<float*>(named.get("_amax_rowwise"));
        if (o.nvfp4_row_scaled) {
          if (m > 0) row_amax_kernel<<<grid_blocks(m, 1) > 65535 ? 65535 : grid_blocks(m, 1), 256, 0, stream>>>(x, dtype, m, k, amax);
          TP_RETURN_IF_ERROR(launch_status("row_amax_kernel"));
        } else {
          TP_RETURN_IF_ERROR(tensor_amax(x, dtype, n, amax, stream));
        }
        Nvfp4 p{x, dtype, m, k, amax, o.nvfp4_row_scaled, o.gemm_swizzled_scales, false, false,
                named.get("_rowwise_data"), named.get("_rowwise_scale_inv"), row_shape[1]};
        TPC_CHECK(cudaMemsetAsync(p.scales, 0, static_cast<size_t>(row_shape[0] * row_shape[1]), stream), "quantize (clear)");
        if (n > 0 && vector_aligned(x, 16) && vector_aligned(p.data, 4)) {
          nvfp4_rowwise_vector_kernel<<<grid_blocks(n / kVector, 256), 256, 0, stream>>>(p);
        } else if (n > 0) {
          nvfp4_rowwise_kernel<<<grid_blocks(n, 256), 256, 0, stream>>>(p);
        }
        TP_RETURN_IF_ERROR(launch_status("nvfp4_rowwise_kernel"));
      }
      if (spec.columnwise) {
        float* amax = reinterpret_cast<float*>(named.get("_amax_columnwise"));
        Nvfp4 p{x, dtype, k, m, amax, false, o.gemm_swizzled_scales, o.nvfp4_hadamard, o.nvfp4_hadamard_no_signs,
                named.get("_columnwise_data"), named.get("_columnwise_scale_inv"), col_shape[1]};
        TPC_CHECK(cudaMemsetAsync(amax, 0, sizeof(float), stream), "quantize (clear)");
        TPC_CHECK(cudaMemsetAsync(p.scales, 0, static_cast<size_t>(col_shape[0] * col_shape[1]), stream), "quantize (clear)");
        if (n > 0) {
          const unsigned blocks = tile_blocks(m, k, 128, 32);  // 128 rows (8 chunks) x 32 columns of x
          nvfp4_columnwise_kernel<<<blocks, dim3(32, 8), 0, stream>>>(p, true, amax);
          nvfp4_columnwise_kernel<<<blocks, dim3(32, 8), 0, stream>>>(p, false, amax);
        }
        TP_RETURN_IF_ERROR(launch_status("nvfp4_columnwise_kernel"));
      }
      return tp::Status::ok();
    }
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D: {
      std::vector<int64_t> row_shape, col_shape;
      TP_RETURN_IF_ERROR(tp::scale_shape(spec.recipe, m, k, false, &row_shape));
      TP_RETURN_IF_ERROR(tp::scale_shape(spec.recipe, m, k, true, &col_shape));
      Fp8Block p{x, dtype, m, k, spec.recipe == Recipe::kFp8Block2D, e5m2, o.pow2_scales, tp::fp8_max_of(o.fp8_dtype),
                 params.amax_epsilon, max_finite_of(spec.dtype), nullptr, nullptr, row_shape[1], nullptr, nullptr, col_shape[1]};
      if (spec.rowwise) {
        p.row_data = named.get("_rowwise_data");
        p.row_scales = reinterpret_cast<float*>(named.get("_rowwise_scale_inv"));
        TPC_CHECK(cudaMemsetAsync(p.row_scales, 0, static_cast<size_t>(row_shape[0] * row_shape[1] * 4), stream), "quantize (clear)");
      }
      if (spec.columnwise) {
        p.col_data = named.get("_columnwise_data");
        p.col_scales = reinterpret_cast<float*>(named.get("_columnwise_scale_inv"));
        TPC_CHECK(cudaMemsetAsync(p.col_scales, 0, static_cast<size_t>(col_shape[0] * col_shape[1] * 4), stream), "quantize (clear)");
      }
      if (n > 0 && vector_aligned(x, 16) && vector_aligned(p.row_data, 8) && vector_aligned(p.col_data, 8) && m % kVector == 0 &&
          k % kVector == 0) {
        fp8_block_vector_kernel<<<tile_blocks(m, k, 128), 256, 0, stream>>>(p);
      } else if (n > 0) {
        fp8_block_kernel<<<tile_blocks(m, k, 128), dim3(32, 8), 0, stream>>>(p);
      }
      return launch_status("fp8_block_kernel");
    }
  }
  return tp::Status::invalid("quantize: unknown recipe " + std::to_string(static_cast<int>(spec.recipe)));
}

tp::Status dequantize_on_device(const tp::TensorSpec& spec, const std::vector<const uint8_t*>& buffers, void* x,
                                cudaStream_t stream) {
  NamedBuffers named;
  std::vector<uint8_t*> pointers;
  for (const uint8_t* b : buffers) pointers.push_back(const_cast<uint8_t*>(b));  // read only below
  TP_RETURN_IF_ERROR(name_buffers(spec, pointers, &named));
  const int64_t m = tp::rows_of(spec.shape), k = tp::cols_of(spec.shape), n = m * k;
  const tp::FormatOptions& o = spec.options;
  if (spec.recipe == Recipe::kNone) {
    TPC_CHECK(cudaMemcpyAsync(x, buffers[0], static_cast<size_t>(named.specs[0].bytes), cudaMemcpyDeviceToDevice, stream),
              "dequantize (copy)");
    return tp::Status::ok();
  }
  if (spec.dtype != DType::kFloat32 && spec.dtype != DType::kBFloat16 && spec.dtype != DType::kFloat16) {
    return tp::Status::invalid(std::string("output dtype = ") + tp::dtype_name(spec.dtype) + ": must be fp32, bf16 or fp16");
  }
  const bool row = spec.rowwise;
  Dequant p{static_cast<int>(spec.recipe), row, o.fp8_dtype == DType::kFloat8E5M2, o.gemm_swizzled_scales,
            o.nvfp4_row_scaled, spec.recipe == Recipe::kFp8Block2D, m, k, nullptr, nullptr, nullptr, 0, 0, x,
            static_cast<int>(spec.dtype)};
  if (spec.recipe == Recipe::kFp8Delayed || spec.recipe == Recipe::kFp8Current) {
    p.data = named.get("_data");
    p.rowwise = p.data != nullptr;
    if (!p.data) p.data = named.get("_transpose");
    if (!p.data) return tp::Status::invalid("dequantize: the spec has no data buffer (no usage)");
    p.scales = named.get("_scale_inv");
  } else {
    if (!row && !spec.columnwise) return tp::Status::invalid("dequantize: the spec has no data buffer (no usage)");
    std::vector<int64_t> shape;
    TP_RETURN_IF_ERROR(tp::scale_shape(spec.recipe, m, k, !row, &shape));
    p.scale_rows = shape[0];
    p.scale_cols = shape[1];
    p.data = named.get(row ? "_rowwise_data" : "_columnwise_data");
    p.scales = named.get(row ? "_rowwise_scale_inv" : "_columnwise_scale_inv");
    if (spec.recipe == Recipe::kNvfp4) {
      const char* amax_name = row ? "_amax_rowwise" : "_amax_columnwise";
      p.amax = reinterpret_cast<const float*>(named.get(amax_name));
      // As the reference: one amax per row when the buffer holds more than one.
      for (size_t i = 0; i < named.specs.size(); ++i) {
        if (named.specs[i].name == amax_name) p.row_scaled = named.specs[i].bytes / 4 != 1;
      }
    }
  }
  if (n == 0) return tp::Status::ok();
  if (spec.recipe == Recipe::kNvfp4 && !row && o.nvfp4_hadamard) {
    dequantize_nvfp4_hadamard_kernel<<<tile_blocks(m, k, 128, 32), dim3(32, 8), 0, stream>>>(p, o.nvfp4_hadamard_no_signs);
    return launch_status("dequantize_nvfp4_hadamard_kernel");
  }
  if (spec.recipe == Recipe::kNvfp4 && !row) {
    dequantize_nvfp4_columnwise_kernel<<<tile_blocks(m, k, 64), dim3(32, 8), 0, stream>>>(p);
    return launch_status("dequantize_nvfp4_columnwise_kernel");
  }
  if (!p.rowwise && spec.recipe != Recipe::kMxfp8) {  // per-tensor _transpose, block-FP8 columnwise
    if (vector_aligned(x, 16) && vector_aligned(p.data, 8) && m % kVector == 0 && k % kVector == 0) {
      dequantize_fp8_transposed_vector_kernel<<<tile_blocks(m, k, 64), 256, 0, stream>>>(p);
      return launch_status("dequantize_fp8_transposed_vector_kernel");
    }
    dequantize_fp8_transposed_kernel<<<tile_blocks(m, k, 32), dim3(32, 8), 0, stream>>>(p);
    return launch_status("dequantize_fp8_transposed_kernel");
  }
  int64_t first = 0;  // elements before it go to the vector kernel
  if (vector_aligned(x, 16) && vector_aligned(p.data, spec.recipe == Recipe::kNvfp4 ? 4 : 8) && n >= kVector) {
    dequantize_vector_kernel<<<grid_blocks(n / kVector, 256), 256, 0, stream>>>(p);
    TP_RETURN_IF_ERROR(launch_status("dequantize_vector_kernel"));
    first = n / kVector * kVector;
  }
  if (first < n) dequantize_kernel<<<grid_blocks(n - first, 256), 256, 0, stream>>>(p, first);
  return launch_status("dequantize_kernel");
}

}  // namespace tpc
