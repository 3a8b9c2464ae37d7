#include "formats/grouped_layout.h"

#include "formats/tensor_spec.h"

namespace tp {

namespace {

int64_t ceildiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

// Bytes of `elements` items of `element` format (FP4 packs two per byte).
int64_t bytes_of(int64_t elements, DType element) { return elements * dtype_bits(element) / 8; }

GroupedBuffer per_member_buffer(const std::string& name, DType dtype, DType element,
                                const std::vector<int64_t>& member_elements) {
  GroupedBuffer buffer;
  buffer.name = name;
  buffer.dtype = dtype;
  buffer.element = element;
  buffer.member_offsets.push_back(0);
  for (int64_t n : member_elements) {
    buffer.elements += n;
    buffer.member_offsets.push_back(buffer.elements);
  }
  buffer.bytes = bytes_of(buffer.elements, element);
  buffer.cpp_elements = buffer.elements;
  buffer.cpp_bytes = buffer.bytes;
  return buffer;
}

void set_cpp_elements(GroupedBuffer* buffer, int64_t elements) {
  buffer->cpp_elements = elements;
  buffer->cpp_bytes = bytes_of(elements, buffer->element);
}

// What the members' shapes say about the group as a whole.
struct MemberShapes {
  std::vector<int64_t> numels;  // elements of each member
  bool same_first = true, same_last = true;
  int64_t sum_first = 0, sum_last = 0, total = 0;
};

// The format's own rules (dtype, options), checked on a shape every recipe
// accepts, and the grouped row-scaled NVFP4 rule of TE's Python
// make_grouped_tensor and C++ NVFP4Quantizer::create_grouped_tensor.
Status check_group_format(DType dtype, Recipe recipe, bool rowwise, bool columnwise, const FormatOptions& options) {
  TensorSpec probe;
  probe.shape = {128, 128};
  probe.dtype = dtype;
  probe.recipe = recipe;
  probe.rowwise = rowwise;
  probe.columnwise = columnwise;
  probe.options = options;
  TP_RETURN_IF_ERROR(validate_tensor_spec(probe));
  if (recipe == Recipe::kNvfp4 && options.nvfp4_row_scaled && columnwise) {
    return Status::invalid("nvfp4 row-scaled grouped tensors do not support columnwise usage (TE make_grouped_tensor "
                           "raises ValueError)");
  }
  return Status::ok();
}

// Checks each member as TE's Python make_grouped_tensor does (2-D; no
// per-member block divisibility: its get_scale_shape pads any shape) and
// gathers their element counts and which dimensions vary.
Status check_members(const std::vector<std::vector<int64_t>>& shapes, MemberShapes* members) {
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::string field = "shapes[" + std::to_string(i) + "]";
    if (shapes[i].size() != 2) {
      return Status::invalid(field + " = " + shape_to_string(shapes[i]) + ": grouped members must be 2-D");
    }
    for (size_t d = 0; d < 2; ++d) {
      if (shapes[i][d] < 0) {
        return Status::invalid(field + " = " + shape_to_string(shapes[i]) + ": dims must be >= 0");
      }
    }
    const int64_t m = shapes[i][0], k = shapes[i][1];
    if (m != shapes[0][0]) members->same_first = false;
    if (k != shapes[0][1]) members->same_last = false;
    int64_t numel = 0;
    TP_RETURN_IF_ERROR(checked_mul(m, k, field + " element count", &numel));
    TP_RETURN_IF_ERROR(checked_add(members->total, numel, "grouped element count", &members->total));
    members->sum_first += m;
    members->sum_last += k;
    members->numels.push_back(numel);
  }
  return Status::ok();
}

// The group's shape kind and logical 2-D extent (members stacked along the
// dimension that varies; flattened to one row when both vary), and the
// members' element offsets.
void set_logical_shape(const std::vector<std::vector<int64_t>>& shapes, const MemberShapes& members,
                       GroupedLayout* layout) {
  if (members.same_first && members.same_last) {
    layout->kind = GroupedShapeKind::kUniform;
    layout->logical_rows = members.sum_first;
    layout->logical_cols = shapes[0][1];
  } else if (members.same_last) {
    layout->kind = GroupedShapeKind::kVaryingFirst;
    layout->logical_rows = members.sum_first;
    layout->logical_cols = shapes[0][1];
  } else if (members.same_first) {
    layout->kind = GroupedShapeKind::kVaryingLast;
    layout->logical_rows = shapes[0][0];
    layout->logical_cols = members.sum_last;
  } else {
    layout->kind = GroupedShapeKind::kVaryingBoth;
    layout->logical_rows = 1;
    layout->logical_cols = members.total;
  }
  layout->tensor_offsets.push_back(0);
  for (int64_t numel : members.numels) layout->tensor_offsets.push_back(layout->tensor_offsets.back() + numel);
  layout->has_tensor_offsets = layout->kind != GroupedShapeKind::kUniform;
}

// Block scales (MXFP8, NVFP4, FP8 block): per-member sums of
// get_scale_shape, plus the C++ total sizing over the logical shape.
Status add_block_scale_buffers(const std::vector<std::vector<int64_t>>& shapes, Recipe recipe, bool rowwise,
                               bool columnwise, const MemberShapes& members, GroupedLayout* layout) {
  const size_t n = shapes.size();
  const int64_t rows = layout->logical_rows, cols = layout->logical_cols;
  const bool both_vary = layout->kind == GroupedShapeKind::kVaryingBoth;
  const DType scale_dtype = is_fp8_block(recipe) ? DType::kFloat32 : DType::kUInt8;
  const DType scale_element = recipe == Recipe::kMxfp8 ? DType::kFloat8E8M0
                              : recipe == Recipe::kNvfp4 ? DType::kFloat8E4M3 : DType::kFloat32;
  const int64_t block = recipe == Recipe::kMxfp8 ? 32 : 16;
  for (int usage = 0; usage < 2; ++usage) {
    const bool col = usage == 1;
    if (col ? !columnwise : !rowwise) continue;
    std::vector<int64_t> member_scales, shape;
    for (const std::vector<int64_t>& s : shapes) {
      TP_RETURN_IF_ERROR(scale_shape(recipe, s[0], s[1], col, &shape));
      member_scales.push_back(product(shape));
    }
    GroupedBuffer buffer = per_member_buffer(col ? "columnwise_scale_inv" : "scale_inv", scale_dtype,
                                             scale_element, member_scales);
    if (both_vary && recipe == Recipe::kMxfp8) {
      set_cpp_elements(&buffer, members.total / block);
    } else if (both_vary && recipe == Recipe::kNvfp4) {
      set_cpp_elements(&buffer, 0);  // TE's C++ refuses (cpp_unavailable)
    } else {
      TP_RETURN_IF_ERROR(scale_shape(recipe, rows, cols, col, &shape));
      int64_t cpp = product(shape);
      if (recipe == Recipe::kFp8Block2D && col) cpp += ceildiv(cols, 128) * 4 * static_cast<int64_t>(n - 1);
      set_cpp_elements(&buffer, cpp);
    }
    layout->buffers.push_back(buffer);
  }
  return Status::ok();
}

// The per-member FP32 scalars: NVFP4 amaxes, FP8 per-tensor scales and amaxes.
void add_per_member_scalars(const std::vector<std::vector<int64_t>>& shapes, Recipe recipe, bool rowwise,
                            bool columnwise, bool non_tn, const FormatOptions& options, int64_t logical_rows,
                            std::vector<GroupedBuffer>* buffers) {
  const size_t n = shapes.size();
  const DType f32 = DType::kFloat32;
  const std::vector<int64_t> per_tensor(n, 1);
  if (recipe == Recipe::kNvfp4) {
    if (rowwise) {
      std::vector<int64_t> amax_counts = per_tensor;
      if (options.nvfp4_row_scaled) {
        for (size_t i = 0; i < n; ++i) amax_counts[i] = shapes[i][0];
      }
      buffers->push_back(per_member_buffer("amax", f32, f32, amax_counts));
      // C++ create_grouped_tensor sizes row-scaled amaxes by logical_first_dim.
      if (options.nvfp4_row_scaled) set_cpp_elements(&buffers->back(), logical_rows);
    }
    if (columnwise) buffers->push_back(per_member_buffer("columnwise_amax", f32, f32, per_tensor));
  }
  if (recipe == Recipe::kFp8Delayed) {
    if (rowwise) buffers->push_back(per_member_buffer("scale_inv", f32, f32, per_tensor));
    if (columnwise) buffers->push_back(per_member_buffer("columnwise_scale_inv", f32, f32, per_tensor));
    buffers->push_back(per_member_buffer("amax", f32, f32, per_tensor));
  }
  if (recipe == Recipe::kFp8Current) {
    // One scale_inv per member, shared by rowwise and columnwise data; TE names
    // it columnwise_scale_inv when only columnwise data exists (Hopper).
    const bool with_rowwise_data = rowwise || non_tn;
    if (with_rowwise_data || columnwise) {
      buffers->push_back(per_member_buffer(with_rowwise_data ? "scale_inv" : "columnwise_scale_inv", f32, f32, per_tensor));
    }
    buffers->push_back(per_member_buffer("amax", f32, f32, per_tensor));
    buffers->push_back(per_member_buffer("scale", f32, f32, per_tensor));
  }
}

// Shape descriptors: int64 device tensors, present only where dims vary.
void add_shape_descriptors(size_t n, const MemberShapes& members, GroupedLayout* layout) {
  auto shape_buffer = [&](const char* name, int64_t count) {
    GroupedBuffer buffer;
    buffer.name = name;
    buffer.dtype = buffer.element = DType::kInt64;
    buffer.elements = buffer.cpp_elements = count;
    buffer.bytes = buffer.cpp_bytes = count * 8;
    layout->buffers.push_back(buffer);
  };
  if (!members.same_first) shape_buffer("first_dims", static_cast<int64_t>(n));
  if (!members.same_last) shape_buffer("last_dims", static_cast<int64_t>(n));
  if (layout->has_tensor_offsets) shape_buffer("tensor_offsets", static_cast<int64_t>(n + 1));
}

// Why TE's C++ *Quantizer::create_grouped_tensor refuses the group, or ""
// (pytorch/csrc/quantizer.cpp, TE d0067d0da6).
std::string cpp_refusal(Recipe recipe, bool rowwise, bool columnwise, const GroupedLayout& layout) {
  const bool both_vary = layout.kind == GroupedShapeKind::kVaryingBoth;
  const std::string logical = "[" + std::to_string(layout.logical_rows) + ", " + std::to_string(layout.logical_cols) + "]";
  if (recipe == Recipe::kFp8Current && both_vary) {
    return "Float8CurrentScalingQuantizer::create_grouped_tensor refuses varying both first and last dims";
  }
  if (recipe == Recipe::kNvfp4) {
    const int64_t total = layout.tensor_offsets.back();
    if (total % 2 != 0) return "NVFP4Quantizer::create_grouped_tensor needs an even element count, got " + std::to_string(total);
    if ((rowwise || columnwise) && (layout.logical_rows % 16 != 0 || layout.logical_cols % 16 != 0)) {
      return std::string("NVFP4Quantizer::get_scale_shape needs the logical shape ") + logical + " in multiples of 16" +
             (both_vary ? " (both dims vary: the logical shape is [1, total])" : "");
    }
  }
  if (recipe == Recipe::kMxfp8 && !both_vary && (rowwise || columnwise) &&
      (layout.logical_rows % 32 != 0 || layout.logical_cols % 32 != 0)) {
    return "MXFP8Quantizer::get_scale_shape needs the logical shape " + logical + " in multiples of 32";
  }
  return "";
}

}  // namespace

Status grouped_layout(const std::vector<std::vector<int64_t>>& shapes, DType dtype, Recipe recipe,
                      bool rowwise, bool columnwise, Arch arch, const FormatOptions& options, GroupedLayout* out) {
  const size_t n = shapes.size();
  if (n == 0) return Status::invalid("shapes: a grouped tensor needs at least one member");
  TP_RETURN_IF_ERROR(check_group_format(dtype, recipe, rowwise, columnwise, options));
  MemberShapes members;
  TP_RETURN_IF_ERROR(check_members(shapes, &members));
  GroupedLayout layout;
  set_logical_shape(shapes, members, &layout);
  // TE's Python make_grouped_tensor asserts logical_last_dim > 0.
  if (layout.logical_cols == 0) {
    return Status::invalid("shapes: the grouped tensor's logical last dim is 0; TE's make_grouped_tensor needs it > 0");
  }

  // Data: one element per logical element in both sizings.
  DType data_dtype = DType::kUInt8, data_element = options.fp8_dtype;
  if (recipe == Recipe::kNone) data_dtype = data_element = dtype;
  if (recipe == Recipe::kNvfp4) data_element = DType::kFloat4E2M1;
  // FP8 current scaling where the GPU runs non-TN FP8 GEMMs (Blackwell): one
  // data buffer serves both usages, in TE's Python make_grouped_tensor and C++
  // Float8CurrentScalingQuantizer::create_grouped_tensor alike.
  const bool non_tn = recipe == Recipe::kFp8Current && arch == Arch::kBlackwell;
  bool with_rowwise = rowwise || non_tn;
  bool with_columnwise = columnwise && !non_tn;
  // Unquantized groups: TE's Python path allocates `data` only, whatever the
  // usages; the C++ NoneQuantizer::create_grouped_tensor follows the usages.
  const bool plain = recipe == Recipe::kNone;
  if (plain) with_rowwise = true, with_columnwise = columnwise;
  if (with_rowwise) {
    layout.buffers.push_back(per_member_buffer("rowwise_data", data_dtype, data_element, members.numels));
    if (plain && !rowwise) set_cpp_elements(&layout.buffers.back(), 0);
  }
  if (with_columnwise) {
    layout.buffers.push_back(per_member_buffer("columnwise_data", data_dtype, data_element,
                                               plain ? std::vector<int64_t>(n, 0) : members.numels));
    if (plain) set_cpp_elements(&layout.buffers.back(), members.total);
  }
  if (recipe == Recipe::kMxfp8 || recipe == Recipe::kNvfp4 || is_fp8_block(recipe)) {
    TP_RETURN_IF_ERROR(add_block_scale_buffers(shapes, recipe, rowwise, columnwise, members, &layout));
  }
  add_per_member_scalars(shapes, recipe, rowwise, columnwise, non_tn, options, layout.logical_rows, &layout.buffers);
  add_shape_descriptors(n, members, &layout);

  layout.cpp_unavailable_reason = cpp_refusal(recipe, rowwise, columnwise, layout);
  layout.cpp_available = layout.cpp_unavailable_reason.empty();
  for (GroupedBuffer& buffer : layout.buffers) {
    if (!layout.cpp_available) set_cpp_elements(&buffer, 0);
    layout.total_bytes += buffer.bytes;
    layout.cpp_total_bytes += buffer.cpp_bytes;
  }
  *out = std::move(layout);
  return Status::ok();
}

}  // namespace tp
