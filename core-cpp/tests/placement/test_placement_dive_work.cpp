// Work-bounded skyline dives: without a time limit the
// noisy dives share a step budget, so no call runs unbounded. A dive cut by
// its step limit still returns a valid placement, a dive within its limit
// returns exactly what it returns without one, and the cut is the same on
// every run (work, not time).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::PlaceBuffer;

std::vector<PlaceBuffer> random_lifetimes(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<PlaceBuffer> buffers(static_cast<size_t>(n));
  for (PlaceBuffer& b : buffers) {
    b.lower = static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
    b.upper = b.lower + 1 + static_cast<int64_t>(rng() % 200);
    b.size = 1 + static_cast<int64_t>(rng() % 4096);
    b.alignment = rng() % 2 == 0 ? 64 : 1;
  }
  return buffers;
}

std::vector<int32_t> identity_order(size_t n) {
  std::vector<int32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int32_t>(i);
  return order;
}

TEST(PlacementDiveWork, ADiveWithinItsStepLimitIsUnchanged) {
  const std::vector<PlaceBuffer> buffers = random_lifetimes(2000, 3);
  const std::vector<int32_t> order = identity_order(buffers.size());
  tp::placement_detail::SearchBudget counted;
  const std::vector<int64_t> plain = tp::placement_detail::skyline_in_order(buffers, order, 0, false, false, &counted);
  ASSERT_GT(counted.dive_steps, 0);
  tp::placement_detail::SearchBudget limited;
  limited.dive_step_limit = counted.dive_steps;  // exactly enough
  EXPECT_EQ(tp::placement_detail::skyline_in_order(buffers, order, 0, false, false, &limited), plain);
  EXPECT_FALSE(limited.dive_cut);
  EXPECT_EQ(limited.dive_steps, counted.dive_steps);
}

TEST(PlacementDiveWork, ADiveCutByItsStepLimitIsValidAndTheSameEveryTime) {
  const std::vector<PlaceBuffer> buffers = random_lifetimes(3000, 5);
  const std::vector<int32_t> order = identity_order(buffers.size());
  std::vector<int64_t> first;
  for (int run = 0; run < 2; ++run) {
    tp::placement_detail::SearchBudget budget;
    budget.dive_step_limit = 500;
    const std::vector<int64_t> offsets =
        tp::placement_detail::skyline_in_order(buffers, order, 0, false, false, &budget);
    EXPECT_TRUE(budget.dive_cut);
    EXPECT_FALSE(budget.timed_out);
    EXPECT_LE(budget.dive_steps, 501);
    ASSERT_EQ(offsets.size(), buffers.size());
    EXPECT_TRUE(tp::validate_placement(buffers, offsets, 0).is_ok());
    if (run == 0) first = offsets;
    else EXPECT_EQ(offsets, first);
  }
}

}  // namespace
