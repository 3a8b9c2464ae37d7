// NVFP4 (FORMATS.md §4.6): E2M1 codes in blocks of 16 with E4M3 block scales
// under a per-tensor (or per-row) FP32 encode scale; the columnwise usage may
// go through the 16-point Hadamard transform first.
#include "formats/quantize/quantize_families.h"

#include <memory>
#include "formats/quantize/cast_tables.h"
#include "formats/scale_swizzle.h"

namespace tp {
namespace quantize_detail {
namespace {

// Right-multiplies every 16-element chunk of every row of a `rows` x `cols`
// matrix by the NVFP4 Hadamard matrix (its transpose when `transpose_matrix`).
// The flags reach nvfp4_hadamard16 as constants, so the compiler folds the
// matrix entries instead of computing them for every chunk.
template <bool kTransposeMatrix, bool kNoSigns, bool kRoundToBf16>
void apply_hadamard_with(float* y, int64_t rows, int64_t cols) {
  float chunk[16];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c0 = 0; c0 + 16 <= cols; c0 += 16) {
      float* v = y + r * cols + c0;
      nvfp4_hadamard16(v, chunk, kTransposeMatrix, kNoSigns, kRoundToBf16);
      std::memcpy(v, chunk, sizeof chunk);
    }
  }
}

// Quantize transforms with the matrix and rounds to bf16; dequantize undoes
// it with the transpose and keeps fp32.
void hadamard_for_quantize(float* y, int64_t rows, int64_t cols, bool no_signs) {
  if (no_signs) {
    apply_hadamard_with<false, true, true>(y, rows, cols);
  } else {
    apply_hadamard_with<false, false, true>(y, rows, cols);
  }
}

void hadamard_for_dequantize(float* y, int64_t rows, int64_t cols, bool no_signs) {
  if (no_signs) {
    apply_hadamard_with<true, true, false>(y, rows, cols);
  } else {
    apply_hadamard_with<true, false, false>(y, rows, cols);
  }
}

// Encodes `blocks` consecutive 16-value blocks with the tensor (or row)
// encode scale s_enc: packed codes to data (8 bytes a block), the E4M3 scale
// of block b to scales[b * scale_step]. `tables` (bf16 values, one S_enc
// only) may be null.
void nvfp4_blocks(const float* values, int64_t blocks, float s_enc, uint8_t* data, uint8_t* scales, int64_t scale_step,
                  CodeTables<CastE2m1>* tables) {
  uint8_t codes[16];
  for (int64_t b = 0; b < blocks; ++b) {
    const float* block = values + b * 16;
    const Nvfp4BlockScale scale = nvfp4_block_scale(amax_of(block, 16), s_enc);
    scales[b * scale_step] = scale.code;
    const uint8_t* table = tables != nullptr ? tables->find(scale.code, scale.multiplier, 16) : nullptr;
    if (table != nullptr) {
      for (int i = 0; i < 16; ++i) codes[i] = table[bf16_bits(block[i])];
    } else {
      for (int i = 0; i < 16; ++i) codes[i] = float_to_e2m1(block[i] * scale.multiplier);
    }
    for (int i = 0; i < 16; i += 2) data[b * 8 + i / 2] = pack_e2m1_pair(codes[i], codes[i + 1]);
  }
}

// Rowwise NVFP4: rows in blocks of 16, one global amax per row (row_scaled)
// or per tensor (`tensor_amax`). Returns the stored amaxes.
std::vector<float> nvfp4_rowwise(const RawMatrix& x, bool row_scaled, float tensor_amax, uint8_t* data, uint8_t* scales,
                                 int64_t scale_stride) {
  std::vector<float> amax;
  if (!row_scaled) amax.push_back(tensor_amax);
  std::vector<float> row(static_cast<size_t>(x.k));
  // Row-scaled rows each have their own S_enc, which the tables cannot share.
  const bool use_tables = x.dtype == DType::kBFloat16 && !row_scaled;
  std::unique_ptr<CodeTables<CastE2m1>> tables(use_tables ? new CodeTables<CastE2m1>(CastE2m1()) : nullptr);
  for (int64_t r = 0; r < x.m; ++r) {
    x.decode_rows(r, 1, row.data());
    if (row_scaled) amax.push_back(amax_of(row.data(), x.k));
    const float s_enc = nvfp4_global_encode_scale(amax.back());
    nvfp4_blocks(row.data(), x.k / 16, s_enc, data + r * x.k / 2, scales + r * scale_stride, 1, tables.get());
  }
  return amax;
}

// Columnwise NVFP4 quantizes x^T along its rows: block (band b, column j) is
// the 16 values x[16b .. 16b+15][j]. column_blocks() lays out a band's k
// blocks contiguously (the band transposed), Hadamard-transformed when asked.
void column_blocks(const RawMatrix& x, int64_t band, std::vector<float>* rows, float* blocks, bool hadamard,
                   bool no_signs) {
  x.decode_rows(band * 16, 16, rows->data());
  transpose_block(rows->data(), 16, x.k, x.k, blocks, 16);
  if (hadamard) hadamard_for_quantize(blocks, x.k, 16, no_signs);
}

// Returns the columnwise amax. Without the Hadamard transform the blocks hold
// the input's values and `tensor_amax` is their amax; with it, every band is
// transformed first (the amax of the transformed values sets S_enc).
// The Hadamard path keeps every transformed band (4 bytes an element) until
// their amax is known: a checked scratch allocation.
Status nvfp4_columnwise(const RawMatrix& x, bool hadamard, bool no_signs, float tensor_amax, uint8_t* data,
                        uint8_t* scales, int64_t scale_stride, float* amax_out) {
  const int64_t bands = x.m / 16, band_size = 16 * x.k;
  std::vector<float> rows(static_cast<size_t>(band_size));
  HostBuffer transformed_bytes;  // every band's blocks, Hadamard only
  const float* transformed = nullptr;
  float amax = tensor_amax;
  if (hadamard) {
    TP_RETURN_IF_ERROR(transformed_bytes.allocate(bands * band_size * 4,
                                                  "quantize: _columnwise_data (Hadamard-transformed values)"));
    float* values = reinterpret_cast<float*>(transformed_bytes.data());
    for (int64_t b = 0; b < bands; ++b) column_blocks(x, b, &rows, values + b * band_size, true, no_signs);
    amax = amax_of(values, bands * band_size);
    transformed = values;
  }
  const float s_enc = nvfp4_global_encode_scale(amax);
  // The Hadamard transform rounds to bf16, so its output can use the tables too.
  const bool use_tables = x.dtype == DType::kBFloat16;
  std::unique_ptr<CodeTables<CastE2m1>> tables(use_tables ? new CodeTables<CastE2m1>(CastE2m1()) : nullptr);
  std::vector<float> blocks(hadamard ? 0 : static_cast<size_t>(band_size));
  for (int64_t b = 0; b < bands; ++b) {
    const float* band_blocks = hadamard ? transformed + b * band_size : blocks.data();
    if (!hadamard) column_blocks(x, b, &rows, blocks.data(), false, no_signs);
    for (int64_t j = 0; j < x.k; ++j) {
      nvfp4_blocks(band_blocks + j * 16, 1, s_enc, data + (j * x.m + b * 16) / 2, scales + j * scale_stride + b, 1,
                   tables.get());
    }
  }
  *amax_out = amax;
  return Status::ok();
}

// Dequantizes one NVFP4 row of `cols` values (packed codes, its E4M3 scales,
// its global amax) into out.
void dequantize_nvfp4_row(const uint8_t* packed, const uint8_t* scales, float amax, int64_t cols, float* out) {
  float e2m1_value[16];
  for (int code = 0; code < 16; ++code) e2m1_value[code] = e2m1_to_float(static_cast<uint8_t>(code));
  for (int64_t b = 0; b < cols / 16; ++b) {
    const float final_scale = nvfp4_dequant_scale(scales[b], amax);
    for (int i = 0; i < 8; ++i) {
      out[b * 16 + 2 * i] = e2m1_value[packed[b * 8 + i] & 0xF] * final_scale;
      out[b * 16 + 2 * i + 1] = e2m1_value[packed[b * 8 + i] >> 4] * final_scale;
    }
  }
}

}  // namespace

Status quantize_nvfp4(const TensorSpec& spec, const RawMatrix& x, QuantizeTarget* out) {
  const int64_t m = x.m, k = x.k;
  const FormatOptions& options = spec.options;
  std::vector<int64_t> row_shape, col_shape;
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, false, &row_shape));
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, true, &col_shape));
  if (options.nvfp4_row_scaled && spec.columnwise) {
    return Status::unsupported("nvfp4 row-scaled columnwise quantization is not in the reference (its buffers, "
                               "with one columnwise amax per column, are described; the numerics are not); use "
                               "rowwise usage only");
  }
  if (spec.columnwise && options.nvfp4_hadamard && spec.dtype != DType::kBFloat16) {
    return Status::invalid(std::string("nvfp4 Hadamard transform needs bf16 input, dtype is ") + dtype_name(spec.dtype));
  }
  // Per-tensor S_enc uses the amax of the input (the Hadamard columnwise
  // path computes its own from the transformed values).
  const bool needs_tensor_amax =
      (spec.rowwise && !options.nvfp4_row_scaled) || (spec.columnwise && !options.nvfp4_hadamard);
  const float tensor_amax = needs_tensor_amax ? amax_of(x) : 0.0f;
  // Codes go straight to the output; the compact scales too unless they
  // are swizzled afterwards.
  const bool swizzled = options.gemm_swizzled_scales;
  if (spec.rowwise) {
    uint8_t *data = nullptr, *scales = nullptr, *amax_bytes = nullptr;
    HostBuffer compact;
    const int64_t scale_bytes = row_shape[0] * row_shape[1];
    TP_RETURN_IF_ERROR(out->take("_rowwise_data", m * k / 2, &data));
    if (swizzled) {
      TP_RETURN_IF_ERROR(compact.allocate(scale_bytes, "quantize: _rowwise_scale_inv (before the swizzle)"));
      scales = compact.data();
    } else {
      TP_RETURN_IF_ERROR(out->take_zeroed("_rowwise_scale_inv", scale_bytes, &scales));
    }
    const std::vector<float> amax = nvfp4_rowwise(x, options.nvfp4_row_scaled, tensor_amax, data, scales, row_shape[1]);
    if (swizzled) {
      std::vector<uint8_t> bytes;
      TP_RETURN_IF_ERROR(swizzle_scales(scales, row_shape[0], row_shape[1], false, m, ceildiv(k, 16), &bytes));
      TP_RETURN_IF_ERROR(out->put("_rowwise_scale_inv", bytes));
    }
    TP_RETURN_IF_ERROR(out->take("_amax_rowwise", static_cast<int64_t>(amax.size()) * 4, &amax_bytes));
    for (size_t i = 0; i < amax.size(); ++i) put_f32(amax_bytes, static_cast<int64_t>(i), amax[i]);
    out->amax.insert(out->amax.end(), amax.begin(), amax.end());
  }
  if (spec.columnwise) {
    uint8_t *data = nullptr, *scales = nullptr, *amax_bytes = nullptr;
    HostBuffer compact;
    const int64_t scale_bytes = col_shape[0] * col_shape[1];
    TP_RETURN_IF_ERROR(out->take("_columnwise_data", m * k / 2, &data));
    if (swizzled) {
      TP_RETURN_IF_ERROR(compact.allocate(scale_bytes, "quantize: _columnwise_scale_inv (before the swizzle)"));
      scales = compact.data();
    } else {
      TP_RETURN_IF_ERROR(out->take_zeroed("_columnwise_scale_inv", scale_bytes, &scales));
    }
    float amax = 0.0f;
    TP_RETURN_IF_ERROR(nvfp4_columnwise(x, options.nvfp4_hadamard, options.nvfp4_hadamard_no_signs, tensor_amax, data,
                                        scales, col_shape[1], &amax));
    if (swizzled) {
      std::vector<uint8_t> bytes;
      TP_RETURN_IF_ERROR(swizzle_scales(scales, col_shape[0], col_shape[1], false, k, ceildiv(m, 16), &bytes));
      TP_RETURN_IF_ERROR(out->put("_columnwise_scale_inv", bytes));
    }
    TP_RETURN_IF_ERROR(out->take("_amax_columnwise", 4, &amax_bytes));
    put_f32(amax_bytes, 0, amax);
    out->amax.push_back(amax);
  }
  return Status::ok();
}

Status dequantize_nvfp4(const DequantizeSource& in, uint8_t* out) {
  const TensorSpec& spec = in.spec;
  const int64_t m = in.m, k = in.k;
  auto get = [&](const char* name) { return in.get(name); };
  const FormatOptions& options = spec.options;
  std::vector<float> row(static_cast<size_t>(k));  // one output row, before encode_elements
  const bool rowwise = spec.rowwise;
  std::vector<int64_t> shape;
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, !rowwise, &shape));
  const uint8_t* scales = get(rowwise ? "_rowwise_scale_inv" : "_columnwise_scale_inv");
  std::vector<uint8_t> compact;
  if (options.gemm_swizzled_scales) {
    TP_RETURN_IF_ERROR(unswizzle_scales(scales, shape[0], shape[1], false, &compact));
    scales = compact.data();
  }
  // One stored amax (per tensor) or one per row (row-scaled).
  const uint8_t* amax_bytes = get(rowwise ? "_amax_rowwise" : "_amax_columnwise");
  const int64_t amax_count = in.size(rowwise ? "_amax_rowwise" : "_amax_columnwise") / 4;
  std::vector<float> amax(static_cast<size_t>(amax_count));
  for (size_t i = 0; i < amax.size(); ++i) amax[i] = get_f32(amax_bytes, static_cast<int64_t>(i));
  const uint8_t* data = get(rowwise ? "_rowwise_data" : "_columnwise_data");
  auto amax_of_row = [&](int64_t r) { return amax.size() == 1 ? amax[0] : amax[static_cast<size_t>(r)]; };
  if (rowwise) {
    for (int64_t i = 0; i < m; ++i) {
      dequantize_nvfp4_row(data + i * k / 2, scales + i * shape[1], amax_of_row(i), k, row.data());
      store_row(spec.dtype, row, i, out);
    }
    return Status::ok();
  }
  // Columnwise: the rows of x^T, the Hadamard transform undone, transposed back.
  HostBuffer y_bytes, x_bytes;
  TP_RETURN_IF_ERROR(y_bytes.allocate(k * m * 4, "dequantize: _columnwise_data (fp32 values)"));
  float* y = reinterpret_cast<float*>(y_bytes.data());
  for (int64_t r = 0; r < k; ++r) {
    dequantize_nvfp4_row(data + r * m / 2, scales + r * shape[1], amax_of_row(r), m, y + r * m);
  }
  if (options.nvfp4_hadamard) hadamard_for_dequantize(y, k, m, options.nvfp4_hadamard_no_signs);
  TP_RETURN_IF_ERROR(transpose_to_scratch(y, k, m, "dequantize: _columnwise_data (fp32 values transposed back)", &x_bytes));
  y_bytes = HostBuffer();  // the transposed copy is all that is left to read
  encode_elements(spec.dtype, reinterpret_cast<const float*>(x_bytes.data()), m * k, out);
  return Status::ok();
}

}  // namespace quantize_detail
}  // namespace tp
