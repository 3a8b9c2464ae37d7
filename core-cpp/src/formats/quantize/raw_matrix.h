// What every quantize recipe family shares: the raw input (fp32, bf16 or
// fp16 bytes) read as an m x k matrix a band of rows at a time, the element
// conversions, amax, and cache-friendly transposes. Internal to
// formats/quantize/; the small functions are inline because they run once per
// block or row in the hot loops.
//
// Performance notes. The tensors are large (a 4096 x 4096 weight is 16M
// elements) and the per-element rules are the shared inline functions of
// numeric_formats.h / quantize_math.h, so what this folder controls is memory
// traffic: the input is decoded a row or a band of rows at a time (never into
// one big fp32 copy), every usage is computed from the band that is in cache,
// transposes move one-byte codes rather than fp32 values, and the amax is a
// max and so may be taken in any order (lanes, blocks, bands). Where one
// multiplier serves many elements of a 16-bit input, the casts go through
// tables of the same shared cast applied once to each of the 65536 bit
// patterns (fp8_codes, CodeTables in cast_tables.h).
#ifndef TENSORPLAN_QUANTIZE_RAW_MATRIX_H
#define TENSORPLAN_QUANTIZE_RAW_MATRIX_H

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include <string>

#include "base/host_buffer.h"
#include "base/status.h"
#include "formats/dtype.h"
#include "tensorplan/numerics/numeric_formats.h"
#include "tensorplan/numerics/quantize_math.h"

namespace tp {
namespace quantize_detail {

inline int64_t ceildiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Little-endian fp32 at element `index` of a byte buffer (scale arrays).
inline void put_f32(uint8_t* bytes, int64_t index, float value) { std::memcpy(bytes + index * 4, &value, 4); }

inline float get_f32(const uint8_t* bytes, int64_t index) {
  float value;
  std::memcpy(&value, bytes + index * 4, 4);
  return value;
}

inline float max_finite_of(DType dtype) {
  if (dtype == DType::kBFloat16) return kBF16Max;
  if (dtype == DType::kFloat16) return kFP16Max;
  return FLT_MAX;
}

inline bool is_high_precision(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kBFloat16 || dtype == DType::kFloat16;
}

inline int64_t element_bytes(DType dtype) { return dtype == DType::kFloat32 ? 4 : 2; }

// ---- element conversions ----------------------------------------------------

inline float decode_half(DType dtype, uint16_t bits) {
  return dtype == DType::kBFloat16 ? bf16_to_float(bits) : fp16_to_float(bits);
}

// Exact widening of `count` raw elements of an fp32, bf16 or fp16 dtype. One
// loop per dtype (the dtype test stays out of the element loop).
inline void decode_elements(DType dtype, const uint8_t* bytes, int64_t count, float* out) {
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
inline void encode_elements(DType dtype, const float* values, int64_t count, uint8_t* out) {
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
inline float amax_of(const float* x, int64_t count) {
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
float amax_of(const RawMatrix& x);

// Column maxima of a rows x k band: amax[j] = max(amax[j], |band[i][j]|).
inline void accumulate_column_amax(const float* band, int64_t rows, int64_t k, float* amax) {
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



// transpose_block for one-byte codes: 64 x 64 tiles of 8 x 8 word
// transposes (raw_matrix.cpp).
void transpose_block(const uint8_t* src, int64_t rows, int64_t cols, int64_t src_stride, uint8_t* dst, int64_t dst_stride);

// The m x k row-major matrix x transposed (k x m) into a checked scratch
// buffer named `what` (a full-size copy: OUT_OF_MEMORY when the host cannot
// give it).
template <typename T>
Status transpose_to_scratch(const T* x, int64_t m, int64_t k, const std::string& what, HostBuffer* out) {
  TP_RETURN_IF_ERROR(out->allocate(m * k * static_cast<int64_t>(sizeof(T)), what));
  transpose_block(x, m, k, k, reinterpret_cast<T*>(out->data()), m);
  return Status::ok();
}

}  // namespace quantize_detail
}  // namespace tp

#endif  // TENSORPLAN_QUANTIZE_RAW_MATRIX_H
