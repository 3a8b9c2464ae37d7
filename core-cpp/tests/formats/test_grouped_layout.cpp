// FORMATS.md §3: grouped tensor layouts (both worked examples), the four
// shape kinds, per-format buffers and the two scale sizings.
#include <gtest/gtest.h>

#include <random>

#include "formats/grouped_layout.h"

namespace {

using tp::GroupedBuffer;
using tp::GroupedLayout;
using tp::Recipe;

GroupedLayout layout_of(const std::vector<std::vector<int64_t>>& shapes, Recipe recipe, bool row = true,
                        bool col = true, tp::FormatOptions options = tp::FormatOptions()) {
  GroupedLayout layout;
  tp::Status status = tp::grouped_layout(shapes, tp::DType::kBFloat16, recipe, row, col, options, &layout);
  EXPECT_TRUE(status.is_ok()) << status.message();
  return layout;
}

const GroupedBuffer* find(const GroupedLayout& layout, const std::string& name) {
  for (const GroupedBuffer& buffer : layout.buffers) {
    if (buffer.name == name) return &buffer;
  }
  return nullptr;
}

std::vector<std::string> names(const GroupedLayout& layout) {
  std::vector<std::string> out;
  for (const GroupedBuffer& buffer : layout.buffers) out.push_back(buffer.name);
  return out;
}

TEST(GroupedLayout, ExampleMxfp8VaryingFirstDim) {
  GroupedLayout layout = layout_of({{128, 512}, {256, 512}, {384, 512}}, Recipe::kMxfp8);
  EXPECT_EQ(layout.kind, tp::GroupedShapeKind::kVaryingFirst);
  EXPECT_EQ(layout.logical_rows, 768);
  EXPECT_EQ(layout.logical_cols, 512);
  EXPECT_TRUE(layout.has_tensor_offsets);
  EXPECT_EQ(layout.tensor_offsets, (std::vector<int64_t>{0, 65536, 196608, 393216}));
  EXPECT_EQ(find(layout, "rowwise_data")->bytes, 393216);
  EXPECT_EQ(find(layout, "columnwise_data")->bytes, 393216);
  EXPECT_EQ(find(layout, "rowwise_data")->member_offsets, layout.tensor_offsets);
  EXPECT_EQ(find(layout, "scale_inv")->member_offsets, (std::vector<int64_t>{0, 2048, 6144, 12288}));
  EXPECT_EQ(find(layout, "columnwise_scale_inv")->member_offsets, (std::vector<int64_t>{0, 2048, 6144, 12288}));
  // Every first dim is a multiple of 128: the C++ total-shape sizing agrees.
  EXPECT_EQ(find(layout, "scale_inv")->cpp_elements, 12288);
  EXPECT_EQ(find(layout, "columnwise_scale_inv")->cpp_elements, 12288);
  EXPECT_EQ(names(layout), (std::vector<std::string>{"rowwise_data", "columnwise_data", "scale_inv",
                                                     "columnwise_scale_inv", "first_dims", "tensor_offsets"}));
  EXPECT_EQ(find(layout, "tensor_offsets")->bytes, 32);
  EXPECT_EQ(find(layout, "first_dims")->bytes, 24);
}

TEST(GroupedLayout, ExampleNvfp4Uniform) {
  GroupedLayout layout = layout_of({{256, 1024}, {256, 1024}, {256, 1024}, {256, 1024}}, Recipe::kNvfp4);
  EXPECT_EQ(layout.kind, tp::GroupedShapeKind::kUniform);
  EXPECT_EQ(layout.logical_rows, 1024);
  EXPECT_EQ(layout.logical_cols, 1024);
  EXPECT_FALSE(layout.has_tensor_offsets);
  EXPECT_EQ(layout.tensor_offsets[1], 262144);  // member i at element i*262144 ...
  const GroupedBuffer* data = find(layout, "rowwise_data");
  EXPECT_EQ(data->bytes, 524288);
  EXPECT_EQ(data->member_offsets[1] / 2, 131072);  // ... byte i*131072
  EXPECT_EQ(find(layout, "columnwise_data")->bytes, 524288);
  EXPECT_EQ(find(layout, "scale_inv")->bytes, 65536);
  EXPECT_EQ(find(layout, "scale_inv")->member_offsets[1], 256 * 64);
  EXPECT_EQ(find(layout, "columnwise_scale_inv")->bytes, 65536);
  EXPECT_EQ(find(layout, "columnwise_scale_inv")->member_offsets[1], 1024 * 16);
  EXPECT_EQ(find(layout, "amax")->bytes, 16);
  EXPECT_EQ(find(layout, "columnwise_amax")->bytes, 16);
  EXPECT_EQ(find(layout, "tensor_offsets"), nullptr);
  EXPECT_EQ(layout.cpp_total_bytes, layout.total_bytes);
}

TEST(GroupedLayout, LogicalShapeForEachKind) {
  GroupedLayout last = layout_of({{64, 32}, {64, 96}}, Recipe::kNone, true, false);
  EXPECT_EQ(last.kind, tp::GroupedShapeKind::kVaryingLast);
  EXPECT_EQ(last.logical_rows, 64);
  EXPECT_EQ(last.logical_cols, 128);
  EXPECT_EQ(last.tensor_offsets, (std::vector<int64_t>{0, 2048, 8192}));
  EXPECT_EQ(find(last, "rowwise_data")->bytes, 8192 * 2);  // bf16 plain data
  EXPECT_NE(find(last, "last_dims"), nullptr);
  EXPECT_EQ(find(last, "first_dims"), nullptr);
  GroupedLayout both = layout_of({{32, 64}, {64, 32}}, Recipe::kNone, true, false);
  EXPECT_EQ(both.kind, tp::GroupedShapeKind::kVaryingBoth);
  EXPECT_EQ(both.logical_rows, 1);
  EXPECT_EQ(both.logical_cols, 4096);
  EXPECT_NE(find(both, "first_dims"), nullptr);
  EXPECT_NE(find(both, "last_dims"), nullptr);
}

TEST(GroupedLayout, PerTensorRecipesKeepOneScalePerMember) {
  GroupedLayout current = layout_of({{16, 16}, {32, 16}, {48, 16}}, Recipe::kFp8Current);
  EXPECT_EQ(names(current), (std::vector<std::string>{"rowwise_data", "columnwise_data", "scale_inv", "amax",
                                                      "scale", "first_dims", "tensor_offsets"}));
  EXPECT_EQ(find(current, "scale_inv")->bytes, 12);
  EXPECT_EQ(find(current, "scale_inv")->member_offsets, (std::vector<int64_t>{0, 1, 2, 3}));
  GroupedLayout delayed = layout_of({{16, 16}, {16, 16}}, Recipe::kFp8Delayed);
  EXPECT_EQ(names(delayed), (std::vector<std::string>{"rowwise_data", "columnwise_data", "scale_inv",
                                                      "columnwise_scale_inv", "amax"}));
}

TEST(GroupedLayout, Nvfp4RowScaledAmaxPerRow) {
  tp::FormatOptions options;
  options.nvfp4_row_scaled = true;
  GroupedLayout layout = layout_of({{16, 32}, {48, 32}}, Recipe::kNvfp4, true, false, options);
  EXPECT_EQ(find(layout, "amax")->elements, 64);
  EXPECT_EQ(find(layout, "amax")->member_offsets, (std::vector<int64_t>{0, 16, 64}));
}

TEST(GroupedLayout, CppTotalShapeSizingDiffersWhenFirstDimsAreNot128Aligned) {
  // MXFP8 rowwise: members [32,64],[32,64] per-member pad each to 128 rows
  // (2 * 128*4 = 1024) while the C++ path pads the total [64,64] once (128*4).
  GroupedLayout layout = layout_of({{32, 64}, {32, 64}}, Recipe::kMxfp8);
  EXPECT_EQ(find(layout, "scale_inv")->elements, 1024);
  EXPECT_EQ(find(layout, "scale_inv")->cpp_elements, 512);
  // Both dims varying: C++ uses numel/32.
  GroupedLayout both = layout_of({{128, 128}, {256, 256}}, Recipe::kMxfp8);
  EXPECT_EQ(find(both, "scale_inv")->cpp_elements, (128 * 128 + 256 * 256) / 32);
  EXPECT_EQ(find(both, "scale_inv")->elements, 128 * 4 + 256 * 8);
  // Block 2D columnwise: slack of ceildiv(K,128)*4*(N-1).
  GroupedLayout block = layout_of({{128, 256}, {128, 256}, {128, 256}}, Recipe::kFp8Block2D);
  EXPECT_EQ(find(block, "columnwise_scale_inv")->cpp_elements, 2 * 4 + 2 * 4 * 2);
  EXPECT_EQ(find(block, "columnwise_scale_inv")->elements, 3 * 2 * 4);
}

TEST(GroupedLayout, RejectsBadMembers) {
  GroupedLayout layout;
  tp::Status status = tp::grouped_layout({{32, 32}, {33, 32}}, tp::DType::kBFloat16, Recipe::kMxfp8, true, true,
                                         tp::FormatOptions(), &layout);
  EXPECT_NE(status.message().find("shapes[1]: mxfp8 cannot quantize shape [33, 32]"), std::string::npos)
      << status.message();
  status = tp::grouped_layout({{32, 32, 2}}, tp::DType::kBFloat16, Recipe::kNone, true, true, tp::FormatOptions(), &layout);
  EXPECT_EQ(status.message(), "shapes[0] = [32, 32, 2]: grouped members must be 2-D");
  status = tp::grouped_layout({}, tp::DType::kBFloat16, Recipe::kNone, true, true, tp::FormatOptions(), &layout);
  EXPECT_FALSE(status.is_ok());
}

TEST(GroupedLayout, RandomGroupsSumCorrectlyAndAgreeWhenFirstDimsAre128Multiples) {
  std::mt19937_64 rng(31);
  const Recipe recipes[] = {Recipe::kMxfp8, Recipe::kNvfp4, Recipe::kFp8Block1D, Recipe::kFp8Current};
  for (int round = 0; round < 300; ++round) {
    const Recipe recipe = recipes[rng() % 4];
    const int64_t k = static_cast<int64_t>(1 + rng() % 6) * 128;
    std::vector<std::vector<int64_t>> shapes(1 + rng() % 5);
    const bool aligned = rng() & 1;
    for (auto& s : shapes) s = {static_cast<int64_t>(1 + rng() % 4) * (aligned ? 128 : 32), k};
    GroupedLayout layout = layout_of(shapes, recipe);
    int64_t total = 0;
    for (const GroupedBuffer& buffer : layout.buffers) {
      total += buffer.bytes;
      if (!buffer.member_offsets.empty()) {
        EXPECT_EQ(buffer.member_offsets.size(), shapes.size() + 1);
        EXPECT_EQ(buffer.member_offsets.back(), buffer.elements);
        for (size_t i = 0; i + 1 < buffer.member_offsets.size(); ++i) {
          EXPECT_LE(buffer.member_offsets[i], buffer.member_offsets[i + 1]);  // packed, no overlap
        }
      }
      if (aligned) {
        EXPECT_EQ(buffer.cpp_elements, buffer.elements) << buffer.name;
      }
    }
    EXPECT_EQ(total, layout.total_bytes);
    EXPECT_EQ(layout.tensor_offsets.back(), layout.logical_rows * layout.logical_cols);
  }
}

}  // namespace
