// tp_bulk_layout: decodes the flat arrays, lays out, encodes the result.
#include <string>
#include <vector>

#include "formats/bulk_layout.h"
#include "tensorplan/c_api.h"
#include "base/result.h"

namespace tp {
namespace {

Status decode_requests(const int32_t* shape_offsets, const double* dims, int32_t dims_count, const int32_t* dtypes,
                       const double* alignments, int32_t count, std::vector<BulkRequest>* out) {
  if (count < 0) return Status::invalid("count = " + std::to_string(count) + ": must be >= 0");
  if (count == 0) return Status::ok();
  TP_RETURN_IF_ERROR(check_array_arg(shape_offsets, count + 1, "shape_offsets"));
  TP_RETURN_IF_ERROR(check_array_arg(dtypes, count, "dtypes"));
  if (shape_offsets[0] != 0) {
    return Status::invalid("shape_offsets[0] = " + std::to_string(shape_offsets[0]) + ": must be 0");
  }
  for (int32_t i = 0; i < count; ++i) {
    if (shape_offsets[i + 1] < shape_offsets[i]) {
      return Status::invalid("shape_offsets[" + std::to_string(i + 1) + "] = " +
                             std::to_string(shape_offsets[i + 1]) + ": must be >= shape_offsets[" +
                             std::to_string(i) + "] = " + std::to_string(shape_offsets[i]));
    }
  }
  TP_RETURN_IF_ERROR(check_array_length(dims_count, "dims_count", shape_offsets[count], "shape_offsets[count]"));
  TP_RETURN_IF_ERROR(check_array_arg(dims, dims_count, "dims"));
  out->resize(static_cast<size_t>(count));
  std::vector<int64_t> shape;
  for (int32_t i = 0; i < count; ++i) {
    auto field = [i]() { return "tensors[" + std::to_string(i) + "]"; };
    if (shape_offsets[i + 1] < shape_offsets[i]) {
      return Status::invalid("shape_offsets[" + std::to_string(i + 1) + "] = " +
                             std::to_string(shape_offsets[i + 1]) + ": must be >= shape_offsets[" +
                             std::to_string(i) + "] = " + std::to_string(shape_offsets[i]));
    }
    if (!is_valid_dtype_code(dtypes[i])) {
      return Status::invalid(field() + ".dtype = " + std::to_string(dtypes[i]) + ": unknown dtype code");
    }
    const DType dtype = static_cast<DType>(dtypes[i]);
    shape.clear();
    for (int32_t d = shape_offsets[i]; d < shape_offsets[i + 1]; ++d) {
      int64_t dim = 0;
      if (is_exact_count(dims[d])) {
        dim = static_cast<int64_t>(dims[d]);
      } else {
        TP_RETURN_IF_ERROR(to_byte_count(dims[d], field() + ".shape[" + std::to_string(d - shape_offsets[i]) + "]", &dim));
      }
      shape.push_back(dim);
    }
    BulkRequest& request = (*out)[static_cast<size_t>(i)];
    Status sized = dense_bytes(shape, dtype, &request.bytes);
    if (!sized.is_ok()) return Status(sized.code(), field() + " " + sized.message());
    request.alignment = dtype_element_bytes(dtype);
    if (alignments != nullptr && alignments[i] != 0) {
      if (is_exact_count(alignments[i])) {
        request.alignment = static_cast<int64_t>(alignments[i]);
      } else {
        TP_RETURN_IF_ERROR(to_byte_count(alignments[i], field() + ".alignment", &request.alignment));
      }
    }
  }
  return Status::ok();
}

}  // namespace
}  // namespace tp

extern "C" tp_status tp_bulk_layout(const int32_t* shape_offsets, const double* dims, int32_t dims_count,
                                    const int32_t* dtypes, const double* alignments, int32_t count,
                                    tp_result** out) {
  using namespace tp;
  std::vector<BulkRequest> requests;
  BulkLayout layout;
  Status status = decode_requests(shape_offsets, dims, dims_count, dtypes, alignments, count, &requests);
  if (status.is_ok()) status = bulk_layout(requests, &layout);
  ResultBuilder result(TP_RESULT_SPEC(tp_bulk_layout));
  if (status.is_ok()) {
    const size_t n = layout.entries.size();
    std::vector<double> offsets(n), bytes(n), aligns(n);
    std::vector<uint8_t> separate(n);
    for (size_t i = 0; i < n; ++i) {
      offsets[i] = static_cast<double>(layout.entries[i].offset);
      bytes[i] = static_cast<double>(layout.entries[i].bytes);
      aligns[i] = static_cast<double>(layout.entries[i].alignment);
      separate[i] = layout.entries[i].separate ? 1 : 0;
    }
    result.add(offsets);
    result.add(bytes);
    result.add(aligns);
    result.add(separate);
    result.add(std::vector<double>{static_cast<double>(layout.used_bytes),
                                   static_cast<double>(layout.base_alignment),
                                   static_cast<double>(layout.allocation_bytes)});
  }
  return finish_call(status, &result, out);
}
