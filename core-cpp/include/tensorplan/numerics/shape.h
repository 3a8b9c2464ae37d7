// How every executor reads a shape as a matrix: the one definition of the
// element count, the rows (all dims but the last) and the columns (the last
// dim). The reference kernels, the CUDA executor and the quantize kernels
// all use these, so a shape such as [R, 0] is R rows of 0 columns everywhere
// (not 0 rows, which dividing the element count by the last dim would give).
// Header-only and TP_HOST_DEVICE-free: nvcc compiles it for host code.
#ifndef TENSORPLAN_SHAPE_H
#define TENSORPLAN_SHAPE_H

#include <cstdint>
#include <vector>

namespace tp {

// Product of all dims; 1 for a scalar (rank 0).
inline int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// M = product of all dims but the last (1 for rank 0 and rank 1).
inline int64_t leading_rows(const std::vector<int64_t>& shape) {
  int64_t m = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) m *= shape[d];
  return m;
}

// K = the last dim (1 for rank 0).
inline int64_t last_dim(const std::vector<int64_t>& shape) { return shape.empty() ? 1 : shape.back(); }

// The names the kernels use: a row-wise op (norms, softmax) runs rows_of
// rows of cols_of elements each.
inline int64_t rows_of(const std::vector<int64_t>& shape) { return leading_rows(shape); }
inline int64_t cols_of(const std::vector<int64_t>& shape) { return last_dim(shape); }

}  // namespace tp

#endif  // TENSORPLAN_SHAPE_H
