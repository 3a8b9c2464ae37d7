#include "tensorplan/quantize.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>

#include "tensorplan/numeric_formats.h"
#include "tensorplan/scale_swizzle.h"

namespace tp {

namespace {

int64_t ceildiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

void put_f32(std::vector<uint8_t>* bytes, int64_t index, float value) {
  std::memcpy(bytes->data() + index * 4, &value, 4);
}

float get_f32(const std::vector<uint8_t>& bytes, int64_t index) {
  float value;
  std::memcpy(&value, bytes.data() + index * 4, 4);
  return value;
}

uint8_t encode_fp8(DType format, float value) { return tp::encode_fp8(format == DType::kFloat8E5M2, value); }

float decode_fp8(DType format, uint8_t code) { return tp::decode_fp8(format == DType::kFloat8E5M2, code); }

// max |x| over `count` values `stride` apart; NaN is skipped like fmaxf does.
float amax_of(const float* x, int64_t count, int64_t stride) {
  float amax = 0.0f;
  for (int64_t i = 0; i < count; ++i) amax = fmax_ignoring_nan(amax, std::fabs(x[i * stride]));
  return amax;
}

float max_finite_of(DType dtype) {
  if (dtype == DType::kBFloat16) return kBF16Max;
  if (dtype == DType::kFloat16) return kFP16Max;
  return FLT_MAX;
}

// Row-major transpose of an m x k matrix, in 32 x 32 tiles so that both
// sides stay in cache (a plain loop misses on every store at 4096 x 4096).
template <typename T>
void transpose_into(const T* x, int64_t m, int64_t k, T* t) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < m; i0 += kTile) {
    for (int64_t j0 = 0; j0 < k; j0 += kTile) {
      const int64_t i_end = std::min(m, i0 + kTile), j_end = std::min(k, j0 + kTile);
      for (int64_t i = i0; i < i_end; ++i) {
        for (int64_t j = j0; j < j_end; ++j) t[j * m + i] = x[i * k + j];
      }
    }
  }
}

std::vector<float> transpose(const std::vector<float>& x, int64_t m, int64_t k) {
  std::vector<float> t(static_cast<size_t>(m * k));
  transpose_into(x.data(), m, k, t.data());
  return t;
}

// Right-multiplies every 16-element chunk of every row of a `rows` x `cols`
// matrix by the NVFP4 Hadamard matrix (its transpose when `transpose_matrix`).
void apply_hadamard(std::vector<float>* y, int64_t rows, int64_t cols, bool no_signs, bool transpose_matrix,
                    bool round_to_bf16) {
  float chunk[16];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c0 = 0; c0 + 16 <= cols; c0 += 16) {
      float* v = y->data() + r * cols + c0;
      nvfp4_hadamard16(v, chunk, transpose_matrix, no_signs, round_to_bf16);
      std::memcpy(v, chunk, sizeof chunk);
    }
  }
}

// ---- per-tensor FP8 (§4.3, §4.4) -------------------------------------------

struct Fp8PerTensor {
  std::vector<uint8_t> data, transpose_bytes, scale_inv;
  float amax = 0;
};

void quantize_fp8_per_tensor(const TensorSpec& spec, const std::vector<float>& x, int64_t m, int64_t k,
                             const QuantizeParams& params, bool want_data, bool want_transpose, Fp8PerTensor* out) {
  const DType format = spec.options.fp8_dtype;
  out->amax = amax_of(x.data(), static_cast<int64_t>(x.size()), 1);
  float scale = params.delayed_scale;
  if (spec.recipe == Recipe::kFp8Current) {
    scale = compute_scale_from_amax(out->amax, fp8_max_of(format), spec.options.pow2_scales, params.amax_epsilon, FLT_MAX);
  }
  std::vector<uint8_t> q(x.size());
  for (size_t i = 0; i < x.size(); ++i) q[i] = encode_fp8(format, x[i] * scale);
  if (want_transpose) {
    out->transpose_bytes.resize(q.size());
    transpose_into(q.data(), m, k, out->transpose_bytes.data());
  }
  if (want_data) out->data = std::move(q);
  out->scale_inv.resize(4);
  put_f32(&out->scale_inv, 0, canonical_nan(divide_rn(1.0f, scale)));
}

// ---- MXFP8 (§4.5) ------------------------------------------------------------

// Quantizes blocks of 32 along a line: `lines` lines of `len` elements; the
// element (line, e) sits at x[line * line_stride + e * elem_stride]. Codes go
// to the same positions of `q`; the E8M0 of block b of line l goes to
// scales[l * scale_line_stride + b * scale_block_stride].
void mxfp8_blocks(const std::vector<float>& x, int64_t lines, int64_t len, int64_t line_stride, int64_t elem_stride,
                  DType format, std::vector<uint8_t>* q, std::vector<uint8_t>* scales, int64_t scale_line_stride,
                  int64_t scale_block_stride) {
  const float fp8_max = fp8_max_of(format);
  for (int64_t l = 0; l < lines; ++l) {
    for (int64_t b = 0; b < len / 32; ++b) {
      const int64_t first = l * line_stride + b * 32 * elem_stride;
      const float block_amax = amax_of(x.data() + first, 32, elem_stride);
      const uint8_t e = mxfp8_block_scale(block_amax, fp8_max);
      const float multiplier = e8m0_reciprocal(e);
      (*scales)[static_cast<size_t>(l * scale_line_stride + b * scale_block_stride)] = e;
      for (int64_t i = 0; i < 32; ++i) {
        const int64_t at = first + i * elem_stride;
        (*q)[static_cast<size_t>(at)] = encode_fp8(format, x[static_cast<size_t>(at)] * multiplier);
      }
    }
  }
}

// Columnwise MXFP8 of an m x k matrix: blocks of 32 rows of one column. Walks
// rows contiguously (all columns of a 32-row band at once) instead of striding
// down each column. Scale of (band b, column j) at scales[b * scale_stride + j].
void mxfp8_columns(const std::vector<float>& x, int64_t m, int64_t k, DType format, std::vector<uint8_t>* q,
                   std::vector<uint8_t>* scales, int64_t scale_stride) {
  const float fp8_max = fp8_max_of(format);
  std::vector<float> amax(static_cast<size_t>(k)), multiplier(static_cast<size_t>(k));
  for (int64_t b = 0; b < m / 32; ++b) {
    std::fill(amax.begin(), amax.end(), 0.0f);
    for (int64_t i = b * 32; i < b * 32 + 32; ++i) {
      const float* row = x.data() + i * k;
      for (int64_t j = 0; j < k; ++j) amax[static_cast<size_t>(j)] = fmax_ignoring_nan(amax[static_cast<size_t>(j)], std::fabs(row[j]));
    }
    for (int64_t j = 0; j < k; ++j) {
      const uint8_t e = mxfp8_block_scale(amax[static_cast<size_t>(j)], fp8_max);
      (*scales)[static_cast<size_t>(b * scale_stride + j)] = e;
      multiplier[static_cast<size_t>(j)] = e8m0_reciprocal(e);
    }
    for (int64_t i = b * 32; i < b * 32 + 32; ++i) {
      for (int64_t j = 0; j < k; ++j) {
        const size_t at = static_cast<size_t>(i * k + j);
        (*q)[at] = encode_fp8(format, x[at] * multiplier[static_cast<size_t>(j)]);
      }
    }
  }
}

// ---- NVFP4 (§4.6) ------------------------------------------------------------

// Quantizes a rows x cols matrix along its rows in blocks of 16, with one
// global amax per row (row_amax) or per matrix. Writes packed codes
// (rows x cols/2) and compact E4M3 scales with `scale_stride` per row.
void nvfp4_rows(const std::vector<float>& y, int64_t rows, int64_t cols, const std::vector<float>& global_amax,
                std::vector<uint8_t>* data, std::vector<uint8_t>* scales, int64_t scale_stride) {
  data->assign(static_cast<size_t>(rows * cols / 2), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const float s_enc = nvfp4_global_encode_scale(global_amax.size() == 1 ? global_amax[0] : global_amax[static_cast<size_t>(r)]);
    for (int64_t b = 0; b < cols / 16; ++b) {
      const float* block = y.data() + r * cols + b * 16;
      const float block_amax = amax_of(block, 16, 1);
      const Nvfp4BlockScale scale = nvfp4_block_scale(block_amax, s_enc);
      (*scales)[static_cast<size_t>(r * scale_stride + b)] = scale.code;
      const float multiplier = scale.multiplier;
      for (int i = 0; i < 16; i += 2) {
        const uint8_t lo = float_to_e2m1(block[i] * multiplier);
        const uint8_t hi = float_to_e2m1(block[i + 1] * multiplier);
        (*data)[static_cast<size_t>((r * cols + b * 16 + i) / 2)] = pack_e2m1_pair(lo, hi);
      }
    }
  }
}

void dequantize_nvfp4_rows(const std::vector<uint8_t>& data, const std::vector<uint8_t>& scales, int64_t scale_stride,
                           const std::vector<float>& global_amax, int64_t rows, int64_t cols, std::vector<float>* y) {
  y->assign(static_cast<size_t>(rows * cols), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const float amax = global_amax.size() == 1 ? global_amax[0] : global_amax[static_cast<size_t>(r)];
    for (int64_t b = 0; b < cols / 16; ++b) {
      const float final_scale = nvfp4_dequant_scale(scales[static_cast<size_t>(r * scale_stride + b)], amax);
      for (int i = 0; i < 16; ++i) {
        const int64_t at = r * cols + b * 16 + i;
        const uint8_t byte = data[static_cast<size_t>(at / 2)];
        const uint8_t code = (at % 2 == 0) ? (byte & 0xF) : (byte >> 4);
        (*y)[static_cast<size_t>(at)] = e2m1_to_float(code) * final_scale;
      }
    }
  }
}

// ---- FP8 block (§2.4) --------------------------------------------------------

struct BlockGrid {
  int64_t m, k, tile_m, tile_k;  // tile 1x128 (rowwise 1D), 128x1 (columnwise 1D), 128x128 (2D)
};

// Computes one fp32 scale per tile and the codes of every element.
void block_quantize(const std::vector<float>& x, const BlockGrid& grid, DType format, bool pow2, float epsilon,
                    float value_for_inf, std::vector<uint8_t>* q, std::vector<float>* tile_scale_inv) {
  const int64_t tiles_m = ceildiv(grid.m, grid.tile_m), tiles_k = ceildiv(grid.k, grid.tile_k);
  q->assign(x.size(), 0);
  tile_scale_inv->assign(static_cast<size_t>(tiles_m * tiles_k), 0.0f);
  for (int64_t tm = 0; tm < tiles_m; ++tm) {
    for (int64_t tk = 0; tk < tiles_k; ++tk) {
      const int64_t m_end = std::min(grid.m, (tm + 1) * grid.tile_m);
      const int64_t k_end = std::min(grid.k, (tk + 1) * grid.tile_k);
      float amax = 0.0f;
      for (int64_t i = tm * grid.tile_m; i < m_end; ++i) {
        amax = fmax_ignoring_nan(amax, amax_of(x.data() + i * grid.k + tk * grid.tile_k, k_end - tk * grid.tile_k, 1));
      }
      const float scale = compute_scale_from_amax(amax, fp8_max_of(format), pow2, epsilon, value_for_inf);
      (*tile_scale_inv)[static_cast<size_t>(tm * tiles_k + tk)] = 1.0f / scale;
      for (int64_t i = tm * grid.tile_m; i < m_end; ++i) {
        for (int64_t j = tk * grid.tile_k; j < k_end; ++j) {
          (*q)[static_cast<size_t>(i * grid.k + j)] = encode_fp8(format, x[static_cast<size_t>(i * grid.k + j)] * scale);
        }
      }
    }
  }
}

const std::vector<uint8_t>* find_bytes(const std::vector<BufferSpec>& specs, const std::vector<std::vector<uint8_t>>& bytes,
                                       const std::string& name) {
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name == name) return &bytes[i];
  }
  return nullptr;
}

}  // namespace

// ---- public helpers ---------------------------------------------------------

Status decode_input(DType dtype, const uint8_t* bytes, int64_t byte_count, int64_t numel, std::vector<float>* out) {
  const int64_t element = dtype == DType::kFloat32 ? 4 : 2;
  if (dtype != DType::kFloat32 && dtype != DType::kBFloat16 && dtype != DType::kFloat16) {
    return Status::invalid(std::string("input dtype = ") + dtype_name(dtype) + ": must be fp32, bf16 or fp16");
  }
  if (byte_count != numel * element) {
    return Status::invalid("input bytes = " + std::to_string(byte_count) + ": expected " + std::to_string(numel * element) +
                           " (" + std::to_string(numel) + " " + dtype_name(dtype) + " elements)");
  }
  if (numel > 0 && bytes == nullptr) return Status::invalid("input is NULL");
  out->resize(static_cast<size_t>(numel));
  for (int64_t i = 0; i < numel; ++i) {
    if (dtype == DType::kFloat32) {
      std::memcpy(&(*out)[static_cast<size_t>(i)], bytes + i * 4, 4);
    } else {
      uint16_t half;
      std::memcpy(&half, bytes + i * 2, 2);
      (*out)[static_cast<size_t>(i)] = dtype == DType::kBFloat16 ? bf16_to_float(half) : fp16_to_float(half);
    }
  }
  return Status::ok();
}

Status encode_output(DType dtype, const std::vector<float>& values, std::vector<uint8_t>* out) {
  if (dtype != DType::kFloat32 && dtype != DType::kBFloat16 && dtype != DType::kFloat16) {
    return Status::invalid(std::string("output dtype = ") + dtype_name(dtype) + ": must be fp32, bf16 or fp16");
  }
  const size_t element = dtype == DType::kFloat32 ? 4 : 2;
  out->resize(values.size() * element);
  for (size_t i = 0; i < values.size(); ++i) {
    const float value = canonical_nan(values[i]);
    if (dtype == DType::kFloat32) {
      std::memcpy(out->data() + i * 4, &value, 4);
    } else {
      const uint16_t half = dtype == DType::kBFloat16 ? float_to_bf16(value) : float_to_fp16(value);
      std::memcpy(out->data() + i * 2, &half, 2);
    }
  }
  return Status::ok();
}

std::vector<float> nvfp4_hadamard_matrix(bool no_signs) {
  std::vector<float> matrix(256);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) matrix[static_cast<size_t>(i * 16 + j)] = nvfp4_hadamard_entry(i, j, no_signs);
  }
  return matrix;
}

Status quantize(const TensorSpec& spec, const uint8_t* input, int64_t input_bytes, const QuantizeParams& params,
                QuantizeOutput* out) {
  QuantizeOutput result;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &result.buffers));
  const int64_t m = spec.shape.empty() ? 1 : leading_rows(spec.shape);
  const int64_t k = last_dim(spec.shape);
  std::vector<float> x;
  TP_RETURN_IF_ERROR(decode_input(spec.dtype, input, input_bytes, m * k, &x));
  const FormatOptions& options = spec.options;
  const DType format = options.fp8_dtype;
  // Bytes by buffer name, assembled in flatten order at the end.
  std::vector<std::pair<std::string, std::vector<uint8_t>>> named;

  switch (spec.recipe) {
    case Recipe::kNone: {
      named.emplace_back("data", std::vector<uint8_t>(input, input + input_bytes));
      break;
    }
    case Recipe::kFp8Delayed:
    case Recipe::kFp8Current: {
      Fp8PerTensor fp8;
      bool has_data = false, has_transpose = false;
      for (const BufferSpec& b : result.buffers) {
        if (b.name == "_data") has_data = true;
        if (b.name == "_transpose") has_transpose = true;
      }
      quantize_fp8_per_tensor(spec, x, m, k, params, has_data, has_transpose, &fp8);
      named.emplace_back("_data", std::move(fp8.data));
      named.emplace_back("_transpose", std::move(fp8.transpose_bytes));
      named.emplace_back("_scale_inv", std::move(fp8.scale_inv));
      result.amax = {fp8.amax};
      break;
    }
    case Recipe::kMxfp8: {
      std::vector<int64_t> row_shape, col_shape;
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, false, &row_shape));
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, true, &col_shape));
      if (spec.rowwise) {
        std::vector<uint8_t> q(x.size()), scales(static_cast<size_t>(row_shape[0] * row_shape[1]), 0);
        mxfp8_blocks(x, m, k, k, 1, format, &q, &scales, row_shape[1], 1);
        if (options.gemm_swizzled_scales) {
          std::vector<uint8_t> swizzled;
          TP_RETURN_IF_ERROR(swizzle_scales(scales.data(), row_shape[0], row_shape[1], false, m, k / 32, &swizzled));
          scales = std::move(swizzled);
        }
        named.emplace_back("_rowwise_data", std::move(q));
        named.emplace_back("_rowwise_scale_inv", std::move(scales));
      }
      if (spec.columnwise) {
        // Blocks of 32 rows per column; block b of column k stores its scale
        // at (b, k) of the compact array. Data keeps the logical layout.
        std::vector<uint8_t> q(x.size()), scales(static_cast<size_t>(col_shape[0] * col_shape[1]), 0);
        mxfp8_columns(x, m, k, format, &q, &scales, col_shape[1]);
        if (options.gemm_swizzled_scales) {
          std::vector<uint8_t> swizzled;
          TP_RETURN_IF_ERROR(swizzle_scales(scales.data(), col_shape[0], col_shape[1], true, k, m / 32, &swizzled));
          scales = std::move(swizzled);
        }
        named.emplace_back("_columnwise_data", std::move(q));
        named.emplace_back("_columnwise_scale_inv", std::move(scales));
      }
      result.amax = {amax_of(x.data(), static_cast<int64_t>(x.size()), 1)};
      break;
    }
    case Recipe::kNvfp4: {
      std::vector<int64_t> row_shape, col_shape;
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, false, &row_shape));
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, true, &col_shape));
      if (options.nvfp4_row_scaled && spec.columnwise) {
        return Status::unsupported("nvfp4 row-scaled columnwise quantization is not in the reference (TE's columnwise "
                                   "amax layout for row-scaled tensors is unverified); use rowwise usage only");
      }
      if (spec.rowwise) {
        std::vector<float> amax;
        if (options.nvfp4_row_scaled) {
          for (int64_t r = 0; r < m; ++r) amax.push_back(amax_of(x.data() + r * k, k, 1));
        } else {
          amax.push_back(amax_of(x.data(), static_cast<int64_t>(x.size()), 1));
        }
        std::vector<uint8_t> data, scales(static_cast<size_t>(row_shape[0] * row_shape[1]), 0);
        nvfp4_rows(x, m, k, amax, &data, &scales, row_shape[1]);
        if (options.gemm_swizzled_scales) {
          std::vector<uint8_t> swizzled;
          TP_RETURN_IF_ERROR(swizzle_scales(scales.data(), row_shape[0], row_shape[1], false, m, ceildiv(k, 16), &swizzled));
          scales = std::move(swizzled);
        }
        std::vector<uint8_t> amax_bytes(amax.size() * 4);
        for (size_t i = 0; i < amax.size(); ++i) put_f32(&amax_bytes, static_cast<int64_t>(i), amax[i]);
        named.emplace_back("_rowwise_data", std::move(data));
        named.emplace_back("_rowwise_scale_inv", std::move(scales));
        named.emplace_back("_amax_rowwise", std::move(amax_bytes));
        result.amax.insert(result.amax.end(), amax.begin(), amax.end());
      }
      if (spec.columnwise) {
        std::vector<float> y = transpose(x, m, k);  // [K, M]
        if (options.nvfp4_hadamard) {
          if (spec.dtype != DType::kBFloat16) {
            return Status::invalid(std::string("nvfp4 Hadamard transform needs bf16 input, dtype is ") + dtype_name(spec.dtype));
          }
          apply_hadamard(&y, k, m, options.nvfp4_hadamard_no_signs, false, true);
        }
        const std::vector<float> amax = {amax_of(y.data(), static_cast<int64_t>(y.size()), 1)};
        std::vector<uint8_t> data, scales(static_cast<size_t>(col_shape[0] * col_shape[1]), 0);
        nvfp4_rows(y, k, m, amax, &data, &scales, col_shape[1]);
        if (options.gemm_swizzled_scales) {
          std::vector<uint8_t> swizzled;
          TP_RETURN_IF_ERROR(swizzle_scales(scales.data(), col_shape[0], col_shape[1], false, k, ceildiv(m, 16), &swizzled));
          scales = std::move(swizzled);
        }
        std::vector<uint8_t> amax_bytes(4);
        put_f32(&amax_bytes, 0, amax[0]);
        named.emplace_back("_columnwise_data", std::move(data));
        named.emplace_back("_columnwise_scale_inv", std::move(scales));
        named.emplace_back("_amax_columnwise", std::move(amax_bytes));
        result.amax.push_back(amax[0]);
      }
      break;
    }
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D: {
      const bool two_d = spec.recipe == Recipe::kFp8Block2D;
      const float value_for_inf = max_finite_of(spec.dtype);
      std::vector<int64_t> row_shape, col_shape;
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, false, &row_shape));
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, true, &col_shape));
      const int64_t blocks_m = ceildiv(m, 128), blocks_k = ceildiv(k, 128);
      if (spec.rowwise) {
        std::vector<uint8_t> q;
        std::vector<float> tile_inv;
        block_quantize(x, {m, k, two_d ? 128 : 1, 128}, format, options.pow2_scales, params.amax_epsilon, value_for_inf, &q, &tile_inv);
        std::vector<uint8_t> scales(static_cast<size_t>(row_shape[0] * row_shape[1] * 4), 0);
        for (int64_t tm = 0; tm < (two_d ? blocks_m : m); ++tm) {
          for (int64_t kb = 0; kb < blocks_k; ++kb) {
            // 1D: (m, kb) at kb*roundup(M,4)+m; 2D: (mb, kb) at mb*roundup(nKB,4)+kb.
            const int64_t at = two_d ? tm * row_shape[1] + kb : kb * row_shape[1] + tm;
            put_f32(&scales, at, tile_inv[static_cast<size_t>(tm * blocks_k + kb)]);
          }
        }
        named.emplace_back("_rowwise_data", std::move(q));
        named.emplace_back("_rowwise_scale_inv", std::move(scales));
      }
      if (spec.columnwise) {
        // The columnwise data is xT quantized along its rows (1D: 128 consecutive
        // original rows per block); 2D tiles are the same tiles transposed.
        const std::vector<float> xt = transpose(x, m, k);
        std::vector<uint8_t> q;
        std::vector<float> tile_inv;
        block_quantize(xt, {k, m, two_d ? 128 : 1, 128}, format, options.pow2_scales, params.amax_epsilon, value_for_inf, &q, &tile_inv);
        std::vector<uint8_t> scales(static_cast<size_t>(col_shape[0] * col_shape[1] * 4), 0);
        for (int64_t tk = 0; tk < (two_d ? blocks_k : k); ++tk) {
          for (int64_t mb = 0; mb < blocks_m; ++mb) {
            // 1D: (k, mb) at mb*roundup(K,4)+k; 2D: (kb, mb) at kb*roundup(nMB,4)+mb.
            const int64_t at = two_d ? tk * col_shape[1] + mb : mb * col_shape[1] + tk;
            put_f32(&scales, at, tile_inv[static_cast<size_t>(tk * blocks_m + mb)]);
          }
        }
        named.emplace_back("_columnwise_data", std::move(q));
        named.emplace_back("_columnwise_scale_inv", std::move(scales));
      }
      result.amax = {amax_of(x.data(), static_cast<int64_t>(x.size()), 1)};
      break;
    }
  }

  for (const BufferSpec& buffer : result.buffers) {
    bool found = false;
    for (auto& entry : named) {
      if (entry.first != buffer.name) continue;
      if (static_cast<int64_t>(entry.second.size()) != buffer.bytes) {
        return Status::internal("quantize produced " + std::to_string(entry.second.size()) + " bytes for " + buffer.name +
                                ", spec says " + std::to_string(buffer.bytes));
      }
      result.bytes.push_back(std::move(entry.second));
      found = true;
      break;
    }
    if (!found) return Status::internal("quantize produced no bytes for " + buffer.name);
  }
  *out = std::move(result);
  return Status::ok();
}

Status dequantize(const TensorSpec& spec, const std::vector<std::vector<uint8_t>>& buffers, std::vector<uint8_t>* out) {
  std::vector<BufferSpec> specs;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &specs));
  if (buffers.size() != specs.size()) {
    return Status::invalid("buffers: " + std::to_string(buffers.size()) + " given, the spec has " +
                           std::to_string(specs.size()));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (static_cast<int64_t>(buffers[i].size()) != specs[i].bytes) {
      return Status::invalid("buffers[" + std::to_string(i) + "] \"" + specs[i].name + "\" has " +
                             std::to_string(buffers[i].size()) + " bytes: expected " + std::to_string(specs[i].bytes));
    }
  }
  const int64_t m = spec.shape.empty() ? 1 : leading_rows(spec.shape);
  const int64_t k = last_dim(spec.shape);
  const DType format = spec.options.fp8_dtype;
  const FormatOptions& options = spec.options;
  auto get = [&](const char* name) { return find_bytes(specs, buffers, name); };
  std::vector<float> x(static_cast<size_t>(m * k), 0.0f);

  switch (spec.recipe) {
    case Recipe::kNone:
      *out = buffers[0];
      return Status::ok();
    case Recipe::kFp8Delayed:
    case Recipe::kFp8Current: {
      const float scale_inv = get_f32(*get("_scale_inv"), 0);
      const std::vector<uint8_t>* data = get("_data");
      const std::vector<uint8_t>* t = get("_transpose");
      if (data == nullptr && t == nullptr) return Status::invalid("dequantize: the spec has no data buffer (no usage)");
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < k; ++j) {
          const uint8_t code = data != nullptr ? (*data)[static_cast<size_t>(i * k + j)] : (*t)[static_cast<size_t>(j * m + i)];
          x[static_cast<size_t>(i * k + j)] = decode_fp8(format, code) * scale_inv;
        }
      }
      break;
    }
    case Recipe::kMxfp8: {
      const bool row = spec.rowwise;
      if (!row && !spec.columnwise) return Status::invalid("dequantize: the spec has no data buffer (no usage)");
      std::vector<int64_t> shape;
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, !row, &shape));
      const std::vector<uint8_t>& data = *get(row ? "_rowwise_data" : "_columnwise_data");
      std::vector<uint8_t> scales = *get(row ? "_rowwise_scale_inv" : "_columnwise_scale_inv");
      if (options.gemm_swizzled_scales) {
        std::vector<uint8_t> compact;
        TP_RETURN_IF_ERROR(unswizzle_scales(scales.data(), shape[0], shape[1], !row, &compact));
        scales = std::move(compact);
      }
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < k; ++j) {
          const int64_t s = row ? i * shape[1] + j / 32 : (i / 32) * shape[1] + j;
          const size_t at = static_cast<size_t>(i * k + j);
          x[at] = decode_fp8(format, data[at]) * e8m0_to_float(scales[static_cast<size_t>(s)]);
        }
      }
      break;
    }
    case Recipe::kNvfp4: {
      const bool row = spec.rowwise;
      if (!row && !spec.columnwise) return Status::invalid("dequantize: the spec has no data buffer (no usage)");
      const int64_t rows = row ? m : k, cols = row ? k : m;
      std::vector<int64_t> shape;
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, !row, &shape));
      std::vector<uint8_t> scales = *get(row ? "_rowwise_scale_inv" : "_columnwise_scale_inv");
      if (options.gemm_swizzled_scales) {
        std::vector<uint8_t> compact;
        TP_RETURN_IF_ERROR(unswizzle_scales(scales.data(), shape[0], shape[1], false, &compact));
        scales = std::move(compact);
      }
      const std::vector<uint8_t>& amax_bytes = *get(row ? "_amax_rowwise" : "_amax_columnwise");
      std::vector<float> amax(amax_bytes.size() / 4);
      for (size_t i = 0; i < amax.size(); ++i) amax[i] = get_f32(amax_bytes, static_cast<int64_t>(i));
      std::vector<float> y;
      dequantize_nvfp4_rows(*get(row ? "_rowwise_data" : "_columnwise_data"), scales, shape[1], amax, rows, cols, &y);
      if (row) {
        x = std::move(y);
      } else {
        if (options.nvfp4_hadamard) {
          apply_hadamard(&y, k, m, options.nvfp4_hadamard_no_signs, true, false);
        }
        x = transpose(y, k, m);
      }
      break;
    }
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D: {
      const bool row = spec.rowwise;
      const bool two_d = spec.recipe == Recipe::kFp8Block2D;
      if (!row && !spec.columnwise) return Status::invalid("dequantize: the spec has no data buffer (no usage)");
      std::vector<int64_t> shape;
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, !row, &shape));
      const std::vector<uint8_t>& data = *get(row ? "_rowwise_data" : "_columnwise_data");
      const std::vector<uint8_t>& scales = *get(row ? "_rowwise_scale_inv" : "_columnwise_scale_inv");
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < k; ++j) {
          int64_t s;
          if (row) {
            s = two_d ? (i / 128) * shape[1] + j / 128 : (j / 128) * shape[1] + i;
          } else {
            s = two_d ? (j / 128) * shape[1] + i / 128 : (i / 128) * shape[1] + j;
          }
          const uint8_t code = row ? data[static_cast<size_t>(i * k + j)] : data[static_cast<size_t>(j * m + i)];
          x[static_cast<size_t>(i * k + j)] = decode_fp8(format, code) * get_f32(scales, s);
        }
      }
      break;
    }
  }
  return encode_output(spec.dtype, x, out);
}

Status delayed_scaling_update(int64_t history_len, int64_t count, std::vector<float>* history,
                              std::vector<float>* scale, AmaxAlgo algo, float fp8_max, int32_t margin,
                              std::vector<float>* amax_out) {
  if (history_len < 1) return Status::invalid("history_len = " + std::to_string(history_len) + ": must be >= 1");
  if (count < 0) return Status::invalid("count = " + std::to_string(count) + ": must be >= 0");
  if (static_cast<int64_t>(history->size()) != history_len * count) {
    return Status::invalid("amax_history has " + std::to_string(history->size()) + " values: expected history_len * count = " +
                           std::to_string(history_len * count));
  }
  if (static_cast<int64_t>(scale->size()) != count) {
    return Status::invalid("scale has " + std::to_string(scale->size()) + " values: expected count = " + std::to_string(count));
  }
  if (algo != AmaxAlgo::kMax && algo != AmaxAlgo::kMostRecent) {
    return Status::invalid("amax_compute_algo = " + std::to_string(static_cast<int32_t>(algo)) + ": must be 0 (max) or 1 (most_recent)");
  }
  // fp8_max * 2^-margin; exact for integer margins in range.
  const float scaled_max = static_cast<float>(std::ldexp(static_cast<double>(fp8_max), -margin));
  std::vector<float> old = *history;
  amax_out->assign(static_cast<size_t>(count), 0.0f);
  for (int64_t q = 0; q < count; ++q) {
    float amax = old[static_cast<size_t>(q)];
    if (algo == AmaxAlgo::kMax) {
      for (int64_t j = 1; j < history_len; ++j) amax = fmax_ignoring_nan(amax, old[static_cast<size_t>(j * count + q)]);
    }
    (*amax_out)[static_cast<size_t>(q)] = amax;
    // Left roll by one row, then clear row 0.
    for (int64_t j = 0; j < history_len; ++j) {
      (*history)[static_cast<size_t>(j * count + q)] = old[static_cast<size_t>(((j + 1) % history_len) * count + q)];
    }
    (*history)[static_cast<size_t>(q)] = 0.0f;
    float next = (*scale)[static_cast<size_t>(q)];
    if (std::isfinite(amax) && amax > 0.0f) next = scaled_max / amax;
    if (std::isinf(next)) next = FLT_MAX;
    (*scale)[static_cast<size_t>(q)] = next;
  }
  return Status::ok();
}

}  // namespace tp
