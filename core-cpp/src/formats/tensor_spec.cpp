#include "formats/tensor_spec.h"

#include <algorithm>

#include "formats/bulk_layout.h"

namespace tp {

namespace {

int64_t ceildiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t roundup(int64_t a, int64_t b) { return ceildiv(a, b) * b; }

Status shape_rule_error(const TensorSpec& spec, const std::string& rule, const std::string& got) {
  return Status::invalid(std::string(recipe_name(spec.recipe)) + " cannot quantize shape " +
                         shape_to_string(spec.shape) + ": needs " + rule + ", got " + got);
}

// (K, d0, ..., dn-2): the last dim moved to the front (FP8 transposes).
std::vector<int64_t> last_dim_first(const std::vector<int64_t>& shape) {
  std::vector<int64_t> out;
  out.push_back(shape.back());
  out.insert(out.end(), shape.begin(), shape.end() - 1);
  return out;
}

Status make_buffer(const std::string& name, std::vector<int64_t> shape, DType dtype, DType element,
                   BufferRole role, bool columnwise, BufferSpec* out) {
  BufferSpec buffer;
  buffer.name = name;
  buffer.shape = std::move(shape);
  buffer.dtype = dtype;
  buffer.element = element;
  buffer.role = role;
  buffer.columnwise = columnwise;
  buffer.alignment = role == BufferRole::kData ? kDataAlignment : kScaleAlignment;
  Status status = dense_bytes(buffer.shape, dtype, &buffer.bytes);
  if (!status.is_ok()) return Status(status.code(), name + ": " + status.message());
  *out = std::move(buffer);
  return Status::ok();
}

bool has_buffer(const std::vector<BufferSpec>& buffers, const std::string& name) {
  for (const BufferSpec& buffer : buffers) {
    if (buffer.name == name) return true;
  }
  return false;
}

}  // namespace

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) text += ", ";
    text += std::to_string(shape[d]);
  }
  return text + "]";
}

Status validate_tensor_spec(const TensorSpec& spec) {
  int64_t numel = 1;
  for (size_t d = 0; d < spec.shape.size(); ++d) {
    if (spec.shape[d] < 0) {
      return Status::invalid("shape[" + std::to_string(d) + "] = " + std::to_string(spec.shape[d]) +
                             ": must be >= 0");
    }
    TP_RETURN_IF_ERROR(checked_mul(numel, spec.shape[d], "element count of " + shape_to_string(spec.shape), &numel));
  }
  if (!is_quantized(spec.recipe)) return Status::ok();
  const std::string recipe = recipe_name(spec.recipe);
  if (spec.shape.empty()) {
    return Status::invalid(recipe + " cannot quantize a 0-d tensor: shape must have at least one dim");
  }
  if (spec.dtype != DType::kFloat32 && spec.dtype != DType::kBFloat16 && spec.dtype != DType::kFloat16) {
    return Status::invalid(std::string("dtype = ") + dtype_name(spec.dtype) + ": " + recipe +
                           " quantizes fp32, bf16 or fp16 tensors only");
  }
  const FormatOptions& options = spec.options;
  if (spec.recipe != Recipe::kNvfp4 &&
      (options.nvfp4_row_scaled || options.nvfp4_hadamard || options.nvfp4_hadamard_no_signs)) {
    return Status::invalid("options: nvfp4_row_scaled / nvfp4_hadamard apply only to nvfp4, recipe is " + recipe);
  }
  const int64_t m = leading_rows(spec.shape);
  const int64_t k = last_dim(spec.shape);
  // TE's MXFP8 and block FP8 get_scale_shape compute M as numel / K
  // (MXFP8Quantizer::get_scale_shape, Float8BlockQuantizer::get_scale_shape
  // in pytorch/csrc/quantizer.cpp, TE d0067d0da6): K = 0 divides by zero there.
  if ((spec.recipe == Recipe::kMxfp8 || is_fp8_block(spec.recipe)) && k == 0) {
    return shape_rule_error(spec, "K > 0 (K = last dim; TE's get_scale_shape divides the element count by K)", "K = 0");
  }
  switch (spec.recipe) {
    case Recipe::kMxfp8:
      if (m % 32 != 0) {
        return shape_rule_error(spec, "M % 32 == 0 (M = product of all dims but the last)",
                                "M = " + std::to_string(m));
      }
      if (k % 32 != 0) return shape_rule_error(spec, "K % 32 == 0 (K = last dim)", "K = " + std::to_string(k));
      break;
    case Recipe::kNvfp4:
      if (m % 16 != 0) {
        return shape_rule_error(spec, "M % 16 == 0 (M = product of all dims but the last)",
                                "M = " + std::to_string(m));
      }
      if (k % 16 != 0) return shape_rule_error(spec, "K % 16 == 0 (K = last dim)", "K = " + std::to_string(k));
      if (options.nvfp4_row_scaled && !spec.rowwise) {
        return Status::invalid("nvfp4 row-scaled (row_scaled_nvfp4) needs rowwise usage, but rowwise = false");
      }
      break;
    default:
      // FP8 per-tensor has no shape constraint; block FP8 allocates any shape
      // (partial blocks), only TE's is_quantizable prefers multiples of 128.
      break;
  }
  return Status::ok();
}

Status te_is_quantizable(const TensorSpec& spec) {
  TP_RETURN_IF_ERROR(validate_tensor_spec(spec));
  // NVFP4Quantizer.is_quantizable returns False first thing for row-scaled
  // quantizers (pytorch/tensor/nvfp4_tensor.py, TE d0067d0da6).
  if (spec.recipe == Recipe::kNvfp4 && spec.options.nvfp4_row_scaled) {
    return Status::invalid("nvfp4 row-scaled (row_scaled_nvfp4) tensors are never quantizable by TE "
                           "(NVFP4Quantizer.is_quantizable returns False for them)");
  }
  if (!is_fp8_block(spec.recipe)) return Status::ok();
  const int64_t m = leading_rows(spec.shape);
  const int64_t k = last_dim(spec.shape);
  if (m % 128 != 0) {
    return shape_rule_error(spec, "M % 128 == 0 to be quantized by TE (is_quantizable; allocation accepts any shape)",
                            "M = " + std::to_string(m));
  }
  if (k % 128 != 0) {
    return shape_rule_error(spec, "K % 128 == 0 to be quantized by TE (is_quantizable; allocation accepts any shape)",
                            "K = " + std::to_string(k));
  }
  return Status::ok();
}

Status te_quantize_refusal(const TensorSpec& spec) {
  TP_RETURN_IF_ERROR(validate_tensor_spec(spec));
  // Per-tensor FP8 on Hopper (no non-TN FP8 GEMM) keeps columnwise data as
  // `_transpose` only; TE's cast-transpose kernel needs the rowwise `_data`
  // too, so TE refuses with NotImplementedError before quantizing
  // (check_per_tensor_fp8_quantize_output, called by Float8Quantizer::quantize
  // and Float8CurrentScalingQuantizer::quantize_impl after their numel == 0
  // early return; pytorch/csrc/quantizer.cpp, TE d0067d0da6). On Blackwell
  // `_data` serves both usages, so the output always has rowwise data.
  if (!is_fp8_per_tensor(spec.recipe) || spec.arch != Arch::kHopper || spec.rowwise || !spec.columnwise) {
    return Status::ok();
  }
  if (leading_rows(spec.shape) == 0 || last_dim(spec.shape) == 0) return Status::ok();
  return Status::unsupported(std::string(recipe_name(spec.recipe)) + " cannot quantize into a columnwise-only output of shape " +
                             shape_to_string(spec.shape) +
                             " on hopper: TE's cast-transpose kernel also needs the rowwise _data "
                             "(check_per_tensor_fp8_quantize_output raises NotImplementedError); add rowwise usage");
}

Status scale_shape(Recipe recipe, int64_t m, int64_t k, bool columnwise, std::vector<int64_t>* out) {
  switch (recipe) {
    case Recipe::kMxfp8:
      *out = columnwise ? std::vector<int64_t>{roundup(m / 32, 4), roundup(k, 128)}
                        : std::vector<int64_t>{roundup(m, 128), roundup(k / 32, 4)};
      return Status::ok();
    case Recipe::kNvfp4:
      // Columnwise data is the transpose, so its scales are "rowwise" of [K, M].
      *out = columnwise ? std::vector<int64_t>{roundup(k, 128), roundup(ceildiv(m, 16), 4)}
                        : std::vector<int64_t>{roundup(m, 128), roundup(ceildiv(k, 16), 4)};
      return Status::ok();
    case Recipe::kFp8Block1D:
      *out = columnwise ? std::vector<int64_t>{ceildiv(m, 128), roundup(k, 4)}
                        : std::vector<int64_t>{ceildiv(k, 128), roundup(m, 4)};
      return Status::ok();
    case Recipe::kFp8Block2D:
      *out = columnwise ? std::vector<int64_t>{ceildiv(k, 128), roundup(ceildiv(m, 128), 4)}
                        : std::vector<int64_t>{ceildiv(m, 128), roundup(ceildiv(k, 128), 4)};
      return Status::ok();
    default:
      return Status::invalid(std::string("scale_shape: recipe ") + recipe_name(recipe) +
                             " has no block scale matrix");
  }
}

namespace {

// The buffers of each recipe, in TE's flatten order, appended to `buffers`.
// m is the product of the leading dimensions, k the last one.

// FP8 with one scale per tensor (delayed or current scaling).
Status fp8_tensor_scaled_buffers(const TensorSpec& spec, std::vector<BufferSpec>* buffers) {
  const DType fp8 = spec.options.fp8_dtype;
  BufferSpec buffer;
  // One `_data` serves both usages where the GPU runs non-TN FP8 GEMMs.
  const bool non_tn = spec.arch == Arch::kBlackwell;
  if (spec.rowwise || non_tn) {
    TP_RETURN_IF_ERROR(make_buffer("_data", spec.shape, DType::kUInt8, fp8, BufferRole::kData, false, &buffer));
    buffers->push_back(buffer);
  }
  if (spec.columnwise && !non_tn) {
    TP_RETURN_IF_ERROR(
        make_buffer("_transpose", last_dim_first(spec.shape), DType::kUInt8, fp8, BufferRole::kData, true, &buffer));
    buffers->push_back(buffer);
  }
  TP_RETURN_IF_ERROR(make_buffer("_scale_inv", {1}, DType::kFloat32, DType::kFloat32, BufferRole::kScale, false, &buffer));
  buffers->push_back(buffer);
  return Status::ok();
}

Status mxfp8_buffers(const TensorSpec& spec, int64_t m, int64_t k, std::vector<BufferSpec>* buffers) {
  const std::vector<int64_t>& shape = spec.shape;
  const DType u8 = DType::kUInt8;
  const DType fp8 = spec.options.fp8_dtype;
  std::vector<int64_t> row_scale, col_scale;
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, false, &row_scale));
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, true, &col_scale));
  BufferSpec buffer;
  if (spec.rowwise) {
    TP_RETURN_IF_ERROR(make_buffer("_rowwise_data", shape, u8, fp8, BufferRole::kData, false, &buffer));
    buffers->push_back(buffer);
    TP_RETURN_IF_ERROR(make_buffer("_rowwise_scale_inv", row_scale, u8, DType::kFloat8E8M0, BufferRole::kScale, false, &buffer));
    buffers->push_back(buffer);
  }
  if (spec.columnwise) {
    // Columnwise MXFP8 data keeps the logical shape (not transposed).
    TP_RETURN_IF_ERROR(make_buffer("_columnwise_data", shape, u8, fp8, BufferRole::kData, true, &buffer));
    buffers->push_back(buffer);
    TP_RETURN_IF_ERROR(make_buffer("_columnwise_scale_inv", col_scale, u8, DType::kFloat8E8M0, BufferRole::kScale, true, &buffer));
    buffers->push_back(buffer);
  }
  return Status::ok();
}

Status nvfp4_buffers(const TensorSpec& spec, int64_t m, int64_t k, std::vector<BufferSpec>* buffers) {
  const std::vector<int64_t>& shape = spec.shape;
  const DType u8 = DType::kUInt8;
  const DType f32 = DType::kFloat32;
  std::vector<int64_t> row_scale, col_scale;
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, false, &row_scale));
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, true, &col_scale));
  const DType fp4 = DType::kFloat4E2M1;
  const DType e4m3 = DType::kFloat8E4M3;
  BufferSpec buffer;
  std::vector<BufferSpec> amaxes;
  if (spec.rowwise) {
    std::vector<int64_t> data_shape = shape;
    data_shape.back() = k / 2;
    TP_RETURN_IF_ERROR(make_buffer("_rowwise_data", data_shape, u8, fp4, BufferRole::kData, false, &buffer));
    buffers->push_back(buffer);
    TP_RETURN_IF_ERROR(make_buffer("_rowwise_scale_inv", row_scale, u8, e4m3, BufferRole::kScale, false, &buffer));
    buffers->push_back(buffer);
    const int64_t amax_count = spec.options.nvfp4_row_scaled ? m : 1;
    TP_RETURN_IF_ERROR(make_buffer("_amax_rowwise", {amax_count}, f32, f32, BufferRole::kAmax, false, &buffer));
    amaxes.push_back(buffer);
  }
  if (spec.columnwise) {
    // What TE allocates is C++ NVFP4Quantizer::create_tensor's 2-D transpose
    // [K, M/2] (pytorch/csrc/quantizer.cpp, TE d0067d0da6), so shape and bytes
    // follow it. The Python inner_tensor_specs keeps the rank,
    // (K, d0, ..., d(n-2)/2), which halves the wrong dim: [8192, 1, 4096]
    // would give (4096, 8192, 0), 0 B, where TE allocates 16,777,216 B. That
    // shape is kept as alt_shape.
    TP_RETURN_IF_ERROR(make_buffer("_columnwise_data", {k, m / 2}, u8, fp4, BufferRole::kData, true, &buffer));
    if (shape.size() != 2) {
      buffer.alt_shape = last_dim_first(shape);
      buffer.alt_shape.back() /= 2;
    }
    buffers->push_back(buffer);
    TP_RETURN_IF_ERROR(make_buffer("_columnwise_scale_inv", col_scale, u8, e4m3, BufferRole::kScale, true, &buffer));
    buffers->push_back(buffer);
    // Row-scaled: C++ create_tensor allocates one amax per column, {K}; the
    // Python spec says (1,) (TE d0067d0da6, quantizer.cpp / nvfp4_tensor.py).
    const int64_t amax_count = spec.options.nvfp4_row_scaled ? k : 1;
    TP_RETURN_IF_ERROR(make_buffer("_amax_columnwise", {amax_count}, f32, f32, BufferRole::kAmax, true, &buffer));
    if (spec.options.nvfp4_row_scaled) buffer.alt_shape = {1};
    amaxes.push_back(buffer);
  }
  // Flatten order puts both amaxes last.
  buffers->insert(buffers->end(), amaxes.begin(), amaxes.end());
  return Status::ok();
}

// FP8 with block scales (1x128 or 128x128), TE's GEMM_READY format.
Status fp8_block_buffers(const TensorSpec& spec, int64_t m, int64_t k, std::vector<BufferSpec>* buffers) {
  const std::vector<int64_t>& shape = spec.shape;
  const DType u8 = DType::kUInt8;
  const DType f32 = DType::kFloat32;
  const DType fp8 = spec.options.fp8_dtype;
  std::vector<int64_t> row_scale, col_scale;
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, false, &row_scale));
  TP_RETURN_IF_ERROR(scale_shape(spec.recipe, m, k, true, &col_scale));
  BufferSpec buffer;
  if (spec.rowwise) {
    TP_RETURN_IF_ERROR(make_buffer("_rowwise_data", shape, u8, fp8, BufferRole::kData, false, &buffer));
    buffers->push_back(buffer);
    TP_RETURN_IF_ERROR(make_buffer("_rowwise_scale_inv", row_scale, f32, f32, BufferRole::kScale, false, &buffer));
    buffers->push_back(buffer);
  }
  if (spec.columnwise) {
    // GEMM_READY format: columnwise data is transposed.
    TP_RETURN_IF_ERROR(make_buffer("_columnwise_data", last_dim_first(shape), u8, fp8, BufferRole::kData, true, &buffer));
    buffers->push_back(buffer);
    TP_RETURN_IF_ERROR(make_buffer("_columnwise_scale_inv", col_scale, f32, f32, BufferRole::kScale, true, &buffer));
    buffers->push_back(buffer);
  }
  return Status::ok();
}

}  // namespace

Status tensor_spec_buffers(const TensorSpec& spec, std::vector<BufferSpec>* out) {
  TP_RETURN_IF_ERROR(validate_tensor_spec(spec));
  if (spec.recipe == Recipe::kNone) {
    BufferSpec buffer;
    TP_RETURN_IF_ERROR(make_buffer("data", spec.shape, spec.dtype, spec.dtype, BufferRole::kData, false, &buffer));
    out->assign(1, buffer);
    return Status::ok();
  }
  const int64_t m = leading_rows(spec.shape);
  const int64_t k = last_dim(spec.shape);
  // Built aside so that `out` is untouched on error.
  std::vector<BufferSpec> buffers;
  switch (spec.recipe) {
    case Recipe::kFp8Delayed:
    case Recipe::kFp8Current:
      TP_RETURN_IF_ERROR(fp8_tensor_scaled_buffers(spec, &buffers));
      break;
    case Recipe::kMxfp8:
      TP_RETURN_IF_ERROR(mxfp8_buffers(spec, m, k, &buffers));
      break;
    case Recipe::kNvfp4:
      TP_RETURN_IF_ERROR(nvfp4_buffers(spec, m, k, &buffers));
      break;
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D:
      TP_RETURN_IF_ERROR(fp8_block_buffers(spec, m, k, &buffers));
      break;
    case Recipe::kNone:
      break;
  }
  *out = std::move(buffers);
  return Status::ok();
}

Status update_usage(const TensorSpec& spec, int32_t rowwise, int32_t columnwise,
                    UsageUpdateMode mode, TensorSpec* out) {
  if (rowwise < -1 || rowwise > 1) {
    return Status::invalid("rowwise = " + std::to_string(rowwise) + ": must be -1 (leave), 0 or 1");
  }
  if (columnwise < -1 || columnwise > 1) {
    return Status::invalid("columnwise = " + std::to_string(columnwise) + ": must be -1 (leave), 0 or 1");
  }
  if (!is_quantized(spec.recipe)) {
    return Status::invalid("update_usage on a plain tensor spec (recipe none): only quantized specs have usages");
  }
  TensorSpec next = spec;
  if (rowwise >= 0) next.rowwise = rowwise == 1;
  if (columnwise >= 0) next.columnwise = columnwise == 1;
  if (mode == UsageUpdateMode::kStorage) {
    std::vector<BufferSpec> current;
    TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &current));
    const std::string recipe = recipe_name(spec.recipe);
    const bool add_row = next.rowwise && !spec.rowwise;
    const bool add_col = next.columnwise && !spec.columnwise;
    if (is_fp8_per_tensor(spec.recipe)) {
      if (add_row && !has_buffer(current, "_data")) {
        return Status::invalid("update_usage(rowwise=true) on " + recipe +
                               " storage: cannot rebuild _data from _transpose (TE only builds the transpose from data)");
      }
      if (add_col && !has_buffer(current, "_data")) {
        return Status::invalid("update_usage(columnwise=true) on " + recipe + " storage: no _data to build the transpose from");
      }
    } else if (spec.recipe == Recipe::kMxfp8 || spec.recipe == Recipe::kFp8Block1D) {
      if (add_row || add_col) {
        return Status::invalid("update_usage(" + std::string(add_row ? "rowwise" : "columnwise") + "=true) on " +
                               recipe + " storage: " + recipe + " can only drop usages, not create them");
      }
    } else {
      // NVFP4 and 2D block FP8 derive columnwise data from rowwise data only.
      if (add_row) {
        return Status::invalid("update_usage(rowwise=true) on " + recipe +
                               " storage: cannot create rowwise data from columnwise data");
      }
      if (add_col && !spec.rowwise) {
        return Status::invalid("update_usage(columnwise=true) on " + recipe + " storage: no rowwise data to derive it from");
      }
    }
  }
  TP_RETURN_IF_ERROR(validate_tensor_spec(next));
  *out = std::move(next);
  return Status::ok();
}

Status check_buffers(const TensorSpec& spec, const std::vector<GivenBuffer>& given) {
  std::vector<BufferSpec> expected;
  TP_RETURN_IF_ERROR(tensor_spec_buffers(spec, &expected));
  std::vector<bool> seen(expected.size(), false);
  for (size_t i = 0; i < given.size(); ++i) {
    const GivenBuffer& buffer = given[i];
    const std::string field = "buffers[" + std::to_string(i) + "] \"" + buffer.name + "\"";
    size_t match = expected.size();
    for (size_t e = 0; e < expected.size(); ++e) {
      if (expected[e].name == buffer.name) match = e;
    }
    if (match == expected.size()) {
      std::string names;
      for (const BufferSpec& e : expected) names += (names.empty() ? "" : ", ") + e.name;
      return Status::invalid(field + ": unknown buffer for this " + recipe_name(spec.recipe) +
                             " spec (expected " + names + ")");
    }
    if (seen[match]) return Status::invalid(field + ": given twice");
    seen[match] = true;
    const BufferSpec& want = expected[match];
    if (buffer.shape != want.shape && buffer.shape != want.alt_shape) {
      return Status::invalid(field + ".shape = " + shape_to_string(buffer.shape) + ": expected " +
                             shape_to_string(want.shape));
    }
    if (buffer.dtype != want.dtype && buffer.dtype != want.element) {
      return Status::invalid(field + ".dtype = " + dtype_name(buffer.dtype) + ": expected " +
                             dtype_name(want.dtype) + " (" + dtype_name(want.element) + ")");
    }
    if (buffer.bytes != want.bytes) {
      return Status::invalid(field + ".bytes = " + std::to_string(buffer.bytes) + ": expected " +
                             std::to_string(want.bytes));
    }
  }
  for (size_t e = 0; e < expected.size(); ++e) {
    if (!seen[e]) return Status::invalid("buffers: missing \"" + expected[e].name + "\"");
  }
  return Status::ok();
}

const char* storage_class_name(Recipe recipe, bool internal) {
  switch (recipe) {
    case Recipe::kNone: return "torch.Tensor";
    case Recipe::kFp8Delayed:
    case Recipe::kFp8Current: return internal ? "Float8TensorStorage" : "Float8Tensor";
    case Recipe::kMxfp8: return internal ? "MXFP8TensorStorage" : "MXFP8Tensor";
    case Recipe::kNvfp4: return internal ? "NVFP4TensorStorage" : "NVFP4Tensor";
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D: return internal ? "Float8BlockwiseQTensorStorage" : "Float8BlockwiseQTensor";
  }
  return "";
}

const char* quantizer_class_name(Recipe recipe) {
  switch (recipe) {
    case Recipe::kNone: return "";
    case Recipe::kFp8Delayed: return "Float8Quantizer";
    case Recipe::kFp8Current: return "Float8CurrentScalingQuantizer";
    case Recipe::kMxfp8: return "MXFP8Quantizer";
    case Recipe::kNvfp4: return "NVFP4Quantizer";
    case Recipe::kFp8Block1D:
    case Recipe::kFp8Block2D: return "Float8BlockQuantizer";
  }
  return "";
}

}  // namespace tp
