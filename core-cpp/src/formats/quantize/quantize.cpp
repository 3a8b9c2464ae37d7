#include "formats/quantize/quantize.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "tensorplan/numerics/numeric_formats.h"
#include "formats/scale_swizzle.h"

namespace tp {

// Performance notes. The tensors are large (a 4096 x 4096 weight is 16M
// elements) and the per-element rules are the shared inline functions of
// numeric_formats.h / quantize_math.h, so what this file controls is memory
// traffic: the input is decoded a row or a band of rows at a time (never into
// one big fp32 copy), every usage is computed from the band that is in cache,
// transposes move one-byte codes rather than fp32 values, and the amax is a
// max and so may be taken in any order (lanes, blocks, bands). Where one
// multiplier serves many elements of a 16-bit input, the casts go through
// tables of the same shared cast applied once to each of the 65536 bit
// patterns (fp8_codes, CodeTables).

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

float max_finite_of(DType dtype) {
  if (dtype == DType::kBFloat16) return kBF16Max;
  if (dtype == DType::kFloat16) return kFP16Max;
  return FLT_MAX;
}

bool is_high_precision(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kBFloat16 || dtype == DType::kFloat16;
}

int64_t element_bytes(DType dtype) { return dtype == DType::kFloat32 ? 4 : 2; }

// ---- element conversions ----------------------------------------------------

float decode_half(DType dtype, uint16_t bits) {
  return dtype == DType::kBFloat16 ? bf16_to_float(bits) : fp16_to_float(bits);
}

// Exact widening of `count` raw elements of an fp32, bf16 or fp16 dtype. One
// loop per dtype (the dtype test stays out of the element loop).
void decode_elements(DType dtype, const uint8_t* bytes, int64_t count, float* out) {
  if (count <= 0) return;
  if (dtype == DType::kFloat32) {
    std::memcpy(out, bytes, static_cast<size_t>(count) * 4);
  } else if (dtype == DType::kBFloat16) {
    for (int64_t i = 0; i < count; ++i) {
      uint16_t half;
      std::memcpy(&half, bytes + i * 2, 2);
      out[i] = bf16_to_float(half);
    }
  } else {
    for (int64_t i = 0; i < count; ++i) {
      uint16_t half;
      std::memcpy(&half, bytes + i * 2, 2);
      out[i] = fp16_to_float(half);
    }
  }
}

// The output rule of encode_output for `count` values: NaN made canonical,
// then stored as fp32 or narrowed (RNE) to bf16 / fp16.
void encode_elements(DType dtype, const float* values, int64_t count, uint8_t* out) {
  if (dtype == DType::kFloat32) {
    for (int64_t i = 0; i < count; ++i) {
      const float value = canonical_nan(values[i]);
      std::memcpy(out + i * 4, &value, 4);
    }
  } else if (dtype == DType::kBFloat16) {
    for (int64_t i = 0; i < count; ++i) {
      const uint16_t half = float_to_bf16(canonical_nan(values[i]));
      std::memcpy(out + i * 2, &half, 2);
    }
  } else {
    for (int64_t i = 0; i < count; ++i) {
      const uint16_t half = float_to_fp16(canonical_nan(values[i]));
      std::memcpy(out + i * 2, &half, 2);
    }
  }
}

// fp32 value of every FP8 code, from decode_fp8 (256 calls instead of one
// per element).
struct Fp8Decoded {
  float value[256];
  explicit Fp8Decoded(bool e5m2) {
    for (int code = 0; code < 256; ++code) value[code] = decode_fp8(e5m2, static_cast<uint8_t>(code));
  }
};

// ---- the raw input as a matrix ----------------------------------------------

// The input bytes as an m x k row-major matrix of fp32, bf16 or fp16.
struct RawMatrix {
  DType dtype;
  const uint8_t* bytes;
  int64_t m, k;

  // Decodes rows [first, first + count) into out (count * k values).
  void decode_rows(int64_t first, int64_t count, float* out) const {
    decode_elements(dtype, bytes + first * k * element_bytes(dtype), count * k, out);
  }
};

// max |x| over `count` contiguous values; NaN is skipped like fmaxf does.
// Independent lanes (which the compiler keeps in vector registers) give the
// same value as one running max: the max does not depend on order.
float amax_of(const float* x, int64_t count) {
  constexpr int kLanes = 16;
  float lane[kLanes] = {};
  const int64_t full = count - count % kLanes;
  for (int64_t i = 0; i < full; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lane[l] = fmax_ignoring_nan(lane[l], std::fabs(x[i + l]));
  }
  float amax = 0.0f;
  for (int64_t i = full; i < count; ++i) amax = fmax_ignoring_nan(amax, std::fabs(x[i]));
  for (int l = 0; l < kLanes; ++l) amax = fmax_ignoring_nan(amax, lane[l]);
  return amax;
}

// amax of the whole input, decoded a chunk at a time.
float amax_of(const RawMatrix& x) {
  constexpr int64_t kChunk = 4096;
  std::vector<float> chunk(static_cast<size_t>(kChunk));
  const int64_t numel = x.m * x.k, element = element_bytes(x.dtype);
  float amax = 0.0f;
  for (int64_t first = 0; first < numel; first += kChunk) {
    const int64_t count = std::min(kChunk, numel - first);
    decode_elements(x.dtype, x.bytes + first * element, count, chunk.data());
    amax = fmax_ignoring_nan(amax, amax_of(chunk.data(), count));
  }
  return amax;
}

// Column maxima of a rows x k band: amax[j] = max(amax[j], |band[i][j]|).
void accumulate_column_amax(const float* band, int64_t rows, int64_t k, float* amax) {
  for (int64_t i = 0; i < rows; ++i) {
    const float* row = band + i * k;
    for (int64_t j = 0; j < k; ++j) amax[j] = fmax_ignoring_nan(amax[j], std::fabs(row[j]));
  }
}

// dst[j * dst_stride + i] = src[i * src_stride + j] for a rows x cols block,
// in 32 x 32 tiles so that both sides stay in cache.
template <typename T>
void transpose_block(const T* src, int64_t rows, int64_t cols, int64_t src_stride, T* dst, int64_t dst_stride) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i_end = std::min(rows, i0 + kTile), j_end = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i_end; ++i) {
        for (int64_t j = j0; j < j_end; ++j) dst[j * dst_stride + i] = src[i * src_stride + j];
      }
    }
  }
}

// Transposes one 8 x 8 block of bytes through eight 64-bit words (rows
// loaded little-endian, as on every target of the core: x86, ARM, WASM):
// swapping the off-diagonal 4x4, then 2x2, then 1x1 sub-blocks leaves word c
// holding column c.
void transpose_8x8_bytes(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t dst_stride) {
  uint64_t row[8];
  for (int r = 0; r < 8; ++r) std::memcpy(&row[r], src + r * src_stride, 8);
  for (int r = 0; r < 4; ++r) {
    const uint64_t t = ((row[r] >> 32) ^ row[r + 4]) & 0x00000000FFFFFFFFull;
    row[r] ^= t << 32;
    row[r + 4] ^= t;
  }
  for (int r : {0, 1, 4, 5}) {
    const uint64_t t = ((row[r] >> 16) ^ row[r + 2]) & 0x0000FFFF0000FFFFull;
    row[r] ^= t << 16;
    row[r + 2] ^= t;
  }
  for (int r : {0, 2, 4, 6}) {
    const uint64_t t = ((row[r] >> 8) ^ row[r + 1]) & 0x00FF00FF00FF00FFull;
    row[r] ^= t << 8;
    row[r + 1] ^= t;
  }
  for (int c = 0; c < 8; ++c) std::memcpy(dst + c * dst_stride, &row[c], 8);
}

// transpose_block for one-byte codes: 64 x 64 tiles of 8 x 8 word
// transposes (about 4x faster than moving single bytes); ragged edges go
// byte by byte.
void transpose_block(const uint8_t* src, int64_t rows, int64_t cols, int64_t src_stride, uint8_t* dst, int64_t dst_stride) {
  constexpr int64_t kTile = 64;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i_end = std::min(rows, i0 + kTile), j_end = std::min(cols, j0 + kTile);
      int64_t i = i0;
      for (; i + 8 <= i_end; i += 8) {
        int64_t j = j0;
        for (; j + 8 <= j_end; j += 8) {
          transpose_8x8_bytes(src + i * src_stride + j, src_stride, dst + j * dst_stride + i, dst_stride);
        }
        transpose_block<uint8_t>(src + i * src_stride + j, 8, j_end - j, src_stride, dst + j * dst_stride + i, dst_stride);
      }
      transpose_block<uint8_t>(src + i * src_stride + j0, i_end - i, j_end - j0, src_stride, dst + j0 * dst_stride + i,
                               dst_stride);
    }
  }
}

template <typename T>
std::vector<T> transpose(const std::vector<T>& x, int64_t m, int64_t k) {
  std::vector<T> t(static_cast<size_t>(m * k));
  transpose_block(x.data(), m, k, k, t.data(), m);
  return t;
}

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

// ---- per-tensor FP8 (§4.3, §4.4) -------------------------------------------

// A 16-bit input has only 65536 values: above this size each is encoded once
// into a table and the codes are looked up (the same encode_fp8 calls on the
// same products, far fewer of them).
constexpr int64_t kHalfTableMinElements = int64_t{1} << 16;

// encode_fp8(x * scale) of every element, in the input's row-major order.
std::vector<uint8_t> fp8_codes(const RawMatrix& x, bool e5m2, float scale) {
  const int64_t numel = x.m * x.k;
  std::vector<uint8_t> q(static_cast<size_t>(numel));
  if (x.dtype != DType::kFloat32 && numel >= kHalfTableMinElements) {
    std::vector<uint8_t> code_of(65536);
    for (uint32_t bits = 0; bits < 65536; ++bits) {
      code_of[bits] = encode_fp8(e5m2, decode_half(x.dtype, static_cast<uint16_t>(bits)) * scale);
    }
    for (int64_t i = 0; i < numel; ++i) {
      uint16_t half;
      std::memcpy(&half, x.bytes + i * 2, 2);
      q[static_cast<size_t>(i)] = code_of[half];
    }
    return q;
  }
  std::vector<float> row(static_cast<size_t>(x.k));
  for (int64_t i = 0; i < x.m; ++i) {
    x.decode_rows(i, 1, row.data());
    uint8_t* out = q.data() + i * x.k;
    for (int64_t j = 0; j < x.k; ++j) out[j] = encode_fp8(e5m2, row[static_cast<size_t>(j)] * scale);
  }
  return q;
}

struct Fp8PerTensor {
  std::vector<uint8_t> data, transpose_bytes, scale_inv;
  float amax = 0;
};

void quantize_fp8_per_tensor(const TensorSpec& spec, const RawMatrix& x, const QuantizeParams& params, bool want_data,
                             bool want_transpose, Fp8PerTensor* out) {
  const DType format = spec.options.fp8_dtype;
  out->amax = amax_of(x);
  float scale = params.delayed_scale;
  if (spec.recipe == Recipe::kFp8Current) {
    scale = compute_scale_from_amax(out->amax, fp8_max_of(format), spec.options.pow2_scales, params.amax_epsilon, FLT_MAX);
  }
  if (want_data || want_transpose) {
    std::vector<uint8_t> q = fp8_codes(x, format == DType::kFloat8E5M2, scale);
    if (want_transpose) out->transpose_bytes = transpose(q, x.m, x.k);
    if (want_data) out->data = std::move(q);
  }
  out->scale_inv.resize(4);
  put_f32(&out->scale_inv, 0, canonical_nan(divide_rn(1.0f, scale)));
}

// ---- cast tables for bf16 values ----------------------------------------------

// The narrow casts of the block formats, as functors for CodeTables.
struct CastFp8 {
  bool e5m2;
  uint8_t operator()(float v) const { return encode_fp8(e5m2, v); }
};
struct CastE2m1 {
  uint8_t operator()(float v) const { return float_to_e2m1(v); }
};

// The bit pattern of a bf16 value held in an fp32 (its low 16 bits are zero).
uint16_t bf16_bits(float v) { return static_cast<uint16_t>(float_bits(v) >> 16); }

// Codes of bf16 values times a block multiplier, through lookup tables. The
// casts branch on every element (E2M1 in a way no predictor learns), so a
// lookup is several times faster, and it is exact: a bf16 value has 65536 bit
// patterns, and within one tensor a block's multiplier is a function of its
// scale code (E8M0 for MXFP8; E4M3 with the tensor's one S_enc for NVFP4).
// Once a scale code has served as many elements as a table has entries, each
// pattern is cast once with that code's multiplier into its table.
template <typename Cast>
class CodeTables {
 public:
  explicit CodeTables(Cast cast) : cast_(cast) {}

  // The table of `code` (whose multiplier is `multiplier`) for `count` more
  // elements: table[bf16_bits(v)] == cast(v * multiplier). Null while casting
  // directly is still cheaper than building it.
  const uint8_t* find(uint8_t code, float multiplier, int64_t count) {
    Table& table = tables_[code];
    if (table.code.empty()) {
      table.elements_seen += count;
      if (table.elements_seen < 65536) return nullptr;
      table.multiplier = multiplier;
      table.code.resize(65536);
      for (uint32_t bits = 0; bits < 65536; ++bits) {
        table.code[bits] = cast_(bf16_to_float(static_cast<uint16_t>(bits)) * multiplier);
      }
    }
    // Never fails while one code means one multiplier; keeps a misused table exact.
    if (float_bits(table.multiplier) != float_bits(multiplier)) return nullptr;
    return table.code.data();
  }

 private:
  struct Table {
    int64_t elements_seen = 0;
    float multiplier = 0;
    std::vector<uint8_t> code;  // by bf16 bit pattern; empty until built
  };
  Cast cast_;
  Table tables_[256];
};

// ---- MXFP8 (§4.5) ------------------------------------------------------------

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

// ---- NVFP4 (§4.6) ------------------------------------------------------------

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
float nvfp4_columnwise(const RawMatrix& x, bool hadamard, bool no_signs, float tensor_amax, uint8_t* data,
                       uint8_t* scales, int64_t scale_stride) {
  const int64_t bands = x.m / 16, band_size = 16 * x.k;
  std::vector<float> rows(static_cast<size_t>(band_size));
  std::vector<float> transformed;  // every band's blocks, Hadamard only
  float amax = tensor_amax;
  if (hadamard) {
    transformed.resize(static_cast<size_t>(bands * band_size));
    for (int64_t b = 0; b < bands; ++b) column_blocks(x, b, &rows, transformed.data() + b * band_size, true, no_signs);
    amax = amax_of(transformed.data(), bands * band_size);
  }
  const float s_enc = nvfp4_global_encode_scale(amax);
  // The Hadamard transform rounds to bf16, so its output can use the tables too.
  const bool use_tables = x.dtype == DType::kBFloat16;
  std::unique_ptr<CodeTables<CastE2m1>> tables(use_tables ? new CodeTables<CastE2m1>(CastE2m1()) : nullptr);
  std::vector<float> blocks(hadamard ? 0 : static_cast<size_t>(band_size));
  for (int64_t b = 0; b < bands; ++b) {
    const float* band_blocks = hadamard ? transformed.data() + b * band_size : blocks.data();
    if (!hadamard) column_blocks(x, b, &rows, blocks.data(), false, no_signs);
    for (int64_t j = 0; j < x.k; ++j) {
      nvfp4_blocks(band_blocks + j * 16, 1, s_enc, data + (j * x.m + b * 16) / 2, scales + j * scale_stride + b, 1,
                   tables.get());
    }
  }
  return amax;
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

// ---- FP8 block (§2.4) --------------------------------------------------------

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

const std::vector<uint8_t>* find_bytes(const std::vector<BufferSpec>& specs, const std::vector<std::vector<uint8_t>>& bytes,
                                       const std::string& name) {
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name == name) return &bytes[i];
  }
  return nullptr;
}

Status check_input(DType dtype, const uint8_t* bytes, int64_t byte_count, int64_t numel) {
  if (!is_high_precision(dtype)) {
    return Status::invalid(std::string("input dtype = ") + dtype_name(dtype) + ": must be fp32, bf16 or fp16");
  }
  const int64_t element = element_bytes(dtype);
  if (byte_count != numel * element) {
    return Status::invalid("input bytes = " + std::to_string(byte_count) + ": expected " + std::to_string(numel * element) +
                           " (" + std::to_string(numel) + " " + dtype_name(dtype) + " elements)");
  }
  if (numel > 0 && bytes == nullptr) return Status::invalid("input is NULL");
  return Status::ok();
}

// Dequantize writes the output a row at a time: values of row i to out.
void store_row(DType dtype, const std::vector<float>& values, int64_t i, std::vector<uint8_t>* out) {
  const int64_t k = static_cast<int64_t>(values.size());
  encode_elements(dtype, values.data(), k, out->data() + i * k * element_bytes(dtype));
}

}  // namespace

// ---- public helpers ---------------------------------------------------------

Status decode_input(DType dtype, const uint8_t* bytes, int64_t byte_count, int64_t numel, std::vector<float>* out) {
  TP_RETURN_IF_ERROR(check_input(dtype, bytes, byte_count, numel));
  out->resize(static_cast<size_t>(numel));
  decode_elements(dtype, bytes, numel, out->data());
  return Status::ok();
}

Status encode_output(DType dtype, const std::vector<float>& values, std::vector<uint8_t>* out) {
  if (!is_high_precision(dtype)) {
    return Status::invalid(std::string("output dtype = ") + dtype_name(dtype) + ": must be fp32, bf16 or fp16");
  }
  out->resize(values.size() * static_cast<size_t>(element_bytes(dtype)));
  encode_elements(dtype, values.data(), static_cast<int64_t>(values.size()), out->data());
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
  TP_RETURN_IF_ERROR(check_input(spec.dtype, input, input_bytes, m * k));
  const RawMatrix x{spec.dtype, input, m, k};
  const FormatOptions& options = spec.options;
  const DType format = options.fp8_dtype;
  const bool e5m2 = format == DType::kFloat8E5M2;
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
      quantize_fp8_per_tensor(spec, x, params, has_data, has_transpose, &fp8);
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
      // Bands of 32 rows: each is decoded once and gives its rowwise blocks
      // (1 x 32) and its columnwise blocks (32 x 1). Block b of column j
      // stores its scale at (b, j) of the compact array; data keeps the
      // logical layout for both usages.
      std::vector<uint8_t> row_q, row_scales, col_q, col_scales;
      if (spec.rowwise) {
        row_q.resize(static_cast<size_t>(m * k));
        row_scales.assign(static_cast<size_t>(row_shape[0] * row_shape[1]), 0);
      }
      if (spec.columnwise) {
        col_q.resize(static_cast<size_t>(m * k));
        col_scales.assign(static_cast<size_t>(col_shape[0] * col_shape[1]), 0);
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
            amax = fmax_ignoring_nan(amax, mxfp8_row(band.data() + i * k, k, e5m2, tables.get(), row_q.data() + row * k,
                                                     row_scales.data() + row * row_shape[1]));
          }
        }
        if (spec.columnwise) {
          amax = fmax_ignoring_nan(amax, mxfp8_column_band(band.data(), k, e5m2, tables.get(), col_q.data() + b * 32 * k,
                                                           col_scales.data() + b * col_shape[1]));
        }
      }
      if (!spec.rowwise && !spec.columnwise) amax = amax_of(x);
      if (spec.rowwise) {
        if (options.gemm_swizzled_scales) {
          std::vector<uint8_t> swizzled;
          TP_RETURN_IF_ERROR(swizzle_scales(row_scales.data(), row_shape[0], row_shape[1], false, m, k / 32, &swizzled));
          row_scales = std::move(swizzled);
        }
        named.emplace_back("_rowwise_data", std::move(row_q));
        named.emplace_back("_rowwise_scale_inv", std::move(row_scales));
      }
      if (spec.columnwise) {
        if (options.gemm_swizzled_scales) {
          std::vector<uint8_t> swizzled;
          TP_RETURN_IF_ERROR(swizzle_scales(col_scales.data(), col_shape[0], col_shape[1], true, k, m / 32, &swizzled));
          col_scales = std::move(swizzled);
        }
        named.emplace_back("_columnwise_data", std::move(col_q));
        named.emplace_back("_columnwise_scale_inv", std::move(col_scales));
      }
      result.amax = {amax};
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
      if (spec.columnwise && options.nvfp4_hadamard && spec.dtype != DType::kBFloat16) {
        return Status::invalid(std::string("nvfp4 Hadamard transform needs bf16 input, dtype is ") + dtype_name(spec.dtype));
      }
      // Per-tensor S_enc uses the amax of the input (the Hadamard columnwise
      // path computes its own from the transformed values).
      const bool needs_tensor_amax =
          (spec.rowwise && !options.nvfp4_row_scaled) || (spec.columnwise && !options.nvfp4_hadamard);
      const float tensor_amax = needs_tensor_amax ? amax_of(x) : 0.0f;
      if (spec.rowwise) {
        std::vector<uint8_t> data(static_cast<size_t>(m * k / 2));
        std::vector<uint8_t> scales(static_cast<size_t>(row_shape[0] * row_shape[1]), 0);
        const std::vector<float> amax =
            nvfp4_rowwise(x, options.nvfp4_row_scaled, tensor_amax, data.data(), scales.data(), row_shape[1]);
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
        std::vector<uint8_t> data(static_cast<size_t>(m * k / 2));
        std::vector<uint8_t> scales(static_cast<size_t>(col_shape[0] * col_shape[1]), 0);
        const float amax = nvfp4_columnwise(x, options.nvfp4_hadamard, options.nvfp4_hadamard_no_signs, tensor_amax,
                                            data.data(), scales.data(), col_shape[1]);
        if (options.gemm_swizzled_scales) {
          std::vector<uint8_t> swizzled;
          TP_RETURN_IF_ERROR(swizzle_scales(scales.data(), col_shape[0], col_shape[1], false, k, ceildiv(m, 16), &swizzled));
          scales = std::move(swizzled);
        }
        std::vector<uint8_t> amax_bytes(4);
        put_f32(&amax_bytes, 0, amax);
        named.emplace_back("_columnwise_data", std::move(data));
        named.emplace_back("_columnwise_scale_inv", std::move(scales));
        named.emplace_back("_amax_columnwise", std::move(amax_bytes));
        result.amax.push_back(amax);
      }
      break;
    }
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D: {
      const bool two_d = spec.recipe == Recipe::kFp8Block2D;
      const bool use_tables = spec.dtype == DType::kBFloat16 && options.pow2_scales;
      std::unique_ptr<CodeTables<CastFp8>> tables(use_tables ? new CodeTables<CastFp8>(CastFp8{e5m2}) : nullptr);
      const BlockScaling scaling{e5m2, options.pow2_scales, params.amax_epsilon, max_finite_of(spec.dtype), tables.get()};
      std::vector<int64_t> row_shape, col_shape;
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, false, &row_shape));
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, true, &col_shape));
      const int64_t blocks_m = ceildiv(m, 128), blocks_k = ceildiv(k, 128);
      float amax = 0.0f;
      // 2D: one pass gives the codes of both usages (columnwise = transposed).
      std::vector<uint8_t> codes_2d;
      std::vector<float> tile_inv_2d;
      if (two_d && (spec.rowwise || spec.columnwise)) {
        codes_2d.resize(static_cast<size_t>(m * k));
        tile_inv_2d.resize(static_cast<size_t>(blocks_m * blocks_k));
        amax = block_2d(x, scaling, codes_2d.data(), &tile_inv_2d);
      }
      if (spec.columnwise) {
        std::vector<uint8_t> q;
        std::vector<float> tile_inv;
        if (two_d) {
          q = transpose(codes_2d, m, k);
        } else {
          q.resize(static_cast<size_t>(m * k));
          tile_inv.resize(static_cast<size_t>(k * blocks_m));
          amax = block_1d_columnwise(x, scaling, q.data(), &tile_inv);
        }
        std::vector<uint8_t> scales(static_cast<size_t>(col_shape[0] * col_shape[1] * 4), 0);
        for (int64_t tk = 0; tk < (two_d ? blocks_k : k); ++tk) {
          for (int64_t mb = 0; mb < blocks_m; ++mb) {
            // 1D: (k, mb) at mb*roundup(K,4)+k; 2D: (kb, mb) at kb*roundup(nMB,4)+mb.
            const int64_t at = two_d ? tk * col_shape[1] + mb : mb * col_shape[1] + tk;
            const float inv = two_d ? tile_inv_2d[static_cast<size_t>(mb * blocks_k + tk)]
                                    : tile_inv[static_cast<size_t>(tk * blocks_m + mb)];
            put_f32(&scales, at, inv);
          }
        }
        named.emplace_back("_columnwise_data", std::move(q));
        named.emplace_back("_columnwise_scale_inv", std::move(scales));
      }
      if (spec.rowwise) {
        std::vector<uint8_t> q;
        std::vector<float> tile_inv;
        if (two_d) {
          q = std::move(codes_2d);
          tile_inv = std::move(tile_inv_2d);
        } else {
          q.resize(static_cast<size_t>(m * k));
          tile_inv.resize(static_cast<size_t>(m * blocks_k));
          amax = block_1d_rowwise(x, scaling, q.data(), &tile_inv);
        }
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
      if (!spec.rowwise && !spec.columnwise) amax = amax_of(x);
      result.amax = {amax};
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
  const bool e5m2 = spec.options.fp8_dtype == DType::kFloat8E5M2;
  const FormatOptions& options = spec.options;
  auto get = [&](const char* name) { return find_bytes(specs, buffers, name); };
  if (spec.recipe == Recipe::kNone) {
    *out = buffers[0];
    return Status::ok();
  }
  const Status no_usage = Status::invalid("dequantize: the spec has no data buffer (no usage)");
  // FP8 per-tensor specs keep _data without usages; the block formats have
  // no data buffer then.
  if (!is_fp8_per_tensor(spec.recipe) && !spec.rowwise && !spec.columnwise) return no_usage;
  if (!is_high_precision(spec.dtype)) {
    return Status::invalid(std::string("output dtype = ") + dtype_name(spec.dtype) + ": must be fp32, bf16 or fp16");
  }
  out->resize(static_cast<size_t>(m * k * element_bytes(spec.dtype)));
  const Fp8Decoded fp8(e5m2);
  std::vector<float> row(static_cast<size_t>(k));  // one output row, before encode_elements

  switch (spec.recipe) {
    case Recipe::kNone:
      break;
    case Recipe::kFp8Delayed:
    case Recipe::kFp8Current: {
      // One scale for the tensor: each of the 256 codes has one output
      // value, encoded once into a table.
      const float scale_inv = get_f32(*get("_scale_inv"), 0);
      const std::vector<uint8_t>* data = get("_data");
      const std::vector<uint8_t>* t = get("_transpose");
      if (data == nullptr && t == nullptr) return no_usage;
      std::vector<uint8_t> from_transpose;
      if (data == nullptr) {
        from_transpose = transpose(*t, k, m);
        data = &from_transpose;
      }
      float value[256];
      for (int code = 0; code < 256; ++code) value[code] = fp8.value[code] * scale_inv;
      const int64_t element = element_bytes(spec.dtype);
      uint8_t table[256 * 4];
      encode_elements(spec.dtype, value, 256, table);
      const uint8_t* codes = data->data();
      uint8_t* bytes = out->data();
      if (element == 2) {
        uint16_t half[256];
        std::memcpy(half, table, sizeof half);
        for (int64_t i = 0; i < m * k; ++i) std::memcpy(bytes + i * 2, &half[codes[i]], 2);
      } else {
        uint32_t word[256];
        std::memcpy(word, table, sizeof word);
        for (int64_t i = 0; i < m * k; ++i) std::memcpy(bytes + i * 4, &word[codes[i]], 4);
      }
      break;
    }
    case Recipe::kMxfp8: {
      const bool rowwise = spec.rowwise;
      std::vector<int64_t> shape;
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, !rowwise, &shape));
      const std::vector<uint8_t>& data = *get(rowwise ? "_rowwise_data" : "_columnwise_data");
      const std::vector<uint8_t>* scales = get(rowwise ? "_rowwise_scale_inv" : "_columnwise_scale_inv");
      std::vector<uint8_t> compact;
      if (options.gemm_swizzled_scales) {
        TP_RETURN_IF_ERROR(unswizzle_scales(scales->data(), shape[0], shape[1], !rowwise, &compact));
        scales = &compact;
      }
      std::vector<float> column_scale(static_cast<size_t>(k));
      for (int64_t i = 0; i < m; ++i) {
        const uint8_t* codes = data.data() + i * k;
        if (rowwise) {
          for (int64_t b = 0; b < k / 32; ++b) {
            const float scale = e8m0_to_float((*scales)[static_cast<size_t>(i * shape[1] + b)]);
            for (int64_t j = b * 32; j < b * 32 + 32; ++j) row[static_cast<size_t>(j)] = fp8.value[codes[j]] * scale;
          }
        } else {
          if (i % 32 == 0) {
            for (int64_t j = 0; j < k; ++j) {
              column_scale[static_cast<size_t>(j)] = e8m0_to_float((*scales)[static_cast<size_t>((i / 32) * shape[1] + j)]);
            }
          }
          for (int64_t j = 0; j < k; ++j) row[static_cast<size_t>(j)] = fp8.value[codes[j]] * column_scale[static_cast<size_t>(j)];
        }
        store_row(spec.dtype, row, i, out);
      }
      break;
    }
    case Recipe::kNvfp4: {
      const bool rowwise = spec.rowwise;
      std::vector<int64_t> shape;
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, !rowwise, &shape));
      const std::vector<uint8_t>* scales = get(rowwise ? "_rowwise_scale_inv" : "_columnwise_scale_inv");
      std::vector<uint8_t> compact;
      if (options.gemm_swizzled_scales) {
        TP_RETURN_IF_ERROR(unswizzle_scales(scales->data(), shape[0], shape[1], false, &compact));
        scales = &compact;
      }
      const std::vector<uint8_t>& amax_bytes = *get(rowwise ? "_amax_rowwise" : "_amax_columnwise");
      std::vector<float> amax(amax_bytes.size() / 4);
      for (size_t i = 0; i < amax.size(); ++i) amax[i] = get_f32(amax_bytes, static_cast<int64_t>(i));
      const uint8_t* data = get(rowwise ? "_rowwise_data" : "_columnwise_data")->data();
      auto amax_of_row = [&](int64_t r) { return amax.size() == 1 ? amax[0] : amax[static_cast<size_t>(r)]; };
      if (rowwise) {
        for (int64_t i = 0; i < m; ++i) {
          dequantize_nvfp4_row(data + i * k / 2, scales->data() + i * shape[1], amax_of_row(i), k, row.data());
          store_row(spec.dtype, row, i, out);
        }
        break;
      }
      // Columnwise: the rows of x^T, the Hadamard transform undone, transposed back.
      std::vector<float> y(static_cast<size_t>(k * m));
      for (int64_t r = 0; r < k; ++r) {
        dequantize_nvfp4_row(data + r * m / 2, scales->data() + r * shape[1], amax_of_row(r), m, y.data() + r * m);
      }
      if (options.nvfp4_hadamard) hadamard_for_dequantize(y.data(), k, m, options.nvfp4_hadamard_no_signs);
      y = transpose(y, k, m);
      encode_elements(spec.dtype, y.data(), m * k, out->data());
      break;
    }
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D: {
      const bool rowwise = spec.rowwise;
      const bool two_d = spec.recipe == Recipe::kFp8Block2D;
      std::vector<int64_t> shape;
      TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, !rowwise, &shape));
      const std::vector<uint8_t>* data = get(rowwise ? "_rowwise_data" : "_columnwise_data");
      const std::vector<uint8_t>& scales = *get(rowwise ? "_rowwise_scale_inv" : "_columnwise_scale_inv");
      std::vector<uint8_t> from_columnwise;
      if (!rowwise) {
        from_columnwise = transpose(*data, k, m);
        data = &from_columnwise;
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
        const uint8_t* codes = data->data() + i * k;
        for (int64_t j = 0; j < k; ++j) row[static_cast<size_t>(j)] = fp8.value[codes[j]] * scale[static_cast<size_t>(j)];
        store_row(spec.dtype, row, i, out);
      }
      break;
    }
  }
  return Status::ok();
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
