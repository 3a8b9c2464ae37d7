// The stall rule of minimize (docs/placement.md, "When minimize stops"): under
// a time limit, once the search phase has begun, place() stops when neither
// the height went down nor the proved bound up for stall_share of the limit,
// and says so (stats.stalled, not timed_out). The budget's part is checked
// with short sleeps; place()'s with an instance whose optimum (the lower
// bound, by construction) the search neither finds nor proves in seconds.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "placement/perfect_packing.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::placement_detail::SearchBudget;

TEST(PlacementStall, TheBudgetExpiresOnceNothingMovedForTheStallTimeAndSaysItStalled) {
  SearchBudget budget;
  budget.stall_seconds = 0.4;
  budget.progress_seconds = tp::placement_detail::now_seconds();
  EXPECT_FALSE(budget.expired());
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  budget.note_progress();  // the proved bound went up: the clock starts again
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_FALSE(budget.expired());  // 0.5 s since the start, 0.25 s since the progress
  budget.note_improvement();
  EXPECT_GT(budget.improved_seconds, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_TRUE(budget.expired());
  EXPECT_TRUE(budget.stalled);
  EXPECT_TRUE(budget.timed_out);
}

TEST(PlacementStall, ABudgetWithoutAStallTimeNeverStalls) {
  SearchBudget budget;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(budget.expired());
  EXPECT_FALSE(budget.stalled);
}

// A sparse perfect packing: free space, so no well search without waste (it
// only tiles pieces without a free byte). The search neither finds nor proves
// this one's optimum in seconds: with two workers it ended at 1.03-1.05 times
// it after 10, 20 and 60 s (2026-11-29).
std::vector<tp::PlaceBuffer> sparse_packing() {
  tp::PerfectPackingShape shape;
  EXPECT_TRUE(tp::perfect_packing_family("sparse", &shape));
  return tp::random_perfect_packing(600, 605, shape).buffers;
}

TEST(PlacementStall, MinimizeStopsLongBeforeItsLimitWhereNothingMovesAndSaysSo) {
  const std::vector<tp::PlaceBuffer> buffers = sparse_packing();
  tp::PlaceOptions options;
  options.minimize = true;
  options.time_limit_seconds = 20;
  options.stall_share = 0.015;  // 0.3 s without progress ends it
  tp::Placement placement;
  ASSERT_TRUE(tp::place(buffers, options, &placement).is_ok());
  ASSERT_FALSE(placement.proved_optimal);  // the search does not find the packing in time
  EXPECT_TRUE(placement.stats.stalled);
  EXPECT_FALSE(placement.stats.timed_out);
  EXPECT_LT(placement.stats.seconds, 15);  // 7-9 s on 2 cores: the phases before the rule take a third
  EXPECT_LE(placement.stats.seconds_to_best, placement.stats.seconds);
  EXPECT_LT(placement.proved_lower_bound, placement.height);  // bound and best differ: not proved
  EXPECT_TRUE(tp::validate_placement(buffers, placement.offsets, 0).is_ok());
}

TEST(PlacementStall, WithoutTheRuleMinimizeRunsToItsLimit) {
  const std::vector<tp::PlaceBuffer> buffers = sparse_packing();
  tp::PlaceOptions options;
  options.minimize = true;
  options.time_limit_seconds = 1;
  options.stall_share = 0;
  tp::Placement placement;
  ASSERT_TRUE(tp::place(buffers, options, &placement).is_ok());
  ASSERT_FALSE(placement.proved_optimal);
  EXPECT_FALSE(placement.stats.stalled);
  EXPECT_TRUE(placement.stats.timed_out);
  EXPECT_GE(placement.stats.seconds, 0.5);  // the limit, less what it keeps back for the checks
}

TEST(PlacementStall, AnInstanceProvedQuicklyNeverStalls) {
  const tp::PerfectPacking packing = tp::random_perfect_packing(80, 1);
  tp::PlaceOptions options;
  options.minimize = true;
  options.time_limit_seconds = 10;
  tp::Placement placement;
  ASSERT_TRUE(tp::place(packing.buffers, options, &placement).is_ok());
  EXPECT_TRUE(placement.proved_optimal);
  EXPECT_FALSE(placement.stats.stalled);
  EXPECT_LE(placement.stats.seconds_to_best, placement.stats.seconds);
}

}  // namespace
