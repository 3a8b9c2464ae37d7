// Grouped tensor layout (FORMATS.md §3): N 2-D members stored in one 1-D
// buffer per role (rowwise data, columnwise data, scales, amaxes, ...),
// packed back to back in member order with no padding between members.
//
// Two sizings of the scale buffers exist in TE and both are reported:
//  * per-member ("python"): GroupedTensorStorage.make_grouped_tensor sums
//    get_scale_shape(member) over members; member t's scales start at
//    scale_inv_offsets[t]. This is what split_into_quantized_tensors views.
//  * total-shape ("cpp"): the C++ *Quantizer::create_grouped_tensor sizes
//    scales from the logical total shape (graph-safe, no device->host copy):
//    MXFP8/NVFP4 product(get_scale_shape(logical)), or numel/32 (numel/16)
//    when both dims vary; block FP8 adds ceildiv(K,128)*4*(N-1) slack to 2D
//    columnwise scales. Grouped MXFP8 kernels find member t's scales at
//    data_offset_t / 32.
// The two agree when every member's first dim is a multiple of 128.
// Where TE's C++ create_grouped_tensor refuses the group (FP8 current scaling
// or NVFP4 with both dims varying, a logical shape its get_scale_shape
// rejects), the C++ sizing is unavailable: cpp_available is false, the reason
// names the TE function, and the cpp sizes are 0. A buffer only one path
// allocates (unquantized columnwise data: C++ only) is 0 in the other sizing.
// Members are accepted as TE's Python make_grouped_tensor accepts them: 2-D,
// dims >= 0, logical last dim > 0, with no per-member block divisibility.
#ifndef TENSORPLAN_GROUPED_LAYOUT_H
#define TENSORPLAN_GROUPED_LAYOUT_H

#include <cstdint>
#include <string>
#include <vector>

#include "formats/recipe.h"
#include "base/status.h"

namespace tp {

// Expanded from TP_GROUPED_KIND_LIST (c_api.h): kUniform (all (M, K) equal:
// logical (N*M, K), no tensor_offsets), kVaryingFirst (sum M_i, K),
// kVaryingLast (M, sum K_i), kVaryingBoth (1, sum M_i*K_i).
enum class GroupedShapeKind : int32_t {
#define TP_X(code, c, cpp, name) k##cpp = TP_GROUPED_##c,
  TP_GROUPED_KIND_LIST(TP_X)
#undef TP_X
};

struct GroupedBuffer {
  std::string name;               // GroupedTensorStorage attribute, e.g. "columnwise_scale_inv"
  DType dtype = DType::kUInt8;    // storage dtype (uint8, fp32, int64, or the plain dtype)
  DType element = DType::kUInt8;  // element format (fp8_e4m3, fp4_e2m1, e8m0, ...)
  int64_t elements = 0;           // 1-D length, per-member sizing, in element-format units
  int64_t bytes = 0;
  // Start of each member in elements (N+1 entries, CSR); empty for the
  // int64 shape buffers. For data these are the tensor_offsets.
  std::vector<int64_t> member_offsets;
  int64_t cpp_elements = 0;       // total-shape sizing of the C++ path
  int64_t cpp_bytes = 0;
};

struct GroupedLayout {
  GroupedShapeKind kind = GroupedShapeKind::kUniform;
  int64_t logical_rows = 0;
  int64_t logical_cols = 0;
  std::vector<int64_t> tensor_offsets;  // N+1 element offsets (always computed)
  bool has_tensor_offsets = false;      // TE stores them only for non-uniform shapes
  std::vector<GroupedBuffer> buffers;   // in GroupedTensorStorage field order
  int64_t total_bytes = 0;              // sum over buffers, per-member sizing
  int64_t cpp_total_bytes = 0;          // sum over buffers, total-shape sizing
  bool cpp_available = true;            // false where TE's C++ create_grouped_tensor refuses
  std::string cpp_unavailable_reason;   // why, naming the TE check ("" when available)
};

// `shapes[i]` = {M_i, K_i}. `arch` selects FP8 current scaling's non-TN rule
// (Blackwell: one data buffer serves both usages).
Status grouped_layout(const std::vector<std::vector<int64_t>>& shapes, DType dtype, Recipe recipe,
                      bool rowwise, bool columnwise, Arch arch, const FormatOptions& options, GroupedLayout* out);

}  // namespace tp

#endif  // TENSORPLAN_GROUPED_LAYOUT_H
