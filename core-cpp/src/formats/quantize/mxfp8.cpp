// MXFP8 (FORMATS.md §4.5): blocks of 32 along a row (rowwise) or a column
// (columnwise), one E8M0 scale each.
#include "formats/quantize/quantize_families.h"

#include <memory>
#include "formats/quantize/cast_tables.h"
#include "formats/scale_swizzle.h"

namespace tp {
namespace quantize_detail {
namespace {

// Rowwise MXFP8 of one row: blocks of 32, E8M0 scale of block b at
// scales[b]. `tables` (bf16 input only) may be null. Returns the row's amax.
float mxfp8_row(const float* row, int64_t k, bool e5m2, CodeTables<CastFp8>* tables, uint8_t* codes, uint8_t* scales) {
  const float fp8_max = e5m2 ? kE5M2Max : kE4M3Max;
  float row_amax = 0.0f;
  for (int64_t b = 0; b < k / 32; ++b) {
    const float* block = row + b * 32;
    const float block_amax = amax_of(block, 32);
    row_amax = fmax_ignoring_nan(row_amax, block_amax);
    const uint8_t e = mxfp8_block_scale(block_amax, fp8_max);
    const float multiplier = e8m0_reciprocal(e);
    scales[b] = e;
    const uint8_t* table = tables != nullptr ? tables->find(e, multiplier, 32) : nullptr;
    if (table != nullptr) {
      for (int i = 0; i < 32; ++i) codes[b * 32 + i] = table[bf16_bits(block[i])];
    } else {
      for (int i = 0; i < 32; ++i) codes[b * 32 + i] = encode_fp8(e5m2, block[i] * multiplier);
    }
  }
  return row_amax;
}

// Columnwise MXFP8 of a band of 32 rows (row-major, k columns): one block per
// column, its E8M0 scale at scales[j]. Codes keep the band's layout.
// `tables` (bf16 input only) may be null. Returns the band's amax.
float mxfp8_column_band(const float* band, int64_t k, bool e5m2, CodeTables<CastFp8>* tables, uint8_t* codes,
                        uint8_t* scales) {
  const float fp8_max = e5m2 ? kE5M2Max : kE4M3Max;
  std::vector<float> amax(static_cast<size_t>(k), 0.0f), multiplier(static_cast<size_t>(k));
  std::vector<const uint8_t*> table(static_cast<size_t>(k), nullptr);
  accumulate_column_amax(band, 32, k, amax.data());
  float band_amax = 0.0f;
  for (int64_t j = 0; j < k; ++j) {
    const size_t at = static_cast<size_t>(j);
    band_amax = fmax_ignoring_nan(band_amax, amax[at]);
    const uint8_t e = mxfp8_block_scale(amax[at], fp8_max);
    scales[j] = e;
    multiplier[at] = e8m0_reciprocal(e);
    if (tables != nullptr) table[at] = tables->find(e, multiplier[at], 32);
  }
  for (int64_t i = 0; i < 32; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      const size_t at = static_cast<size_t>(j);
      const float v = band[i * k + j];
      codes[i * k + j] = table[at] != nullptr ? table[at][bf16_bits(v)] : encode_fp8(e5m2, v * multiplier[at]);
    }
  }
  return band_amax;
}

}  // namespace

Status quantize_mxfp8(const TensorSpec& spec, const RawMatrix& x, QuantizeTarget* out) {
  const int64_t m = x.m, k = x.k;
  const FormatOptions& options = spec.options;
  const bool e5m2 = options.fp8_dtype == DType::kFloat8E5M2;
  std::vector<int64_t> row_shape, col_shape;
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, false, &row_shape));
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, true, &col_shape));
  // Bands of 32 rows: each is decoded once and gives its rowwise blocks
  // (1 x 32) and its columnwise blocks (32 x 1). Block b of column j
  // stores its scale at (b, j) of the compact array; data keeps the
  // logical layout for both usages. Codes go straight to the output; the
  // compact scales too unless they are swizzled afterwards.
  const bool swizzled = options.gemm_swizzled_scales;
  uint8_t *row_q = nullptr, *row_scales = nullptr, *col_q = nullptr, *col_scales = nullptr;
  HostBuffer row_compact, col_compact;
  const int64_t row_scale_bytes = row_shape[0] * row_shape[1], col_scale_bytes = col_shape[0] * col_shape[1];
  if (spec.rowwise) {
    TP_RETURN_IF_ERROR(out->take("_rowwise_data", m * k, &row_q));
    if (swizzled) {
      TP_RETURN_IF_ERROR(row_compact.allocate(row_scale_bytes, "quantize: _rowwise_scale_inv (before the swizzle)"));
      row_scales = row_compact.data();
    } else {
      TP_RETURN_IF_ERROR(out->take_zeroed("_rowwise_scale_inv", row_scale_bytes, &row_scales));
    }
  }
  if (spec.columnwise) {
    TP_RETURN_IF_ERROR(out->take("_columnwise_data", m * k, &col_q));
    if (swizzled) {
      TP_RETURN_IF_ERROR(col_compact.allocate(col_scale_bytes, "quantize: _columnwise_scale_inv (before the swizzle)"));
      col_scales = col_compact.data();
    } else {
      TP_RETURN_IF_ERROR(out->take_zeroed("_columnwise_scale_inv", col_scale_bytes, &col_scales));
    }
  }
  std::vector<float> band(static_cast<size_t>(32 * k));
  std::unique_ptr<CodeTables<CastFp8>> tables(spec.dtype == DType::kBFloat16 ? new CodeTables<CastFp8>(CastFp8{e5m2})
                                                                             : nullptr);
  float amax = 0.0f;
  for (int64_t b = 0; b < m / 32; ++b) {
    x.decode_rows(b * 32, 32, band.data());
    if (spec.rowwise) {
      for (int64_t i = 0; i < 32; ++i) {
        const int64_t row = b * 32 + i;
        amax = fmax_ignoring_nan(amax, mxfp8_row(band.data() + i * k, k, e5m2, tables.get(), row_q + row * k,
                                                 row_scales + row * row_shape[1]));
      }
    }
    if (spec.columnwise) {
      amax = fmax_ignoring_nan(amax, mxfp8_column_band(band.data(), k, e5m2, tables.get(), col_q + b * 32 * k,
                                                       col_scales + b * col_shape[1]));
    }
  }
  if (!spec.rowwise && !spec.columnwise) amax = amax_of(x);
  if (spec.rowwise && swizzled) {
    std::vector<uint8_t> bytes;
    TP_RETURN_IF_ERROR(swizzle_scales(row_scales, row_shape[0], row_shape[1], false, m, k / 32, &bytes));
    TP_RETURN_IF_ERROR(out->put("_rowwise_scale_inv", bytes));
  }
  if (spec.columnwise && swizzled) {
    std::vector<uint8_t> bytes;
    TP_RETURN_IF_ERROR(swizzle_scales(col_scales, col_shape[0], col_shape[1], true, k, m / 32, &bytes));
    TP_RETURN_IF_ERROR(out->put("_columnwise_scale_inv", bytes));
  }
  out->amax = {amax};
  return Status::ok();
}

Status dequantize_mxfp8(const DequantizeSource& in, uint8_t* out) {
  const TensorSpec& spec = in.spec;
  const int64_t m = in.m, k = in.k;
  auto get = [&](const char* name) { return in.get(name); };
  const FormatOptions& options = spec.options;
  const Fp8Decoded fp8(spec.options.fp8_dtype == DType::kFloat8E5M2);
  std::vector<float> row(static_cast<size_t>(k));  // one output row, before encode_elements
  const bool rowwise = spec.rowwise;
  std::vector<int64_t> shape;
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, !rowwise, &shape));
  const uint8_t* data = get(rowwise ? "_rowwise_data" : "_columnwise_data");
  const uint8_t* scales = get(rowwise ? "_rowwise_scale_inv" : "_columnwise_scale_inv");
  std::vector<uint8_t> compact;
  if (options.gemm_swizzled_scales) {
    TP_RETURN_IF_ERROR(unswizzle_scales(scales, shape[0], shape[1], !rowwise, &compact));
    scales = compact.data();
  }
  std::vector<float> column_scale(static_cast<size_t>(k));
  for (int64_t i = 0; i < m; ++i) {
    const uint8_t* codes = data + i * k;
    if (rowwise) {
      for (int64_t b = 0; b < k / 32; ++b) {
        const float scale = e8m0_to_float(scales[i * shape[1] + b]);
        for (int64_t j = b * 32; j < b * 32 + 32; ++j) row[static_cast<size_t>(j)] = fp8.value[codes[j]] * scale;
      }
    } else {
      if (i % 32 == 0) {
        for (int64_t j = 0; j < k; ++j) {
          column_scale[static_cast<size_t>(j)] = e8m0_to_float(scales[(i / 32) * shape[1] + j]);
        }
      }
      for (int64_t j = 0; j < k; ++j) row[static_cast<size_t>(j)] = fp8.value[codes[j]] * column_scale[static_cast<size_t>(j)];
    }
    store_row(spec.dtype, row, i, out);
  }
  return Status::ok();
}

}  // namespace quantize_detail
}  // namespace tp
