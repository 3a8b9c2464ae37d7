// Placement deadlines: a skyline dive checks the budget
// while it selects, so a time limit holds even where one dive alone is slow
// (a wide fan-out makes every key stale after each placement). These tests
// never measure time: they use a deadline already past, or an instance whose
// dive takes far longer than the limit, and check what comes back.
#include <gtest/gtest.h>

#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::PlaceBuffer;

// One input read by n ops, every output alive to the end: buffer i lives
// [i + 1, n + 2), so all n are alive together.
std::vector<PlaceBuffer> fan_out(int n) {
  std::vector<PlaceBuffer> buffers(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    buffers[static_cast<size_t>(i)].lower = i + 1;
    buffers[static_cast<size_t>(i)].upper = n + 2;
    buffers[static_cast<size_t>(i)].size = 64 + (i % 7) * 16;
    buffers[static_cast<size_t>(i)].alignment = i % 3 == 0 ? 64 : 1;
  }
  return buffers;
}

std::vector<int32_t> identity_order(size_t n) {
  std::vector<int32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int32_t>(i);
  return order;
}

TEST(PlacementDeadline, DiveWithoutDeadlineIsUnchangedByAnUnexpiredBudget) {
  const std::vector<PlaceBuffer> buffers = fan_out(600);
  const std::vector<int32_t> order = identity_order(buffers.size());
  tp::placement_detail::SearchBudget budget;  // no deadline: never expires
  const std::vector<int64_t> plain = tp::placement_detail::skyline_in_order(buffers, order);
  const std::vector<int64_t> budgeted =
      tp::placement_detail::skyline_in_order(buffers, order, 0, false, false, &budget);
  EXPECT_EQ(plain, budgeted);
  EXPECT_FALSE(budget.timed_out);
}

TEST(PlacementDeadline, DivePastItsDeadlineStillReturnsAValidPlacement) {
  const std::vector<PlaceBuffer> buffers = fan_out(5000);
  const std::vector<int32_t> order = identity_order(buffers.size());
  tp::placement_detail::SearchBudget budget;
  budget.deadline_seconds = 1e-9;  // long past on the steady clock
  const std::vector<int64_t> offsets =
      tp::placement_detail::skyline_in_order(buffers, order, 0, false, false, &budget);
  EXPECT_TRUE(budget.timed_out);
  ASSERT_EQ(offsets.size(), buffers.size());
  EXPECT_TRUE(tp::validate_placement(buffers, offsets, 0).is_ok());
  for (size_t i = 0; i < buffers.size(); ++i) EXPECT_EQ(offsets[i] % buffers[i].alignment, 0) << "buffer " << i;
}

TEST(PlacementDeadline, PlaceOnAWideFanOutStopsAtATinyTimeLimit) {
  // The full solver on 20000 buffers alive together needs seconds (one
  // dive refreshes O(n^2) keys); a 1 ms limit must cut it short and still
  // return a valid placement, marked as timed out.
  const std::vector<PlaceBuffer> buffers = fan_out(20000);
  tp::PlaceOptions options;
  options.time_limit_seconds = 0.001;
  tp::Placement placement;
  ASSERT_TRUE(tp::place(buffers, options, &placement).is_ok());
  EXPECT_TRUE(placement.stats.timed_out);
  EXPECT_TRUE(tp::validate_placement(buffers, placement.offsets, 0).is_ok());
  EXPECT_GE(placement.height, placement.lower_bound);
}

}  // namespace

namespace {

// Random lifetimes, each overlapping hundreds of others.
std::vector<PlaceBuffer> random_lifetimes(int n, uint64_t seed) {
  std::vector<PlaceBuffer> buffers(static_cast<size_t>(n));
  uint64_t x = seed;
  auto next = [&x]() {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 33;
  };
  for (PlaceBuffer& b : buffers) {
    b.lower = static_cast<int64_t>(next() % static_cast<uint64_t>(n));
    b.upper = b.lower + 1 + static_cast<int64_t>(next() % 300);
    b.size = 1 + static_cast<int64_t>(next() % 4096);
  }
  return buffers;
}

TEST(PlacementDeadline, AnExpiredLimitStillReturnsAtLeastTheFirstFitPlacement) {
  // Before first fit ran first, a dive cut at once dropped every buffer on
  // the skyline in order (2.4x the lower bound on 10^5 random lifetimes).
  const std::vector<PlaceBuffer> buffers = random_lifetimes(20000, 3);
  tp::PlaceOptions options;
  options.time_limit_seconds = 1e-9;
  tp::Placement placement;
  ASSERT_TRUE(tp::place(buffers, options, &placement).is_ok());
  EXPECT_TRUE(placement.stats.timed_out);
  EXPECT_TRUE(tp::validate_placement(buffers, placement.offsets, 0).is_ok());
  EXPECT_LE(placement.height, tp::placement_height(buffers, tp::place_first_fit(buffers)));
}

TEST(PlacementDeadline, BestFitCutByTheDeadlineReturnsNothingAndUncutIsUnchanged) {
  const std::vector<PlaceBuffer> buffers = random_lifetimes(3000, 5);
  const std::vector<int32_t> order = tp::placement_detail::size_order(buffers);
  tp::placement_detail::SearchBudget past;
  past.deadline_seconds = 1e-9;
  EXPECT_TRUE(tp::placement_detail::best_fit_in_order(buffers, order, &past).empty());
  EXPECT_TRUE(past.timed_out);
  tp::placement_detail::SearchBudget none;
  EXPECT_EQ(tp::placement_detail::best_fit_in_order(buffers, order, &none), tp::place_greedy_by_size(buffers));
}

TEST(PlacementDeadline, AWideFanOutWithoutATimeLimitIsPlacedByFirstFitAtTheLowerBound) {
  // 10^5 buffers alive together: a dive would refresh O(n^2) keys (minutes
  // without a limit); first fit stacks them at the lower bound, which is
  // optimal, so the solver stops there.
  std::vector<PlaceBuffer> buffers(100000);
  for (size_t i = 0; i < buffers.size(); ++i) {
    buffers[i].lower = static_cast<int64_t>(i) + 1;
    buffers[i].upper = static_cast<int64_t>(buffers.size()) + 2;
    buffers[i].size = 64 + static_cast<int64_t>(i % 7) * 32;
  }
  tp::PlaceOptions options;
  options.time_limit_seconds = 0;  // no limit
  options.minimize = true;
  tp::Placement placement;
  ASSERT_TRUE(tp::place(buffers, options, &placement).is_ok());
  EXPECT_EQ(placement.height, placement.lower_bound);
  EXPECT_TRUE(placement.proved_optimal);
  EXPECT_EQ(placement.stats.method, tp::PlaceMethod::kFirstFit);
  EXPECT_FALSE(placement.stats.timed_out);
}

}  // namespace
