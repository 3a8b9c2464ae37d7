// Split-quantize bulk layout (FORMATS.md §1): TE's split_quantize allocates
// the quantized outputs of N members with one bulk_allocate call per usage:
// all data buffers (256 B aligned), then all scale buffers (16 B aligned),
// then, for NVFP4 only, all amax buffers (16 B aligned).
#ifndef TENSORPLAN_SPLIT_QUANTIZE_LAYOUT_H
#define TENSORPLAN_SPLIT_QUANTIZE_LAYOUT_H

#include <cstdint>
#include <string>
#include <vector>

#include "formats/bulk_layout.h"
#include "formats/tensor_spec.h"

namespace tp {

struct SplitQuantizeEntry {
  int32_t member = 0;        // index into the member list
  BufferSpec buffer;         // the member's buffer (name, shape, dtype, bytes, alignment)
  int64_t offset = 0;        // byte offset from the aligned base
};

struct SplitQuantizeLayout {
  std::vector<SplitQuantizeEntry> entries;  // data_0..data_{N-1}, scale_0.., amax_0..
  BulkLayout bulk;                          // offsets, used bytes, allocation bytes
  // NVFP4 only: every packed data size is a multiple of 256 B and every scale
  // count a multiple of 16, so data and scales sit back to back without gaps.
  bool contiguous_data_and_scale = false;
};

// Lays out one usage (`columnwise` false: the rowwise call) for members of
// `member_shapes` quantized with `recipe` (MXFP8, NVFP4 or FP8 block, the
// formats TE bulk-allocates). `dtype` is the members' logical dtype.
Status split_quantize_layout(const std::vector<std::vector<int64_t>>& member_shapes, DType dtype,
                             Recipe recipe, bool columnwise, const FormatOptions& options,
                             SplitQuantizeLayout* out);

}  // namespace tp

#endif  // TENSORPLAN_SPLIT_QUANTIZE_LAYOUT_H
