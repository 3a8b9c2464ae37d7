// tp_split_quantize_layout: the split-quantize bulk layouts of §1 through the C ABI.
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "base/result.h"
#include "formats/split_quantize_layout.h"

namespace tp {
namespace {

// Decodes the format codes that a layout call uses (no shape of its own).
Status decode_layout_format(const int32_t* format, TensorSpec* spec) {
  const double no_dims = 0;
  return decode_spec_abi(&no_dims, 0, format, spec);
}

Status decode_member_shapes(const int32_t* shape_offsets, const double* dims, int32_t dims_count, int32_t count,
                            std::vector<std::vector<int64_t>>* out) {
  if (count < 0) return Status::invalid("count = " + std::to_string(count) + ": must be >= 0");
  if (count == 0) return Status::ok();
  TP_RETURN_IF_ERROR(check_array_arg(shape_offsets, count + 1, "shape_offsets"));
  if (shape_offsets[0] != 0) return Status::invalid("shape_offsets[0] = " + std::to_string(shape_offsets[0]) + ": must be 0");
  for (int32_t i = 0; i < count; ++i) {
    if (shape_offsets[i + 1] < shape_offsets[i]) {
      return Status::invalid("shape_offsets[" + std::to_string(i + 1) + "] = " + std::to_string(shape_offsets[i + 1]) +
                             ": must be >= shape_offsets[" + std::to_string(i) + "]");
    }
  }
  TP_RETURN_IF_ERROR(check_array_length(dims_count, "dims_count", shape_offsets[count], "shape_offsets[count]"));
  TP_RETURN_IF_ERROR(check_array_arg(dims, dims_count, "dims"));
  for (int32_t i = 0; i < count; ++i) {
    std::vector<int64_t> shape;
    for (int32_t d = shape_offsets[i]; d < shape_offsets[i + 1]; ++d) {
      int64_t dim = 0;
      TP_RETURN_IF_ERROR(to_byte_count(dims[d], "members[" + std::to_string(i) + "].shape[" +
                                                    std::to_string(d - shape_offsets[i]) + "]", &dim));
      shape.push_back(dim);
    }
    out->push_back(std::move(shape));
  }
  return Status::ok();
}


}  // namespace
}  // namespace tp

extern "C" tp_status tp_split_quantize_layout(const int32_t* shape_offsets, const double* dims, int32_t dims_count,
                                              int32_t count,
                                              const int32_t* format, int32_t columnwise, tp_result** out) {
  using namespace tp;
  TensorSpec spec;
  std::vector<std::vector<int64_t>> shapes;
  SplitQuantizeLayout layout;
  Status status = decode_layout_format(format, &spec);
  if (status.is_ok()) status = decode_member_shapes(shape_offsets, dims, dims_count, count, &shapes);
  if (status.is_ok() && columnwise != 0 && columnwise != 1) {
    status = Status::invalid("columnwise = " + std::to_string(columnwise) + ": must be 0 or 1");
  }
  if (status.is_ok()) status = split_quantize_layout(shapes, spec.dtype, spec.recipe, columnwise == 1, spec.options, &layout);
  ResultBuilder result(TP_RESULT_SPEC(tp_split_quantize_layout));
  if (status.is_ok()) {
    std::vector<int32_t> members, roles, entry_shape_offsets{0};
    std::vector<std::string> names;
    std::vector<double> entry_dims, offsets, bytes, alignments;
    for (const SplitQuantizeEntry& entry : layout.entries) {
      members.push_back(entry.member);
      names.push_back(entry.buffer.name);
      for (int64_t d : entry.buffer.shape) entry_dims.push_back(static_cast<double>(d));
      entry_shape_offsets.push_back(static_cast<int32_t>(entry_dims.size()));
      offsets.push_back(static_cast<double>(entry.offset));
      bytes.push_back(static_cast<double>(entry.buffer.bytes));
      alignments.push_back(static_cast<double>(entry.buffer.alignment));
      roles.push_back(static_cast<int32_t>(entry.buffer.role));
    }
    result.add(members);
    result.add_text_list(names);
    result.add(entry_shape_offsets);
    result.add(entry_dims);
    result.add(offsets);
    result.add(bytes);
    result.add(alignments);
    result.add(roles);
    result.add(std::vector<double>{static_cast<double>(layout.bulk.used_bytes), static_cast<double>(layout.bulk.base_alignment),
                                   static_cast<double>(layout.bulk.allocation_bytes)});
    result.add(std::vector<uint8_t>{static_cast<uint8_t>(layout.contiguous_data_and_scale ? 1 : 0)});
  }
  return finish_call(status, &result, out);
}

