// The out-of-line parts of raw_matrix.h: the chunked amax of a whole input
// and the byte transpose.
#include "formats/quantize/raw_matrix.h"

namespace tp {
namespace quantize_detail {
namespace {

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

}  // namespace

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

}  // namespace quantize_detail
}  // namespace tp
