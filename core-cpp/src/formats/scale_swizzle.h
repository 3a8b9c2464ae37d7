// GEMM-swizzled scale layout of MXFP8 and NVFP4 (FORMATS.md §4.7): the
// compact scale matrix S (R rows, a multiple of 128; C columns, a multiple of
// 4) is cut into 128x4 tiles of 512 bytes, tiles ordered row-of-tiles major,
// and inside a tile element (i, j) goes to (i%32)*16 + ((i%128)/32)*4 + j%4.
#ifndef TENSORPLAN_SCALE_SWIZZLE_H
#define TENSORPLAN_SCALE_SWIZZLE_H

#include <cstdint>
#include <vector>

#include "tensorplan/numerics/host_device.h"
#include "base/status.h"

namespace tp {

// Position of S(i, j) in the swizzled buffer (cols = C).
TP_HOST_DEVICE inline int64_t swizzled_scale_index(int64_t i, int64_t j, int64_t cols) {
  return ((i / 128) * (cols / 4) + j / 4) * 512 + (i % 32) * 16 + ((i % 128) / 32) * 4 + (j % 4);
}

// Swizzles a row-major source matrix of src_rows x src_cols bytes. With
// `transpose` the matrix swizzled is the source's transpose (MXFP8
// columnwise scales: i = data column, j = 32-row block). R and C are the
// swizzled matrix's dims; entries outside valid_rows x valid_cols (in S
// coordinates) are written as zero, as TE's swizzle kernels do.
Status swizzle_scales(const uint8_t* source, int64_t src_rows, int64_t src_cols, bool transpose,
                      int64_t valid_rows, int64_t valid_cols, std::vector<uint8_t>* out);

// Inverse: rebuilds the row-major source (src_rows x src_cols, transposed back
// when `transpose`) from a swizzled buffer.
Status unswizzle_scales(const uint8_t* swizzled, int64_t src_rows, int64_t src_cols, bool transpose,
                        std::vector<uint8_t>* out);

}  // namespace tp

#endif  // TENSORPLAN_SCALE_SWIZZLE_H
