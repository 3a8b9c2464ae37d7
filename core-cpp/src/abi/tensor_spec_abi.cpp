// tp_tensor_spec_buffers / _update_usage / _check_buffers: decode the flat
// ABI form of a spec, call tensor_spec.cpp, encode the result.
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "base/result.h"
#include "formats/tensor_spec.h"

namespace tp {

Status decode_spec_abi(const double* dims, int32_t rank, const int32_t* format, TensorSpec* out) {
  TP_RETURN_IF_ERROR(check_array_arg(dims, rank, "dims"));
  TP_RETURN_IF_ERROR(check_array_arg(format, TP_FORMAT_FIELDS, "format"));
  if (format == nullptr) return Status::invalid("format is NULL: TP_FORMAT_FIELDS codes are required");
  TensorSpec spec;
  for (int32_t d = 0; d < rank; ++d) {
    int64_t dim = 0;
    TP_RETURN_IF_ERROR(to_byte_count(dims[d], "dims[" + std::to_string(d) + "]", &dim));
    spec.shape.push_back(dim);
  }
  if (!is_valid_dtype_code(format[0])) {
    return Status::invalid("format[0] (dtype) = " + std::to_string(format[0]) + ": unknown dtype code");
  }
  spec.dtype = static_cast<DType>(format[0]);
  if (!is_valid_recipe_code(format[1])) {
    return Status::invalid("format[1] (recipe) = " + std::to_string(format[1]) + ": unknown recipe code");
  }
  spec.recipe = static_cast<Recipe>(format[1]);
  if (format[2] < 0 || format[2] > (TP_USAGE_ROWWISE | TP_USAGE_COLUMNWISE)) {
    return Status::invalid("format[2] (usage) = " + std::to_string(format[2]) + ": must be a combination of 1 (rowwise) and 2 (columnwise)");
  }
  spec.rowwise = (format[2] & TP_USAGE_ROWWISE) != 0;
  spec.columnwise = (format[2] & TP_USAGE_COLUMNWISE) != 0;
  if (format[3] != TP_ARCH_HOPPER && format[3] != TP_ARCH_BLACKWELL) {
    return Status::invalid("format[3] (arch) = " + std::to_string(format[3]) + ": must be 0 (hopper) or 1 (blackwell)");
  }
  spec.arch = static_cast<Arch>(format[3]);
  if (static_cast<int32_t>(spec.arch) < static_cast<int32_t>(recipe_min_arch(spec.recipe))) {
    // A recipe needs its architecture: TE d0067d0da6 refuses MXFP8 and NVFP4 below
    // compute capability 10.0 (transformer_engine/pytorch/quantization.py
    // _compute_mxfp8_support, _compute_nvfp4_support; see TP_RECIPE_LIST).
    return Status::invalid(std::string("format[3] (arch) = hopper: recipe ") + recipe_name(spec.recipe) +
                           " needs blackwell (compute capability 10.0 or higher); TransformerEngine d0067d0da6 "
                           "refuses it below (transformer_engine/pytorch/quantization.py _compute_" +
                           recipe_name(spec.recipe) + "_support)");
  }
  Status status = decode_format_options(format[4], format[5], &spec.options);
  if (!status.is_ok()) {
    const char* which = status.message().rfind("options", 0) == 0 ? "format[4] " : "format[5] ";
    return Status(status.code(), which + status.message());
  }
  *out = std::move(spec);
  return Status::ok();
}

namespace {


void add_shapes(const std::vector<std::vector<int64_t>>& shapes, ResultBuilder* result) {
  std::vector<int32_t> offsets{0};
  std::vector<double> dims;
  for (const std::vector<int64_t>& shape : shapes) {
    for (int64_t d : shape) dims.push_back(static_cast<double>(d));
    offsets.push_back(static_cast<int32_t>(dims.size()));
  }
  result->add(offsets);
  result->add(dims);
}

int32_t usage_bits_of(const TensorSpec& spec, const BufferSpec& buffer) {
  if (buffer.name == "_data" || buffer.name == "_scale_inv") {
    int32_t bits = 0;
    if (spec.rowwise) bits |= TP_USAGE_ROWWISE;
    if (spec.columnwise && (buffer.name == "_scale_inv" || spec.arch == Arch::kBlackwell)) bits |= TP_USAGE_COLUMNWISE;
    return bits == 0 ? TP_USAGE_ROWWISE : bits;
  }
  return buffer.columnwise ? TP_USAGE_COLUMNWISE : TP_USAGE_ROWWISE;
}

}  // namespace
}  // namespace tp

extern "C" tp_status tp_tensor_spec_buffers(const double* dims, int32_t rank, const int32_t* format, tp_result** out) {
  using namespace tp;
  TensorSpec spec;
  std::vector<BufferSpec> buffers;
  Status status = decode_spec_abi(dims, rank, format, &spec);
  if (status.is_ok()) status = tensor_spec_buffers(spec, &buffers);
  ResultBuilder result(TP_RESULT_SPEC(tp_tensor_spec_buffers));
  if (status.is_ok()) {
    std::vector<std::string> names;
    std::vector<std::vector<int64_t>> shapes, alt_shapes;
    std::vector<int32_t> dtypes, elements, roles, usages;
    std::vector<double> bytes, alignments;
    double total = 0;
    for (const BufferSpec& buffer : buffers) {
      names.push_back(buffer.name);
      shapes.push_back(buffer.shape);
      alt_shapes.push_back(buffer.alt_shape);
      dtypes.push_back(static_cast<int32_t>(buffer.dtype));
      elements.push_back(static_cast<int32_t>(buffer.element));
      roles.push_back(static_cast<int32_t>(buffer.role));
      usages.push_back(usage_bits_of(spec, buffer));
      bytes.push_back(static_cast<double>(buffer.bytes));
      alignments.push_back(static_cast<double>(buffer.alignment));
      total += static_cast<double>(buffer.bytes);
    }
    result.add_text_list(names);
    add_shapes(shapes, &result);
    result.add(dtypes);
    result.add(elements);
    result.add(bytes);
    result.add(alignments);
    result.add(roles);
    result.add(usages);
    add_shapes(alt_shapes, &result);
    result.add(std::vector<double>{total});
    result.add_text(storage_class_name(spec.recipe, true));
    result.add_text(storage_class_name(spec.recipe, false));
    result.add_text(quantizer_class_name(spec.recipe));
    const Status quantizable = te_is_quantizable(spec);
    result.add(std::vector<uint8_t>{static_cast<uint8_t>(quantizable.is_ok() ? 1 : 0)});
    result.add_text(quantizable.message());
    result.add_text(te_quantize_refusal(spec).message());
  }
  return finish_call(status, &result, out);
}

extern "C" tp_status tp_tensor_spec_update_usage(const double* dims, int32_t rank, const int32_t* format,
                                                 int32_t rowwise, int32_t columnwise, int32_t mode, tp_result** out) {
  using namespace tp;
  TensorSpec spec, next;
  Status status = decode_spec_abi(dims, rank, format, &spec);
  if (status.is_ok() && mode != 0 && mode != 1) {
    status = Status::invalid("mode = " + std::to_string(mode) + ": must be 0 (proto) or 1 (storage)");
  }
  if (status.is_ok()) status = update_usage(spec, rowwise, columnwise, static_cast<UsageUpdateMode>(mode), &next);
  ResultBuilder result(TP_RESULT_SPEC(tp_tensor_spec_update_usage));
  if (status.is_ok()) {
    const int32_t bits = (next.rowwise ? TP_USAGE_ROWWISE : 0) | (next.columnwise ? TP_USAGE_COLUMNWISE : 0);
    result.add(std::vector<int32_t>{bits});
  }
  return finish_call(status, &result, out);
}

extern "C" tp_status tp_tensor_spec_check_buffers(const double* dims, int32_t rank, const int32_t* format,
                                                  const uint8_t* names, int32_t names_length,
                                                  const int32_t* name_offsets, const int32_t* shape_offsets,
                                                  const double* buffer_dims, int32_t buffer_dims_count,
                                                  const int32_t* dtypes,
                                                  const double* bytes, int32_t count, tp_result** out) {
  using namespace tp;
  TensorSpec spec;
  std::vector<GivenBuffer> given;
  Status status = decode_spec_abi(dims, rank, format, &spec);
  if (status.is_ok() && count < 0) status = Status::invalid("count = " + std::to_string(count) + ": must be >= 0");
  if (status.is_ok() && count > 0) {
    status = check_array_arg(names, names_length, "names");
    if (status.is_ok()) status = check_array_arg(name_offsets, count + 1, "name_offsets");
    if (status.is_ok()) status = check_array_arg(shape_offsets, count + 1, "shape_offsets");
    if (status.is_ok()) status = check_array_arg(dtypes, count, "dtypes");
    if (status.is_ok()) status = check_array_arg(bytes, count, "bytes");
    for (int32_t i = 0; status.is_ok() && i < count; ++i) {
      if (shape_offsets[i] < 0 || shape_offsets[i + 1] < shape_offsets[i]) {
        status = Status::invalid("shape_offsets[" + std::to_string(i + 1) + "] = " + std::to_string(shape_offsets[i + 1]) +
                                 ": must be >= shape_offsets[" + std::to_string(i) + "] >= 0");
      }
    }
    if (status.is_ok()) {
      status = check_array_length(buffer_dims_count, "buffer_dims_count", shape_offsets[count], "shape_offsets[count]");
    }
    if (status.is_ok()) status = check_array_arg(buffer_dims, buffer_dims_count, "buffer_dims");
    for (int32_t i = 0; status.is_ok() && i < count; ++i) {
      const std::string field = "buffers[" + std::to_string(i) + "]";
      if (name_offsets[i] < 0 || name_offsets[i + 1] < name_offsets[i] || name_offsets[i + 1] > names_length) {
        status = Status::invalid("name_offsets[" + std::to_string(i + 1) + "] = " + std::to_string(name_offsets[i + 1]) +
                                 ": must be within [name_offsets[" + std::to_string(i) + "], names_length]");
        break;
      }
      if (shape_offsets[i] < 0 || shape_offsets[i + 1] < shape_offsets[i]) {
        status = Status::invalid("shape_offsets[" + std::to_string(i + 1) + "] = " + std::to_string(shape_offsets[i + 1]) +
                                 ": must be >= shape_offsets[" + std::to_string(i) + "]");
        break;
      }
      if (!is_valid_dtype_code(dtypes[i])) {
        status = Status::invalid(field + ".dtype = " + std::to_string(dtypes[i]) + ": unknown dtype code");
        break;
      }
      GivenBuffer buffer;
      buffer.name.assign(reinterpret_cast<const char*>(names) + name_offsets[i],
                         static_cast<size_t>(name_offsets[i + 1] - name_offsets[i]));
      for (int32_t d = shape_offsets[i]; status.is_ok() && d < shape_offsets[i + 1]; ++d) {
        int64_t dim = 0;
        status = to_byte_count(buffer_dims[d], field + ".shape[" + std::to_string(d - shape_offsets[i]) + "]", &dim);
        buffer.shape.push_back(dim);
      }
      buffer.dtype = static_cast<DType>(dtypes[i]);
      if (status.is_ok()) status = to_byte_count(bytes[i], field + ".bytes", &buffer.bytes);
      given.push_back(std::move(buffer));
    }
  }
  if (status.is_ok()) status = check_buffers(spec, given);
  ResultBuilder result(TP_RESULT_SPEC(tp_tensor_spec_check_buffers));
  return finish_call(status, &result, out);
}
