// The search rules added for hard instances (issue #18): the exact search's
// candidate filter by the largest unplaced load and its randomised restart
// orders must keep it complete (every answer agrees with brute force over all
// canonical placements), the restarts must still place a perfect packing at
// its bound, and the order local search must never return worse than the
// dive it starts from, the same way every time.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "placement/perfect_packing.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::PlaceBuffer;
using tp::placement_detail::SearchBudget;
using tp::placement_detail::SearchOutcome;

// The optimum by brute force: every canonical placement (each buffer pushed
// down onto the placed buffers alive with it) is built by some order of
// placing buffers on top of those placed before them that they overlap.
int64_t brute_force_optimum(const std::vector<PlaceBuffer>& buffers) {
  std::vector<int32_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  int64_t best = -1;
  std::vector<int64_t> offsets(buffers.size());
  do {
    int64_t height = 0;
    for (size_t k = 0; k < order.size(); ++k) {
      const PlaceBuffer& b = buffers[static_cast<size_t>(order[k])];
      int64_t offset = 0;
      for (size_t j = 0; j < k; ++j) {
        const PlaceBuffer& c = buffers[static_cast<size_t>(order[j])];
        if (c.lower < b.upper && b.lower < c.upper) offset = std::max(offset, offsets[static_cast<size_t>(order[j])] + c.size);
      }
      offset = (offset + b.alignment - 1) / b.alignment * b.alignment;
      offsets[static_cast<size_t>(order[k])] = offset;
      height = std::max(height, offset + b.size);
    }
    if (best < 0 || height < best) best = height;
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

std::vector<PlaceBuffer> random_instance(int n, std::mt19937_64* rng) {
  std::vector<PlaceBuffer> buffers(static_cast<size_t>(n));
  for (PlaceBuffer& b : buffers) {
    // Few steps, odd sizes and alignments up to 4: without the alignments
    // such small instances nearly always pack at the lower bound.
    b.lower = static_cast<int64_t>((*rng)() % 4);
    b.upper = b.lower + 1 + static_cast<int64_t>((*rng)() % 3);
    const int64_t sizes[] = {1, 2, 3, 5};
    b.size = sizes[(*rng)() % 4];
    b.alignment = int64_t{1} << ((*rng)() % 3);
  }
  return buffers;
}

TEST(PlacementHard, TheSearchAgreesWithBruteForceAtTheOptimumAndJustBelowIt) {
  std::mt19937_64 rng(18);
  int below_bound = 0;  // instances whose optimum is above the lower bound: the refutation needs the search
  for (int trial = 0; trial < 60; ++trial) {
    const std::vector<PlaceBuffer> buffers = random_instance(8, &rng);
    const int64_t optimum = brute_force_optimum(buffers);
    if (optimum > tp::placement_lower_bound(buffers)) ++below_bound;
    SearchBudget budget;
    std::vector<int64_t> offsets;
    ASSERT_EQ(tp::placement_detail::search_at_capacity(buffers, optimum, 0, &budget, &offsets), SearchOutcome::kFound)
        << "trial " << trial;
    EXPECT_TRUE(tp::validate_placement(buffers, offsets, optimum).is_ok()) << "trial " << trial;
    EXPECT_EQ(tp::placement_detail::search_at_capacity(buffers, optimum - 1, 0, &budget, &offsets),
              SearchOutcome::kInfeasible)
        << "trial " << trial;
  }
  EXPECT_GT(below_bound, 5);  // the test really asks for proofs, not only the load bound
}

TEST(PlacementHard, RandomisedRestartsStillPlaceAPerfectPackingAtItsBound) {
  // 100 buffers: the three static orders' first round (200 nodes each) does
  // not find it, so later rounds, random orders among them, do the work.
  const tp::PerfectPacking p = tp::random_perfect_packing(100, 3);
  SearchBudget budget;
  std::vector<int64_t> offsets;
  ASSERT_EQ(tp::placement_detail::search_at_capacity(p.buffers, p.height, 0, &budget, &offsets), SearchOutcome::kFound);
  EXPECT_GT(budget.nodes, 600);
  EXPECT_TRUE(tp::validate_placement(p.buffers, offsets, p.height).is_ok());
}

TEST(PlacementHard, TheOrderSearchNeverEndsAboveItsFirstDiveAndRepeatsItself) {
  const tp::PerfectPacking p = tp::random_perfect_packing(60, 5);
  const std::vector<int64_t> heaviest = tp::placement_detail::heaviest_section_loads(p.buffers);
  const std::vector<int32_t> order = tp::placement_detail::preorder(p.buffers, heaviest, "A");
  SearchBudget first_budget;
  const int64_t first_dive = tp::placement_height(
      p.buffers, tp::placement_detail::skyline_in_order(p.buffers, order, p.height / 1000000, false, false, &first_budget));
  ASSERT_GT(first_dive, p.height);  // something to improve
  std::vector<int64_t> previous;
  for (int run = 0; run < 2; ++run) {
    SearchBudget budget;
    const tp::placement_detail::OrderSearchResult found =
        tp::placement_detail::order_local_search(p.buffers, order, p.height, 300, &budget);
    ASSERT_EQ(found.offsets.size(), p.buffers.size());
    EXPECT_TRUE(tp::validate_placement(p.buffers, found.offsets, 0).is_ok());
    EXPECT_EQ(tp::placement_height(p.buffers, found.offsets), found.height);
    EXPECT_LT(found.height, first_dive);  // 300 moves improve on a dive 10-40% above the bound
    EXPECT_LE(found.dives, 300);
    if (run == 1) {
      EXPECT_EQ(found.offsets, previous);
    }
    previous = found.offsets;
  }
}

}  // namespace
