// FORMATS.md §4.7: GEMM-swizzled scale layout, its worked examples, and that
// it is a bijection on the padded scale matrix with an exact inverse.
#include <gtest/gtest.h>

#include <random>

#include "formats/scale_swizzle.h"

namespace {

TEST(ScaleSwizzle, WorkedExamplesR128C8) {
  EXPECT_EQ(tp::swizzled_scale_index(0, 0, 8), 0);
  EXPECT_EQ(tp::swizzled_scale_index(0, 1, 8), 1);
  EXPECT_EQ(tp::swizzled_scale_index(1, 0, 8), 16);
  EXPECT_EQ(tp::swizzled_scale_index(32, 0, 8), 4);
  EXPECT_EQ(tp::swizzled_scale_index(33, 2, 8), 22);
  EXPECT_EQ(tp::swizzled_scale_index(0, 4, 8), 512);
  EXPECT_EQ(tp::swizzled_scale_index(127, 3, 8), 511);
  // R = 256: the second row of tiles starts after C/4 = 2 tiles.
  EXPECT_EQ(tp::swizzled_scale_index(128, 0, 8), 1024);
}

TEST(ScaleSwizzle, IsABijectionOnRandomPaddedMatrices) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 50; ++round) {
    const int64_t rows = static_cast<int64_t>(1 + rng() % 4) * 128;
    const int64_t cols = static_cast<int64_t>(1 + rng() % 8) * 4;
    std::vector<int> hits(static_cast<size_t>(rows * cols), 0);
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t at = tp::swizzled_scale_index(i, j, cols);
        ASSERT_GE(at, 0);
        ASSERT_LT(at, rows * cols);
        ++hits[static_cast<size_t>(at)];
      }
    }
    for (int h : hits) ASSERT_EQ(h, 1);
  }
}

TEST(ScaleSwizzle, SwizzleThenUnswizzleIsIdentityAndPaddingIsZeroed) {
  std::mt19937_64 rng(6);
  for (bool transpose : {false, true}) {
    const int64_t src_rows = transpose ? 8 : 256, src_cols = transpose ? 256 : 8;
    std::vector<uint8_t> source(static_cast<size_t>(src_rows * src_cols));
    for (uint8_t& b : source) b = static_cast<uint8_t>(1 + rng() % 255);
    std::vector<uint8_t> swizzled, back;
    ASSERT_TRUE(tp::swizzle_scales(source.data(), src_rows, src_cols, transpose, 256, 8, &swizzled).is_ok());
    ASSERT_TRUE(tp::unswizzle_scales(swizzled.data(), src_rows, src_cols, transpose, &back).is_ok());
    EXPECT_EQ(back, source);
    // Only 200 x 5 valid entries: the rest must be written as zero.
    ASSERT_TRUE(tp::swizzle_scales(source.data(), src_rows, src_cols, transpose, 200, 5, &swizzled).is_ok());
    for (int64_t i = 0; i < 256; ++i) {
      for (int64_t j = 0; j < 8; ++j) {
        const uint8_t value = swizzled[static_cast<size_t>(tp::swizzled_scale_index(i, j, 8))];
        const uint8_t expected = (i < 200 && j < 5) ? source[static_cast<size_t>(transpose ? j * src_cols + i : i * src_cols + j)] : 0;
        ASSERT_EQ(value, expected) << i << "," << j;
      }
    }
  }
}

TEST(ScaleSwizzle, RejectsUnpaddedMatrices) {
  std::vector<uint8_t> source(100 * 4), out;
  tp::Status status = tp::swizzle_scales(source.data(), 100, 4, false, 100, 4, &out);
  EXPECT_EQ(status.message(), "swizzled scale matrix 100 x 4: rows must be a multiple of 128 and columns a multiple of 4");
}

}  // namespace
