#include "formats/split_quantize_layout.h"

#include "formats/recipe_facts.h"

namespace tp {

Status split_quantize_layout(const std::vector<std::vector<int64_t>>& member_shapes, DType dtype,
                             Recipe recipe, bool columnwise, const FormatOptions& options,
                             SplitQuantizeLayout* out) {
  if (!recipe_facts(recipe).split_bulk) {
    return Status::unsupported(std::string("split_quantize_layout: recipe ") + recipe_name(recipe) +
                               " is not bulk-allocated by TE (only mxfp8, nvfp4, fp8_block_1d/2d)");
  }
  // Entries grouped by role, each group in member order.
  std::vector<SplitQuantizeEntry> groups[3];
  for (size_t i = 0; i < member_shapes.size(); ++i) {
    TensorSpec spec;
    spec.shape = member_shapes[i];
    spec.dtype = dtype;
    spec.recipe = recipe;
    spec.rowwise = !columnwise;
    spec.columnwise = columnwise;
    spec.options = options;
    std::vector<BufferSpec> buffers;
    Status status = tensor_spec_buffers(spec, &buffers);
    if (!status.is_ok()) {
      return Status(status.code(), "members[" + std::to_string(i) + "]: " + status.message());
    }
    for (BufferSpec& buffer : buffers) {
      SplitQuantizeEntry entry;
      entry.member = static_cast<int32_t>(i);
      entry.buffer = std::move(buffer);
      groups[static_cast<int>(entry.buffer.role)].push_back(std::move(entry));
    }
  }
  SplitQuantizeLayout layout;
  std::vector<BulkRequest> requests;
  for (const std::vector<SplitQuantizeEntry>& group : groups) {
    for (const SplitQuantizeEntry& entry : group) {
      layout.entries.push_back(entry);
      requests.push_back({entry.buffer.bytes, entry.buffer.alignment});
    }
  }
  TP_RETURN_IF_ERROR(bulk_layout(requests, &layout.bulk));
  for (size_t e = 0; e < layout.entries.size(); ++e) layout.entries[e].offset = layout.bulk.entries[e].offset;
  if (recipe == Recipe::kNvfp4) {
    bool contiguous = true;
    for (const SplitQuantizeEntry& entry : layout.entries) {
      if (entry.buffer.role == BufferRole::kData && entry.buffer.bytes % 256 != 0) contiguous = false;
      if (entry.buffer.role == BufferRole::kScale && entry.buffer.bytes % 16 != 0) contiguous = false;
    }
    layout.contiguous_data_and_scale = contiguous;
  }
  *out = std::move(layout);
  return Status::ok();
}

}  // namespace tp
