#include "tensorplan/bulk_layout.h"

#include <algorithm>
#include <string>

namespace tp {

Status dense_bytes(const std::vector<int64_t>& shape, DType dtype, const std::string& field,
                   int64_t* out) {
  int64_t numel = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    TP_RETURN_IF_ERROR(checked_mul(numel, shape[d], field + " element count", &numel));
  }
  int64_t bits = 0;
  TP_RETURN_IF_ERROR(checked_mul(numel, dtype_bits(dtype), field + " bits", &bits));
  *out = (bits + 7) / 8;
  return Status::ok();
}

Status bulk_layout(const std::vector<BulkRequest>& requests, BulkLayout* out) {
  BulkLayout layout;
  layout.entries.reserve(requests.size());
  int64_t cursor = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const BulkRequest& request = requests[i];
    const std::string field = "tensors[" + std::to_string(i) + "]";
    if (!is_power_of_two(request.alignment)) {
      return Status::invalid(field + ".alignment = " + std::to_string(request.alignment) +
                             ": must be a power of two >= 1");
    }
    BulkEntry entry;
    entry.bytes = request.bytes;
    entry.alignment = request.alignment;
    entry.separate = request.bytes == 0;
    TP_RETURN_IF_ERROR(checked_round_up(cursor, request.alignment, field + ".offset", &entry.offset));
    TP_RETURN_IF_ERROR(checked_add(entry.offset, request.bytes, field + " end", &cursor));
    layout.base_alignment = std::max(layout.base_alignment, request.alignment);
    layout.entries.push_back(entry);
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
