// tp_grouped_layout: the grouped tensor layouts of §3 through the C ABI.
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "formats/grouped_layout.h"
#include "base/result.h"
#include "formats/tensor_spec.h"

namespace tp {
namespace {

// Decodes the format codes that a layout call uses (no shape of its own).
Status decode_layout_format(const int32_t* format, TensorSpec* spec) {
  const double no_dims = 0;
  return decode_spec_abi(&no_dims, 0, format, spec);
}


}  // namespace
}  // namespace tp

extern "C" tp_status tp_grouped_layout(const double* member_dims, int32_t count, const int32_t* format, tp_result** out) {
  using namespace tp;
  TensorSpec spec;
  std::vector<std::vector<int64_t>> shapes;
  GroupedLayout layout;
  Status status = decode_layout_format(format, &spec);
  if (status.is_ok() && count < 0) status = Status::invalid("count = " + std::to_string(count) + ": must be >= 0");
  if (status.is_ok()) status = check_array_arg(member_dims, count * 2, "member_dims");
  for (int32_t i = 0; status.is_ok() && i < count; ++i) {
    std::vector<int64_t> shape(2);
    for (int d = 0; status.is_ok() && d < 2; ++d) {
      status = to_byte_count(member_dims[2 * i + d], "member_dims[" + std::to_string(2 * i + d) + "]", &shape[static_cast<size_t>(d)]);
    }
    shapes.push_back(shape);
  }
  if (status.is_ok()) status = grouped_layout(shapes, spec.dtype, spec.recipe, spec.rowwise, spec.columnwise, spec.arch, spec.options,
                                                &layout);
  ResultBuilder result(TP_RESULT_SPEC(tp_grouped_layout));
  if (status.is_ok()) {
    result.add(std::vector<int32_t>{static_cast<int32_t>(layout.kind), layout.has_tensor_offsets ? 1 : 0});
    result.add(std::vector<double>{static_cast<double>(layout.logical_rows), static_cast<double>(layout.logical_cols)});
    std::vector<double> tensor_offsets;
    for (int64_t v : layout.tensor_offsets) tensor_offsets.push_back(static_cast<double>(v));
    result.add(tensor_offsets);
    std::vector<std::string> names;
    std::vector<int32_t> dtypes, elements, member_csr{0};
    std::vector<double> counts, bytes, cpp_counts, cpp_bytes, member_offsets;
    for (const GroupedBuffer& buffer : layout.buffers) {
      names.push_back(buffer.name);
      dtypes.push_back(static_cast<int32_t>(buffer.dtype));
      elements.push_back(static_cast<int32_t>(buffer.element));
      counts.push_back(static_cast<double>(buffer.elements));
      bytes.push_back(static_cast<double>(buffer.bytes));
      cpp_counts.push_back(static_cast<double>(buffer.cpp_elements));
      cpp_bytes.push_back(static_cast<double>(buffer.cpp_bytes));
      for (int64_t v : buffer.member_offsets) member_offsets.push_back(static_cast<double>(v));
      member_csr.push_back(static_cast<int32_t>(member_offsets.size()));
    }
    result.add_text_list(names);
    result.add(dtypes);
    result.add(elements);
    result.add(counts);
    result.add(bytes);
    result.add(cpp_counts);
    result.add(cpp_bytes);
    result.add(member_csr);
    result.add(member_offsets);
    result.add(std::vector<double>{static_cast<double>(layout.total_bytes), static_cast<double>(layout.cpp_total_bytes)});
    result.add_text(layout.cpp_unavailable_reason);
  }
  return finish_call(status, &result, out);
}
