// The placement baselines against the source of the planners they name:
// TFLite (tensorflow/tensorflow f885d7ed7f8d, tensorflow/lite/arena_planner.cc
// ArenaPlanner::CalculateAllocations's tensor order, simple_memory_arena.cc
// SimpleMemoryArena::Allocate) and XLA (openxla/xla d492e8388d46,
// xla/service/heap_simulator/heap_simulator.cc: GetSpatialBufferIntervalCompare,
// GetTemporalBufferIntervalCompare, MakeFreeChunks + SlicedAllocationFinder::Find,
// ChooseBestHeapAlgorithm::Finish). No TFLite or XLA build exists here: each
// expected offset was derived by hand from that source (comments).
#include <gtest/gtest.h>

#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::PlaceBuffer;

TEST(PlacementBaselinesSource, TfLitePlacesWholeRunTensorsFirst) {
  // b1 lives over the whole run [0, 3) (TFLite: allocated at node 0, never
  // freed), so it is ordered first although b0 is larger: b1 at 0, b0 above it
  // at 256. (Decreasing size alone, as before: b0 at 0, b1 at 512.)
  const std::vector<PlaceBuffer> buffers = {{1, 2, 512, 1}, {0, 3, 256, 1}};
  EXPECT_EQ(tp::place_greedy_by_size(buffers), (std::vector<int64_t>{256, 0}));
}

TEST(PlacementBaselinesSource, TfLiteAndXlaSpatialBreakSizeTiesDifferently) {
  // Equal sizes: TFLite takes the earlier first use (b0), XLA's kSpatial the
  // longer duration (b1, 4 steps against 2).
  const std::vector<PlaceBuffer> buffers = {{0, 2, 256, 1}, {1, 5, 256, 1}};
  EXPECT_EQ(tp::place_greedy_by_size(buffers), (std::vector<int64_t>{0, 256}));
  EXPECT_EQ(tp::place_xla_by_size(buffers), (std::vector<int64_t>{256, 0}));
}

TEST(PlacementBaselinesSource, XlaTemporalBreaksTiesByBufferNotByStart) {
  // Same duration and size: kTemporal's last key is the buffer, so b0 goes
  // first at 0 and b1 at 256. (Earlier start first, as before: the reverse.)
  const std::vector<PlaceBuffer> buffers = {{1, 3, 256, 1}, {0, 2, 256, 1}};
  EXPECT_EQ(tp::place_best_fit_by_lifetime(buffers), (std::vector<int64_t>{0, 256}));
}

TEST(PlacementBaselinesSource, TfLiteMeasuresTheBestGapFromTheUnalignedCursor) {
  // In order: A [1,2) 10 B at 0; P [0,1) 192 B at 0; C [0,2) 64 B (align 64)
  // at 192; Q [0,1) 128 B at 256; E [0,2) 64 B (align 64) at 384. N [1,2) 64 B
  // (align 64) sees A [0,10), C [192,256), E [384,448). Gap 1 starts at 10,
  // aligned 64: 128 bytes; gap 2 at 256: 128 bytes.
  // TFLite: gap 1 is taken with best_offset_fit = 192 - 10 = 182 (unaligned);
  // gap 2's 128 < 182 replaces it: N at 256.
  // XLA: free chunks [64,192) and [256,384), both 128: the lower offset, 64.
  const std::vector<PlaceBuffer> buffers = {{1, 2, 10, 1},  {0, 1, 192, 1}, {0, 2, 64, 64},
                                            {0, 1, 128, 1}, {0, 2, 64, 64}, {1, 2, 64, 64}};
  const std::vector<int32_t> order = {0, 1, 2, 3, 4, 5};
  using tp::placement_detail::BestFitRule;
  EXPECT_EQ(tp::placement_detail::best_fit_in_order(buffers, order, nullptr, BestFitRule::kTfLite),
            (std::vector<int64_t>{0, 0, 192, 256, 384, 256}));
  EXPECT_EQ(tp::placement_detail::best_fit_in_order(buffers, order, nullptr, BestFitRule::kXla),
            (std::vector<int64_t>{0, 0, 192, 256, 384, 64}));
}

TEST(PlacementBaselinesSource, XlaBestKeepsTheLowerOfItsTwoOrders) {
  // ChooseBestHeapAlgorithm::Finish keeps the first strictly lowest heap.
  const std::vector<PlaceBuffer> buffers = {{0, 2, 256, 1}, {1, 5, 256, 1}, {1, 3, 512, 1}, {3, 6, 128, 1}};
  tp::PlaceOptions options;
  options.algorithm = tp::PlaceAlgorithm::kXlaBest;
  tp::Placement out;
  ASSERT_TRUE(tp::place(buffers, options, &out).is_ok());
  const int64_t spatial = tp::placement_height(buffers, tp::place_xla_by_size(buffers));
  const int64_t temporal = tp::placement_height(buffers, tp::place_best_fit_by_lifetime(buffers));
  EXPECT_EQ(tp::placement_height(buffers, out.offsets), std::min(spatial, temporal));
}

}  // namespace
