// Block FP8 (FORMATS.md §2.4): FP32 scales per 1 x 128 (1D) or 128 x 128 (2D)
// tile, both usages from one pass over the input.
#include "formats/quantize/quantize_families.h"

#include <memory>
#include "formats/quantize/cast_tables.h"

namespace tp {
namespace quantize_detail {
namespace {

struct BlockScaling {
  bool e5m2;
  bool pow2;
  float epsilon;
  float value_for_inf;
  // bf16 input with power-of-two scales (a scale is then fixed by its
  // exponent byte, the table key); null otherwise.
  CodeTables<CastFp8>* tables;

  float scale_of(float amax) const {
    return compute_scale_from_amax(amax, e5m2 ? kE5M2Max : kE4M3Max, pow2, epsilon, value_for_inf);
  }
};

// Codes of a rows x k band (row-major) where element (i, j) is multiplied by
// scale[j / group] (group 128: the 128-column tiles of a row or 2D band; 1:
// per column).
void block_encode_band(const float* band, int64_t rows, int64_t k, const std::vector<float>& scale, int64_t group,
                       const BlockScaling& scaling, uint8_t* codes) {
  std::vector<const uint8_t*> table(scale.size(), nullptr);
  if (scaling.tables != nullptr) {
    for (size_t g = 0; g < scale.size(); ++g) {
      const int64_t columns = std::min(group, k - static_cast<int64_t>(g) * group);
      const uint8_t exponent = static_cast<uint8_t>(float_bits(scale[g]) >> 23);
      table[g] = scaling.tables->find(exponent, scale[g], rows * columns);
    }
  }
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      const size_t g = static_cast<size_t>(j / group);
      const float v = band[i * k + j];
      codes[i * k + j] = table[g] != nullptr ? table[g][bf16_bits(v)] : encode_fp8(scaling.e5m2, v * scale[g]);
    }
  }
}

// Rowwise 1D (1 x 128 tiles): tile_inv[i * tiles_k + kb] = 1 / scale. Returns
// the amax of x.
float block_1d_rowwise(const RawMatrix& x, const BlockScaling& scaling, uint8_t* codes, std::vector<float>* tile_inv) {
  const int64_t tiles_k = ceildiv(x.k, 128);
  std::vector<float> row(static_cast<size_t>(x.k)), scale(static_cast<size_t>(tiles_k));
  float amax = 0.0f;
  for (int64_t i = 0; i < x.m; ++i) {
    x.decode_rows(i, 1, row.data());
    for (int64_t kb = 0; kb < tiles_k; ++kb) {
      const float tile_amax = amax_of(row.data() + kb * 128, std::min<int64_t>(128, x.k - kb * 128));
      amax = fmax_ignoring_nan(amax, tile_amax);
      scale[static_cast<size_t>(kb)] = scaling.scale_of(tile_amax);
      (*tile_inv)[static_cast<size_t>(i * tiles_k + kb)] = 1.0f / scale[static_cast<size_t>(kb)];
    }
    block_encode_band(row.data(), 1, x.k, scale, 128, scaling, codes + i * x.k);
  }
  return amax;
}

// 2D (128 x 128 tiles), codes in x's layout: tile_inv[tm * tiles_k + tk] =
// 1 / scale. The columnwise 2D data is these codes transposed (same tiles,
// same scales). Returns the amax of x.
float block_2d(const RawMatrix& x, const BlockScaling& scaling, uint8_t* codes, std::vector<float>* tile_inv) {
  const int64_t tiles_k = ceildiv(x.k, 128);
  std::vector<float> band(static_cast<size_t>(std::min<int64_t>(128, x.m) * x.k));
  std::vector<float> column_amax(static_cast<size_t>(x.k)), scale(static_cast<size_t>(tiles_k));
  float amax = 0.0f;
  for (int64_t tm = 0; tm < ceildiv(x.m, 128); ++tm) {
    const int64_t rows = std::min<int64_t>(128, x.m - tm * 128);
    x.decode_rows(tm * 128, rows, band.data());
    std::fill(column_amax.begin(), column_amax.end(), 0.0f);
    accumulate_column_amax(band.data(), rows, x.k, column_amax.data());
    for (int64_t tk = 0; tk < tiles_k; ++tk) {
      const float tile_amax = amax_of(column_amax.data() + tk * 128, std::min<int64_t>(128, x.k - tk * 128));
      amax = fmax_ignoring_nan(amax, tile_amax);
      scale[static_cast<size_t>(tk)] = scaling.scale_of(tile_amax);
      (*tile_inv)[static_cast<size_t>(tm * tiles_k + tk)] = 1.0f / scale[static_cast<size_t>(tk)];
    }
    block_encode_band(band.data(), rows, x.k, scale, 128, scaling, codes + tm * 128 * x.k);
  }
  return amax;
}

// Columnwise 1D: x^T in 1 x 128 tiles, i.e. 128 consecutive rows of one
// column of x. Codes go to x^T's layout; tile_inv[j * tiles_m + mb] = 1 / scale.
// Returns the amax of x.
float block_1d_columnwise(const RawMatrix& x, const BlockScaling& scaling, uint8_t* codes, std::vector<float>* tile_inv) {
  const int64_t tiles_m = ceildiv(x.m, 128);
  const int64_t band_rows = std::min<int64_t>(128, x.m);
  std::vector<float> band(static_cast<size_t>(band_rows * x.k));
  std::vector<float> column_amax(static_cast<size_t>(x.k)), scale(static_cast<size_t>(x.k));
  std::vector<uint8_t> band_codes(static_cast<size_t>(band_rows * x.k));
  float amax = 0.0f;
  for (int64_t mb = 0; mb < tiles_m; ++mb) {
    const int64_t rows = std::min<int64_t>(128, x.m - mb * 128);
    x.decode_rows(mb * 128, rows, band.data());
    std::fill(column_amax.begin(), column_amax.end(), 0.0f);
    accumulate_column_amax(band.data(), rows, x.k, column_amax.data());
    for (int64_t j = 0; j < x.k; ++j) {
      amax = fmax_ignoring_nan(amax, column_amax[static_cast<size_t>(j)]);
      scale[static_cast<size_t>(j)] = scaling.scale_of(column_amax[static_cast<size_t>(j)]);
      (*tile_inv)[static_cast<size_t>(j * tiles_m + mb)] = 1.0f / scale[static_cast<size_t>(j)];
    }
    block_encode_band(band.data(), rows, x.k, scale, 1, scaling, band_codes.data());
    transpose_block(band_codes.data(), rows, x.k, x.k, codes + mb * 128, x.m);
  }
  return amax;
}

}  // namespace

Status quantize_fp8_block(const TensorSpec& spec, const RawMatrix& x, const QuantizeParams& params, QuantizeTarget* out) {
  const int64_t m = x.m, k = x.k;
  const FormatOptions& options = spec.options;
  const bool e5m2 = options.fp8_dtype == DType::kFloat8E5M2;
  const bool two_d = spec.recipe == Recipe::kFp8Block2D;
  const bool use_tables = spec.dtype == DType::kBFloat16 && options.pow2_scales;
  std::unique_ptr<CodeTables<CastFp8>> tables(use_tables ? new CodeTables<CastFp8>(CastFp8{e5m2}) : nullptr);
  const BlockScaling scaling{e5m2, options.pow2_scales, params.amax_epsilon, max_finite_of(spec.dtype), tables.get()};
  std::vector<int64_t> row_shape, col_shape;
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, false, &row_shape));
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, true, &col_shape));
  const int64_t blocks_m = ceildiv(m, 128), blocks_k = ceildiv(k, 128);
  float amax = 0.0f;
  uint8_t *row_q = nullptr, *col_q = nullptr;
  if (spec.rowwise) TP_RETURN_IF_ERROR(out->take("_rowwise_data", m * k, &row_q));
  if (spec.columnwise) TP_RETURN_IF_ERROR(out->take("_columnwise_data", m * k, &col_q));
  // 2D: one pass gives the codes of both usages (columnwise = transposed),
  // written to _rowwise_data when the spec has it, else to scratch.
  HostBuffer codes_scratch;
  std::vector<float> tile_inv_2d;
  if (two_d && (spec.rowwise || spec.columnwise)) {
    uint8_t* codes_2d = row_q;
    if (codes_2d == nullptr) {
      TP_RETURN_IF_ERROR(codes_scratch.allocate(m * k, "quantize: _columnwise_data (codes before the transpose)"));
      codes_2d = codes_scratch.data();
    }
    tile_inv_2d.resize(static_cast<size_t>(blocks_m * blocks_k));
    amax = block_2d(x, scaling, codes_2d, &tile_inv_2d);
    if (col_q != nullptr) transpose_block(codes_2d, m, k, k, col_q, m);
  }
  if (spec.columnwise) {
    std::vector<float> tile_inv;
    if (!two_d) {
      tile_inv.resize(static_cast<size_t>(k * blocks_m));
      amax = block_1d_columnwise(x, scaling, col_q, &tile_inv);
    }
    uint8_t* scales = nullptr;
    TP_RETURN_IF_ERROR(out->take_zeroed("_columnwise_scale_inv", col_shape[0] * col_shape[1] * 4, &scales));
    for (int64_t tk = 0; tk < (two_d ? blocks_k : k); ++tk) {
      for (int64_t mb = 0; mb < blocks_m; ++mb) {
        // 1D: (k, mb) at mb*roundup(K,4)+k; 2D: (kb, mb) at kb*roundup(nMB,4)+mb.
        const int64_t at = two_d ? tk * col_shape[1] + mb : mb * col_shape[1] + tk;
        const float inv = two_d ? tile_inv_2d[static_cast<size_t>(mb * blocks_k + tk)]
                                : tile_inv[static_cast<size_t>(tk * blocks_m + mb)];
        put_f32(scales, at, inv);
      }
    }
  }
  if (spec.rowwise) {
    std::vector<float> tile_inv;
    if (two_d) {
      tile_inv = std::move(tile_inv_2d);
    } else {
      tile_inv.resize(static_cast<size_t>(m * blocks_k));
      amax = block_1d_rowwise(x, scaling, row_q, &tile_inv);
    }
    uint8_t* scales = nullptr;
    TP_RETURN_IF_ERROR(out->take_zeroed("_rowwise_scale_inv", row_shape[0] * row_shape[1] * 4, &scales));
    for (int64_t tm = 0; tm < (two_d ? blocks_m : m); ++tm) {
      for (int64_t kb = 0; kb < blocks_k; ++kb) {
        // 1D: (m, kb) at kb*roundup(M,4)+m; 2D: (mb, kb) at mb*roundup(nKB,4)+kb.
        const int64_t at = two_d ? tm * row_shape[1] + kb : kb * row_shape[1] + tm;
        put_f32(scales, at, tile_inv[static_cast<size_t>(tm * blocks_k + kb)]);
      }
    }
  }
  if (!spec.rowwise && !spec.columnwise) amax = amax_of(x);
  out->amax = {amax};
  return Status::ok();
}

Status dequantize_fp8_block(const DequantizeSource& in, uint8_t* out) {
  const TensorSpec& spec = in.spec;
  const int64_t m = in.m, k = in.k;
  auto get = [&](const char* name) { return in.get(name); };
  const Fp8Decoded fp8(spec.options.fp8_dtype == DType::kFloat8E5M2);
  std::vector<float> row(static_cast<size_t>(k));  // one output row, before encode_elements
  const bool rowwise = spec.rowwise;
  const bool two_d = spec.recipe == Recipe::kFp8Block2D;
  std::vector<int64_t> shape;
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, !rowwise, &shape));
  const uint8_t* data = get(rowwise ? "_rowwise_data" : "_columnwise_data");
  const uint8_t* scales = get(rowwise ? "_rowwise_scale_inv" : "_columnwise_scale_inv");
  HostBuffer from_columnwise;
  if (!rowwise) {
    TP_RETURN_IF_ERROR(transpose_to_scratch(data, k, m, "dequantize: _columnwise_data (transposed back)", &from_columnwise));
    data = from_columnwise.data();
  }
  // The scale of element (i, j), one per column j of row i.
  std::vector<float> scale(static_cast<size_t>(k));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      int64_t s;
      if (rowwise) {
        s = two_d ? (i / 128) * shape[1] + j / 128 : (j / 128) * shape[1] + i;
      } else {
        s = two_d ? (j / 128) * shape[1] + i / 128 : (i / 128) * shape[1] + j;
      }
      scale[static_cast<size_t>(j)] = get_f32(scales, s);
    }
    const uint8_t* codes = data + i * k;
    for (int64_t j = 0; j < k; ++j) row[static_cast<size_t>(j)] = fp8.value[codes[j]] * scale[static_cast<size_t>(j)];
    store_row(spec.dtype, row, i, out);
  }
  return Status::ok();
}

}  // namespace quantize_detail
}  // namespace tp
