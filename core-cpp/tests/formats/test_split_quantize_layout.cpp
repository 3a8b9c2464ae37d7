// FORMATS.md §1: split_quantize bulk layouts (examples B and C) and their
// invariants on random members.
#include <gtest/gtest.h>

#include <random>

#include "formats/split_quantize_layout.h"

namespace {

using tp::Recipe;

tp::SplitQuantizeLayout layout_of(const std::vector<std::vector<int64_t>>& shapes, Recipe recipe, bool columnwise) {
  tp::SplitQuantizeLayout layout;
  tp::Status status = tp::split_quantize_layout(shapes, tp::DType::kBFloat16, recipe, columnwise, tp::FormatOptions(), &layout);
  EXPECT_TRUE(status.is_ok()) << status.message();
  return layout;
}

TEST(SplitQuantizeLayout, ExampleB_Mxfp8Rowwise) {
  tp::SplitQuantizeLayout layout = layout_of({{96, 160}, {128, 160}}, Recipe::kMxfp8, false);
  ASSERT_EQ(layout.entries.size(), 4u);
  const char* names[] = {"_rowwise_data", "_rowwise_data", "_rowwise_scale_inv", "_rowwise_scale_inv"};
  const int32_t members[] = {0, 1, 0, 1};
  const int64_t bytes[] = {15360, 20480, 1024, 1024};
  const int64_t offsets[] = {0, 15360, 35840, 36864};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(layout.entries[i].buffer.name, names[i]);
    EXPECT_EQ(layout.entries[i].member, members[i]);
    EXPECT_EQ(layout.entries[i].buffer.bytes, bytes[i]);
    EXPECT_EQ(layout.entries[i].offset, offsets[i]) << i;
  }
  EXPECT_EQ(layout.entries[2].buffer.shape, (std::vector<int64_t>{128, 8}));
  EXPECT_EQ(layout.entries[3].buffer.shape, (std::vector<int64_t>{128, 8}));
  EXPECT_EQ(layout.bulk.used_bytes, 37888);
  EXPECT_EQ(layout.bulk.allocation_bytes, 38144);
  EXPECT_FALSE(layout.contiguous_data_and_scale);  // reported for NVFP4 only
}

TEST(SplitQuantizeLayout, ExampleC_Nvfp4RowwiseWithAmaxes) {
  tp::SplitQuantizeLayout layout = layout_of({{48, 80}, {32, 48}}, Recipe::kNvfp4, false);
  ASSERT_EQ(layout.entries.size(), 6u);
  const std::vector<std::vector<int64_t>> shapes = {{48, 40}, {32, 24}, {128, 8}, {128, 4}, {1}, {1}};
  const int64_t bytes[] = {1920, 768, 1024, 512, 4, 4};
  const int64_t offsets[] = {0, 2048, 2816, 3840, 4352, 4368};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(layout.entries[i].buffer.shape, shapes[i]) << i;
    EXPECT_EQ(layout.entries[i].buffer.bytes, bytes[i]) << i;
    EXPECT_EQ(layout.entries[i].offset, offsets[i]) << i;
  }
  EXPECT_EQ(layout.entries[4].buffer.name, "_amax_rowwise");
  EXPECT_EQ(layout.bulk.used_bytes, 4372);
  EXPECT_EQ(layout.bulk.allocation_bytes, 4628);
  EXPECT_FALSE(layout.contiguous_data_and_scale);  // 1920 % 256 != 0
}

TEST(SplitQuantizeLayout, Nvfp4ContiguousWhenNoGaps) {
  tp::SplitQuantizeLayout layout = layout_of({{128, 64}, {256, 64}}, Recipe::kNvfp4, true);
  EXPECT_TRUE(layout.contiguous_data_and_scale);
  // Columnwise call: transposed, halved data.
  EXPECT_EQ(layout.entries[0].buffer.name, "_columnwise_data");
  EXPECT_EQ(layout.entries[0].buffer.shape, (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(layout.entries[1].offset, 4096);
}

TEST(SplitQuantizeLayout, RejectsPerTensorRecipesAndBadMembers) {
  tp::SplitQuantizeLayout layout;
  tp::Status status = tp::split_quantize_layout({{32, 32}}, tp::DType::kBFloat16, Recipe::kFp8Current, false,
                                                tp::FormatOptions(), &layout);
  EXPECT_EQ(status.code(), TP_ERR_UNSUPPORTED);
  status = tp::split_quantize_layout({{32, 32}, {40, 32}}, tp::DType::kBFloat16, Recipe::kMxfp8, false,
                                     tp::FormatOptions(), &layout);
  EXPECT_EQ(status.message(),
            "members[1]: mxfp8 cannot quantize shape [40, 32]: needs M % 32 == 0 (M = product of all "
            "dims but the last), got M = 40");
}

TEST(SplitQuantizeLayout, RandomLayoutsAreAlignedDisjointAndGroupedByRole) {
  std::mt19937_64 rng(2024);
  const Recipe recipes[] = {Recipe::kMxfp8, Recipe::kNvfp4, Recipe::kFp8Block1D, Recipe::kFp8Block2D};
  for (int round = 0; round < 300; ++round) {
    const Recipe recipe = recipes[rng() % 4];
    std::vector<std::vector<int64_t>> shapes(1 + rng() % 6);
    const int64_t k = static_cast<int64_t>(1 + rng() % 8) * 32;
    for (auto& s : shapes) s = {static_cast<int64_t>(rng() % 9) * 32, k};
    tp::SplitQuantizeLayout layout = layout_of(shapes, recipe, rng() & 1);
    int64_t end = 0;
    int last_role = 0;
    int64_t sum = 0;
    for (const tp::SplitQuantizeEntry& entry : layout.entries) {
      const int role = static_cast<int>(entry.buffer.role);
      EXPECT_GE(role, last_role);  // data, then scales, then amaxes
      last_role = role;
      EXPECT_EQ(entry.offset % entry.buffer.alignment, 0);
      EXPECT_EQ(entry.buffer.alignment, role == 0 ? 256 : 16);
      EXPECT_GE(entry.offset, end);  // no overlap
      EXPECT_LT(entry.offset - end, entry.buffer.alignment);
      end = entry.offset + entry.buffer.bytes;
      sum += entry.buffer.bytes;
    }
    EXPECT_EQ(layout.bulk.used_bytes, end);
    EXPECT_LE(sum, end);
    const size_t per_member = recipe == Recipe::kNvfp4 ? 3 : 2;
    EXPECT_EQ(layout.entries.size(), per_member * shapes.size());
  }
}

}  // namespace
