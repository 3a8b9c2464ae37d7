// Bulk layout: many tensors packed into one allocation, exactly as
// TransformerEngine's bulk_allocate lays them out (FORMATS.md §1).
#ifndef TENSORPLAN_BULK_LAYOUT_H
#define TENSORPLAN_BULK_LAYOUT_H

#include <cstdint>
#include <vector>

#include "formats/dtype.h"
#include "base/status.h"

namespace tp {

// One tensor to place, described by byte size and alignment.
struct BulkRequest {
  int64_t bytes = 0;
  int64_t alignment = 1;  // any integer >= 1 (TE rounds up to a multiple)
};

struct BulkEntry {
  int64_t offset = 0;     // from the aligned base pointer
  int64_t bytes = 0;
  int64_t alignment = 1;
  bool separate = false;  // zero-byte tensors get their own (empty) allocation
};

struct BulkLayout {
  std::vector<BulkEntry> entries;
  int64_t used_bytes = 0;        // the final cursor
  int64_t base_alignment = 1;    // the largest alignment seen
  int64_t allocation_bytes = 0;  // used_bytes plus a full base_alignment of slack when > 1
};

// Walks the requests in order: offset = roundup(cursor, alignment), cursor =
// offset + bytes. A zero-byte entry still advances the cursor to its alignment.
// Alignments need not be powers of two: TE's roundup is ceil(v / a) * a. The
// base pointer is rounded up to the largest alignment only, so with mixed
// non-power-of-two alignments an offset is aligned relative to the base, not
// necessarily as an address (TE behaves the same).
Status bulk_layout(const std::vector<BulkRequest>& requests, BulkLayout* out);

// Byte size of a dense tensor of `shape` and `dtype` (FP4 packs two per byte,
// rounded up). The error does not name the tensor: callers prefix it.
Status dense_bytes(const std::vector<int64_t>& shape, DType dtype, int64_t* out);

}  // namespace tp

#endif  // TENSORPLAN_BULK_LAYOUT_H
