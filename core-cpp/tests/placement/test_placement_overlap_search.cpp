// The overlap search (placement_overlap_search.cpp): whatever it moves, what
// it hands back is a valid placement (no overlap, alignments kept) no higher
// than the start; it lowers placements that are above the optimum, stops
// at the lower bound and is reproducible under a work limit.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "placement/perfect_packing.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::PlaceBuffer;
using tp::placement_detail::SearchBudget;

std::vector<int64_t> RunOverlapSearch(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& start,
                                      int64_t lower_bound, int64_t work, uint64_t seed, bool* lowered) {
  std::vector<int64_t> offsets = start;
  SearchBudget budget;
  *lowered = tp::placement_detail::improve_by_overlap_search(buffers, lower_bound, work, seed, &budget, &offsets);
  return offsets;
}

TEST(PlacementOverlapSearch, HandsBackValidPlacementsNoHigherThanTheStart) {
  // Random small instances with mixed alignments, from first fit.
  std::mt19937_64 rng(4242);
  int lowered_count = 0;
  for (int trial = 0; trial < 150; ++trial) {
    std::vector<PlaceBuffer> buffers(4 + rng() % 30);
    for (PlaceBuffer& b : buffers) {
      b.lower = static_cast<int64_t>(rng() % 20);
      b.upper = b.lower + 1 + static_cast<int64_t>(rng() % 8);
      b.size = 1 + static_cast<int64_t>(rng() % 40);
      b.alignment = int64_t{1} << (rng() % 4);
    }
    const std::vector<int64_t> start = tp::place_first_fit(buffers);
    const int64_t start_height = tp::placement_height(buffers, start);
    const int64_t bound = tp::placement_lower_bound(buffers);
    bool lowered = false;
    const std::vector<int64_t> offsets = RunOverlapSearch(buffers, start, bound, 20000, trial, &lowered);
    ASSERT_TRUE(tp::validate_placement(buffers, offsets, 0).is_ok()) << "trial " << trial;
    const int64_t height = tp::placement_height(buffers, offsets);
    EXPECT_LE(height, start_height) << "trial " << trial;
    EXPECT_GE(height, bound) << "trial " << trial;
    EXPECT_EQ(lowered, height < start_height) << "trial " << trial;
    if (!lowered) {
      EXPECT_EQ(offsets, start) << "trial " << trial;  // nothing moved when nothing was gained
    }
    lowered_count += lowered ? 1 : 0;
  }
  EXPECT_GT(lowered_count, 10);  // first fit is often above what the moves reach
}

// From first fit on a perfect packing: lower, valid, not below the optimum,
// and the same twice under a work limit.
void ExpectOverlapSearchLowersReproducibly(const tp::PerfectPacking& packing, uint64_t seed) {
  const std::vector<int64_t> start = tp::place_first_fit(packing.buffers);
  const int64_t start_height = tp::placement_height(packing.buffers, start);
  ASSERT_GT(start_height, packing.height);
  bool lowered[2] = {false, false};
  const std::vector<int64_t> first = RunOverlapSearch(packing.buffers, start, packing.height, 100000, seed, &lowered[0]);
  const std::vector<int64_t> second = RunOverlapSearch(packing.buffers, start, packing.height, 100000, seed, &lowered[1]);
  ASSERT_TRUE(tp::validate_placement(packing.buffers, first, 0).is_ok());
  EXPECT_EQ(first, second);
  EXPECT_TRUE(lowered[0]);
  const int64_t height = tp::placement_height(packing.buffers, first);
  EXPECT_LT(height, start_height);
  EXPECT_GE(height, packing.height);
}

TEST(PlacementOverlapSearch, LowersFirstFitOnPerfectPackingsReproducibly) {
  ExpectOverlapSearchLowersReproducibly(tp::random_perfect_packing(150, 7), 42);
  for (const char* family : {"skewed", "sparse", "aligned"}) {
    tp::PerfectPackingShape shape;
    ASSERT_TRUE(tp::perfect_packing_family(family, &shape));
    ExpectOverlapSearchLowersReproducibly(tp::random_perfect_packing(120, 31, shape), 3);
  }
}

TEST(PlacementOverlapSearch, ReachesTheOptimumOfASmallPackingAndStopsThere) {
  // Four buffers that tile 10 bytes x 3 steps, started 4 bytes above that.
  const std::vector<PlaceBuffer> buffers = {{0, 2, 6, 1}, {0, 1, 4, 1}, {1, 3, 4, 1}, {2, 3, 6, 1}};
  const std::vector<int64_t> start = {4, 0, 10, 0};  // height 14; the optimum is 10
  ASSERT_TRUE(tp::validate_placement(buffers, start, 0).is_ok());
  bool lowered = false;
  const std::vector<int64_t> offsets = RunOverlapSearch(buffers, start, 10, 10000, 1, &lowered);
  EXPECT_TRUE(lowered);
  EXPECT_TRUE(tp::validate_placement(buffers, offsets, 10).is_ok());
  // Without a work limit or a deadline it does not start.
  std::vector<int64_t> unbounded = start;
  SearchBudget no_limit;
  EXPECT_FALSE(tp::placement_detail::improve_by_overlap_search(buffers, 10, 0, 1, &no_limit, &unbounded));
  EXPECT_EQ(unbounded, start);
  // At the lower bound there is nothing to do.
  std::vector<int64_t> again = offsets;
  SearchBudget budget;
  EXPECT_FALSE(tp::placement_detail::improve_by_overlap_search(buffers, 10, 10000, 1, &budget, &again));
  EXPECT_EQ(again, offsets);
}

}  // namespace
