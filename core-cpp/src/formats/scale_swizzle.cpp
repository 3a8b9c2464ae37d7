#include "formats/scale_swizzle.h"

#include <string>

namespace tp {

namespace {

Status check_dims(int64_t src_rows, int64_t src_cols, bool transpose, int64_t* rows, int64_t* cols) {
  if (src_rows < 0 || src_cols < 0) {
    return Status::invalid("scale matrix " + std::to_string(src_rows) + " x " + std::to_string(src_cols) +
                           ": dims must be >= 0");
  }
  *rows = transpose ? src_cols : src_rows;
  *cols = transpose ? src_rows : src_cols;
  if (*rows % 128 != 0 || *cols % 4 != 0) {
    return Status::invalid("swizzled scale matrix " + std::to_string(*rows) + " x " + std::to_string(*cols) +
                           ": rows must be a multiple of 128 and columns a multiple of 4");
  }
  return Status::ok();
}

}  // namespace

Status swizzle_scales(const uint8_t* source, int64_t src_rows, int64_t src_cols, bool transpose,
                      int64_t valid_rows, int64_t valid_cols, std::vector<uint8_t>* out) {
  int64_t rows = 0, cols = 0;
  TP_RETURN_IF_ERROR(check_dims(src_rows, src_cols, transpose, &rows, &cols));
  out->assign(static_cast<size_t>(rows * cols), 0);
  for (int64_t i = 0; i < rows && i < valid_rows; ++i) {
    for (int64_t j = 0; j < cols && j < valid_cols; ++j) {
      const int64_t src = transpose ? j * src_cols + i : i * src_cols + j;
      (*out)[static_cast<size_t>(swizzled_scale_index(i, j, cols))] = source[src];
    }
  }
  return Status::ok();
}

Status unswizzle_scales(const uint8_t* swizzled, int64_t src_rows, int64_t src_cols, bool transpose,
                        std::vector<uint8_t>* out) {
  int64_t rows = 0, cols = 0;
  TP_RETURN_IF_ERROR(check_dims(src_rows, src_cols, transpose, &rows, &cols));
  out->assign(static_cast<size_t>(rows * cols), 0);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t dst = transpose ? j * src_cols + i : i * src_cols + j;
      (*out)[static_cast<size_t>(dst)] = swizzled[swizzled_scale_index(i, j, cols)];
    }
  }
  return Status::ok();
}

}  // namespace tp
