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
                        bool col = true, tp::FormatOptions options = tp::FormatOptions(),
                        tp::Arch arch = tp::Arch::kHopper) {
  GroupedLayout layout;
  tp::Status status = tp::grouped_layout(shapes, tp::DType::kBFloat16, recipe, row, col, arch, options, &layout);
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
  const tp::Arch hopper = tp::Arch::kHopper;
  tp::Status status =
      tp::grouped_layout({{32, 32, 2}}, tp::DType::kBFloat16, Recipe::kNone, true, true, hopper, tp::FormatOptions(), &layout);
  EXPECT_EQ(status.message(), "shapes[0] = [32, 32, 2]: grouped members must be 2-D");
  status = tp::grouped_layout({}, tp::DType::kBFloat16, Recipe::kNone, true, true, hopper, tp::FormatOptions(), &layout);
  EXPECT_FALSE(status.is_ok());
  // TE's Python make_grouped_tensor asserts logical_last_dim > 0.
  status = tp::grouped_layout({{32, 0}, {64, 0}}, tp::DType::kBFloat16, Recipe::kMxfp8, true, true, hopper,
                              tp::FormatOptions(), &layout);
  EXPECT_NE(status.message().find("logical last dim is 0"), std::string::npos) << status.message();
  // Format rules still apply: a quantized group of int32 data.
  status = tp::grouped_layout({{32, 32}}, tp::DType::kInt32, Recipe::kMxfp8, true, true, hopper, tp::FormatOptions(), &layout);
  EXPECT_NE(status.message().find("dtype = int32"), std::string::npos) << status.message();
}

// Grouped layouts follow TE's Python and C++ sizing. TE d0067d0da6,
// pytorch/tensor/storage/grouped_tensor_storage.py
// GroupedTensorStorage.make_grouped_tensor has no per-member divisibility check
// (MXFP8 get_scale_shape floors and pads any shape), so a member TE accepts is
// accepted; the C++ MXFP8Quantizer::create_grouped_tensor sizes from
// get_scale_shape of the logical shape, which NVTE_CHECKs multiples of 32.
TEST(GroupedLayout, TeMakeGroupedTensorAcceptsMembersWithoutBlockDivisibility) {
  GroupedLayout layout = layout_of({{32, 32}, {33, 32}}, Recipe::kMxfp8);
  EXPECT_EQ(find(layout, "rowwise_data")->bytes, 65 * 32);
  // Python get_scale_shape: rowwise (roundup(M, 128), roundup(K // 32, 4)) per member.
  EXPECT_EQ(find(layout, "scale_inv")->elements, 2 * 128 * 4);
  EXPECT_FALSE(layout.cpp_available);
  EXPECT_NE(layout.cpp_unavailable_reason.find("MXFP8Quantizer::get_scale_shape"), std::string::npos);
  EXPECT_EQ(layout.cpp_total_bytes, 0);
  EXPECT_TRUE(layout_of({{32, 32}, {64, 32}}, Recipe::kMxfp8).cpp_available);
}

// Grouped layouts follow TE. TE d0067d0da6, pytorch/csrc/quantizer.cpp
// Float8CurrentScalingQuantizer::create_grouped_tensor and the Python
// make_grouped_tensor: with non-TN FP8 GEMMs (Blackwell) one rowwise data buffer
// serves both usages, no columnwise data; the shared scale_inv stays.
TEST(GroupedLayout, TeFp8CurrentScalingOnBlackwellKeepsOneDataBuffer) {
  const std::vector<std::vector<int64_t>> shapes{{16, 16}, {32, 16}};
  GroupedLayout blackwell = layout_of(shapes, Recipe::kFp8Current, true, true, tp::FormatOptions(), tp::Arch::kBlackwell);
  EXPECT_EQ(names(blackwell), (std::vector<std::string>{"rowwise_data", "scale_inv", "amax", "scale", "first_dims",
                                                        "tensor_offsets"}));
  GroupedLayout col_only = layout_of(shapes, Recipe::kFp8Current, false, true, tp::FormatOptions(), tp::Arch::kBlackwell);
  EXPECT_EQ(names(col_only), names(blackwell));
  GroupedLayout hopper_col = layout_of(shapes, Recipe::kFp8Current, false, true);
  EXPECT_EQ(names(hopper_col), (std::vector<std::string>{"columnwise_data", "columnwise_scale_inv", "amax", "scale",
                                                         "first_dims", "tensor_offsets"}));
  // Delayed scaling has no non-TN rule for grouped tensors in TE.
  GroupedLayout delayed = layout_of({{16, 16}, {16, 16}}, Recipe::kFp8Delayed, true, true, tp::FormatOptions(),
                                    tp::Arch::kBlackwell);
  EXPECT_NE(find(delayed, "columnwise_data"), nullptr);
}

// Grouped layouts follow TE. TE d0067d0da6, grouped_tensor_storage.py make_grouped_tensor:
// quantizer None means rowwise_usage True, columnwise_usage False, so only `data`
// is allocated; the C++ NoneQuantizer::create_grouped_tensor (quantizer.cpp)
// follows the usages.
TEST(GroupedLayout, TeUnquantizedGroupsAllocateDataOnlyInThePythonPath) {
  GroupedLayout both = layout_of({{64, 32}, {64, 32}}, Recipe::kNone, true, true);
  EXPECT_EQ(find(both, "rowwise_data")->bytes, 2 * 64 * 32 * 2);
  EXPECT_EQ(find(both, "columnwise_data")->bytes, 0);
  EXPECT_EQ(find(both, "columnwise_data")->cpp_bytes, 2 * 64 * 32 * 2);
  EXPECT_EQ(both.total_bytes, 2 * 64 * 32 * 2);
  EXPECT_EQ(both.cpp_total_bytes, 2 * 2 * 64 * 32 * 2);
  GroupedLayout col = layout_of({{64, 32}, {64, 32}}, Recipe::kNone, false, true);
  EXPECT_EQ(find(col, "rowwise_data")->bytes, 2 * 64 * 32 * 2);
  EXPECT_EQ(find(col, "rowwise_data")->cpp_bytes, 0);
}

// Grouped layouts follow TE. TE d0067d0da6, pytorch/csrc/quantizer.cpp:
// Float8CurrentScalingQuantizer::create_grouped_tensor NVTE_CHECKs that first
// and last dims do not both vary; NVFP4Quantizer::create_grouped_tensor calls
// get_scale_shape on the logical shape [1, total], whose first dim fails % 16.
TEST(GroupedLayout, TeCppSizingIsUnavailableWhereCreateGroupedTensorRefuses) {
  const std::vector<std::vector<int64_t>> both{{128, 128}, {256, 256}};
  GroupedLayout current = layout_of(both, Recipe::kFp8Current);
  EXPECT_FALSE(current.cpp_available);
  EXPECT_NE(current.cpp_unavailable_reason.find("Float8CurrentScalingQuantizer::create_grouped_tensor"), std::string::npos);
  EXPECT_GT(current.total_bytes, 0);  // the Python path sizes it
  EXPECT_EQ(current.cpp_total_bytes, 0);
  GroupedLayout nvfp4 = layout_of(both, Recipe::kNvfp4);
  EXPECT_FALSE(nvfp4.cpp_available);
  EXPECT_NE(nvfp4.cpp_unavailable_reason.find("NVFP4Quantizer::get_scale_shape"), std::string::npos);
  for (const GroupedBuffer& buffer : nvfp4.buffers) EXPECT_EQ(buffer.cpp_bytes, 0) << buffer.name;
  // MXFP8 and block FP8 size it (numel / 32; logical [1, total]); so does delayed scaling.
  EXPECT_TRUE(layout_of(both, Recipe::kMxfp8).cpp_available);
  EXPECT_TRUE(layout_of(both, Recipe::kFp8Block1D).cpp_available);
  EXPECT_TRUE(layout_of(both, Recipe::kFp8Delayed).cpp_available);
  // One dim varying: both sizings exist.
  EXPECT_TRUE(layout_of({{128, 128}, {256, 128}}, Recipe::kFp8Current).cpp_available);
  EXPECT_TRUE(layout_of({{128, 128}, {256, 128}}, Recipe::kNvfp4).cpp_available);
}

// Grouped layouts follow TE. TE d0067d0da6: Python make_grouped_tensor and C++
// NVFP4Quantizer::create_grouped_tensor both refuse row-scaled NVFP4 groups with
// columnwise usage; C++ sizes row-scaled amaxes by logical_first_dim.
TEST(GroupedLayout, TeNvfp4RowScaledGroupsAreRowwiseOnly) {
  tp::FormatOptions options;
  options.nvfp4_row_scaled = true;
  GroupedLayout layout;
  const tp::Status status = tp::grouped_layout({{16, 32}}, tp::DType::kBFloat16, Recipe::kNvfp4, true, true,
                                               tp::Arch::kBlackwell, options, &layout);
  EXPECT_NE(status.message().find("do not support columnwise usage"), std::string::npos) << status.message();
  GroupedLayout last = layout_of({{16, 32}, {16, 64}}, Recipe::kNvfp4, true, false, options);
  EXPECT_EQ(find(last, "amax")->elements, 32);     // Python: sum of member rows
  EXPECT_EQ(find(last, "amax")->cpp_elements, 16);  // C++: logical_first_dim
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
