#include "formats/bulk_layout.h"

#include <algorithm>
#include <string>

namespace tp {

Status dense_bytes(const std::vector<int64_t>& shape, DType dtype, int64_t* out) {
  int64_t numel = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!mul_fits(numel, shape[d])) return checked_mul(numel, shape[d], "element count", &numel);
    numel *= shape[d];
  }
  const int64_t bits_per_element = dtype_bits(dtype);
  if (!mul_fits(numel, bits_per_element)) return checked_mul(numel, bits_per_element, "size in bits", &numel);
  *out = (numel * bits_per_element + 7) / 8;
  return Status::ok();
}

Status bulk_layout(const std::vector<BulkRequest>& requests, BulkLayout* out) {
  BulkLayout layout;
  layout.entries.resize(requests.size());
  int64_t cursor = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const BulkRequest& request = requests[i];
    // Messages are built only on failure: this loop runs for 10^5 tensors.
    // Any positive integer: TE rounds up to a multiple (pytorch/csrc/common.cpp
    // roundup, called by extensions/allocate.cpp bulk_allocate, TE d0067d0da6),
    // so 12 or 48 are as valid as 16. Zero would divide by zero there.
    if (request.alignment < 1) {
      return Status::invalid("tensors[" + std::to_string(i) + "].alignment = " + std::to_string(request.alignment) +
                             ": must be an integer >= 1");
    }
    BulkEntry& entry = layout.entries[i];
    entry.bytes = request.bytes;
    entry.alignment = request.alignment;
    entry.separate = request.bytes == 0;
    entry.offset = (cursor + request.alignment - 1) / request.alignment * request.alignment;
    if (entry.offset > kMaxExactInteger - request.bytes) {
      return Status::out_of_range("tensors[" + std::to_string(i) + "] ends at " + std::to_string(entry.offset) + " + " +
                                  std::to_string(request.bytes) + ": exceeds 2^53");
    }
    cursor = entry.offset + request.bytes;
    layout.base_alignment = std::max(layout.base_alignment, request.alignment);
  }
  layout.used_bytes = cursor;
  // TE over-allocates a full base_alignment (not base_alignment - 1) so that the
  // base pointer can be rounded up whatever the allocator returned.
  layout.allocation_bytes = cursor;
  if (!requests.empty() && layout.base_alignment > 1) {
    TP_RETURN_IF_ERROR(checked_add(cursor, layout.base_alignment, "allocation size", &layout.allocation_bytes));
  }
  *out = std::move(layout);
  return Status::ok();
}

}  // namespace tp
