// FORMATS.md §1: TE bulk_allocate layout, including its four worked examples.
#include <gtest/gtest.h>

#include <random>

#include "formats/bulk_layout.h"
#include "tensorplan/c_api.h"

namespace {

tp::BulkLayout layout_of(const std::vector<tp::BulkRequest>& requests) {
  tp::BulkLayout layout;
  tp::Status status = tp::bulk_layout(requests, &layout);
  EXPECT_TRUE(status.is_ok()) << status.message();
  return layout;
}

TEST(BulkLayout, ExampleA_DefaultAlignmentsFromElementSize) {
  // dtypes [uint8, float32], shapes [[3],[2]] -> offsets 0, 4; cursor 12; 16 B.
  int32_t shape_offsets[] = {0, 1, 2};
  double dims[] = {3, 2};
  int32_t dtypes[] = {static_cast<int32_t>(tp::DType::kUInt8), static_cast<int32_t>(tp::DType::kFloat32)};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_bulk_layout(shape_offsets, dims, 2, dtypes, nullptr, 2, &result), TP_OK) << tp_last_error();
  const double* offsets = static_cast<const double*>(tp_result_data(result, 0));
  const double* totals = static_cast<const double*>(tp_result_data(result, 4));
  EXPECT_EQ(offsets[0], 0);
  EXPECT_EQ(offsets[1], 4);
  EXPECT_EQ(totals[0], 12);
  EXPECT_EQ(totals[1], 4);
  EXPECT_EQ(totals[2], 16);
  tp_result_free(result);
}

TEST(BulkLayout, ExampleB_Mxfp8RowwiseSplitQuantize) {
  tp::BulkLayout layout = layout_of({{15360, 256}, {20480, 256}, {1024, 16}, {1024, 16}});
  EXPECT_EQ(layout.entries[0].offset, 0);
  EXPECT_EQ(layout.entries[1].offset, 15360);
  EXPECT_EQ(layout.entries[2].offset, 35840);
  EXPECT_EQ(layout.entries[3].offset, 36864);
  EXPECT_EQ(layout.used_bytes, 37888);
  EXPECT_EQ(layout.allocation_bytes, 38144);
}

TEST(BulkLayout, ExampleC_Nvfp4RowwiseSplitQuantize) {
  tp::BulkLayout layout =
      layout_of({{1920, 256}, {768, 256}, {1024, 16}, {512, 16}, {4, 16}, {4, 16}});
  const int64_t expected[] = {0, 2048, 2816, 3840, 4352, 4368};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(layout.entries[i].offset, expected[i]) << "entry " << i;
  EXPECT_EQ(layout.used_bytes, 4372);
  EXPECT_EQ(layout.allocation_bytes, 4628);
}

TEST(BulkLayout, ExampleD_ZeroSizeEntryStillAdvancesCursor) {
  tp::BulkLayout layout = layout_of({{5, 1}, {0, 256}, {6, 1}});
  EXPECT_EQ(layout.entries[0].offset, 0);
  EXPECT_EQ(layout.entries[1].offset, 256);
  EXPECT_EQ(layout.entries[2].offset, 256);
  EXPECT_TRUE(layout.entries[1].separate);
  EXPECT_FALSE(layout.entries[0].separate);
  EXPECT_EQ(layout.base_alignment, 256);
  EXPECT_EQ(layout.allocation_bytes, 518);
}

TEST(BulkLayout, EmptyListAllocatesNothing) {
  tp::BulkLayout layout = layout_of({});
  EXPECT_TRUE(layout.entries.empty());
  EXPECT_EQ(layout.allocation_bytes, 0);
}

TEST(BulkLayout, AllByteAlignedNeedsNoSlack) {
  tp::BulkLayout layout = layout_of({{3, 1}, {5, 1}});
  EXPECT_EQ(layout.base_alignment, 1);
  EXPECT_EQ(layout.allocation_bytes, 8);
}

TEST(BulkLayout, RandomLayoutsAreAlignedDisjointAndOrdered) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 200; ++round) {
    std::vector<tp::BulkRequest> requests(rng() % 40);
    for (tp::BulkRequest& request : requests) {
      request.bytes = static_cast<int64_t>(rng() % 5000);
      // Any positive alignment (TE's roundup is not limited to powers of two).
      request.alignment = (round % 2 == 0) ? int64_t{1} << (rng() % 10) : 1 + static_cast<int64_t>(rng() % 300);
    }
    tp::BulkLayout layout = layout_of(requests);
    int64_t end = 0;
    for (size_t i = 0; i < requests.size(); ++i) {
      const tp::BulkEntry& entry = layout.entries[i];
      EXPECT_EQ(entry.offset % entry.alignment, 0);
      EXPECT_GE(entry.offset, end);
      EXPECT_LT(entry.offset - end, entry.alignment);  // no gap beyond the alignment padding
      end = entry.offset + entry.bytes;
    }
    EXPECT_EQ(layout.used_bytes, end);
    EXPECT_LE(layout.used_bytes, layout.allocation_bytes);
  }
}

// Bulk layouts round offsets up as TE does. TE d0067d0da6, pytorch/csrc/extensions/allocate.cpp
// bulk_allocate: offsets[i] = roundup(base_byte_size, alignments[i]) with
// pytorch/csrc/common.cpp roundup = ceil(value / multiple) * multiple, so an
// alignment need not be a power of two.
TEST(BulkLayout, TeBulkAllocateRoundsUpToAnyMultipleNotOnlyPowersOfTwo) {
  // 5 B, then 4 B at alignment 12 (offset 12), then 7 B at alignment 48 (offset 48).
  tp::BulkLayout layout = layout_of({{5, 1}, {4, 12}, {7, 48}});
  ASSERT_EQ(layout.entries.size(), 3u);
  EXPECT_EQ(layout.entries[1].offset, 12);
  EXPECT_EQ(layout.entries[2].offset, 48);
  EXPECT_EQ(layout.used_bytes, 55);
  EXPECT_EQ(layout.base_alignment, 48);
  EXPECT_EQ(layout.allocation_bytes, 55 + 48);
}

TEST(BulkLayout, RejectsAlignmentBelowOneNamingTheField) {
  // TE's roundup would divide by zero; tensorplan refuses instead.
  tp::BulkLayout layout;
  tp::Status status = tp::bulk_layout({{4, 4}, {4, 0}}, &layout);
  EXPECT_EQ(status.code(), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(), "tensors[1].alignment = 0: must be an integer >= 1");
}

TEST(BulkLayoutAbi, RejectsBadDimsWithFieldAndValue) {
  int32_t shape_offsets[] = {0, 2};
  double dims[] = {4, 2.5};
  int32_t dtypes[] = {0};
  tp_result* result = reinterpret_cast<tp_result*>(0x1);
  EXPECT_EQ(tp_bulk_layout(shape_offsets, dims, 2, dtypes, nullptr, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(result, nullptr);
  EXPECT_STREQ(tp_last_error(), "tensors[0].shape[1] = 2.5: must be an integer");
  EXPECT_EQ(tp_last_status(), TP_ERR_INVALID_ARGUMENT);
}

TEST(BulkLayoutAbi, RejectsUnknownDtypeAndOverflow) {
  int32_t shape_offsets[] = {0, 1};
  double dims[] = {4};
  int32_t bad_dtype[] = {99};
  tp_result* result = nullptr;
  EXPECT_EQ(tp_bulk_layout(shape_offsets, dims, 1, bad_dtype, nullptr, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "tensors[0].dtype = 99: unknown dtype code");

  int32_t offsets2[] = {0, 2};
  double huge[] = {4294967296.0, 4294967296.0};
  int32_t fp32[] = {0};
  EXPECT_EQ(tp_bulk_layout(offsets2, huge, 2, fp32, nullptr, 1, &result), TP_ERR_OUT_OF_RANGE);
  EXPECT_NE(std::string(tp_last_error()).find("exceeds 2^53"), std::string::npos);
}

TEST(BulkLayoutAbi, ErrorThenSuccessClearsLastError) {
  int32_t shape_offsets[] = {0, 1};
  double dims[] = {-1};
  int32_t dtypes[] = {0};
  tp_result* result = nullptr;
  EXPECT_NE(tp_bulk_layout(shape_offsets, dims, 1, dtypes, nullptr, 1, &result), TP_OK);
  dims[0] = 1;
  EXPECT_EQ(tp_bulk_layout(shape_offsets, dims, 1, dtypes, nullptr, 1, &result), TP_OK);
  EXPECT_STREQ(tp_last_error(), "");
  EXPECT_EQ(tp_result_count(result), 5);
  EXPECT_EQ(tp_result_type(result, 3), TP_ARRAY_U8);
  EXPECT_EQ(tp_result_type(result, 5), 0);
  tp_result_free(result);
}

TEST(BulkLayoutAbi, Fp4PacksTwoElementsPerByte) {
  int32_t shape_offsets[] = {0, 2};
  double dims[] = {48, 80};
  int32_t dtypes[] = {static_cast<int32_t>(tp::DType::kFloat4E2M1)};
  tp_result* result = nullptr;
  ASSERT_EQ(tp_bulk_layout(shape_offsets, dims, 2, dtypes, nullptr, 1, &result), TP_OK);
  EXPECT_EQ(static_cast<const double*>(tp_result_data(result, 1))[0], 1920);
  tp_result_free(result);
}

}  // namespace

// The length of dims is passed and checked against what shape_offsets
// implies, so a short array is an error naming both values, never a read past it.
TEST(BulkLayoutAbi, DimsCountMustMatchShapeOffsets) {
  int32_t shape_offsets[] = {0, 2};
  double dims[] = {4};
  int32_t dtypes[] = {0};
  tp_result* result = nullptr;
  EXPECT_EQ(tp_bulk_layout(shape_offsets, dims, 1, dtypes, nullptr, 1, &result), TP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(tp_last_error(), "dims_count = 1: must equal shape_offsets[count] = 2");
}
