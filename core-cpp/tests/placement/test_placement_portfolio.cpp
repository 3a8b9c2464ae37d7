// The search phase as a portfolio (placement_portfolio.cpp,
// PlaceOptions::threads): the thread count is checked, one thread is the
// search alone, every worker ends once one settles the question, capacity
// questions are answered with the proofs of any worker, and whatever the
// workers find, the placement returned is valid and no lower than what was
// proved.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <vector>

#include "placement/perfect_packing.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"
#include "placement/placement_pieces.h"

namespace {

using tp::PlaceBuffer;
using tp::PlaceOptions;
using tp::Placement;

// A staircase whose optimum, 12, greedy by size misses.
std::vector<PlaceBuffer> stairs() {
  return {{0, 3, 4, 1}, {0, 1, 8, 1}, {1, 2, 8, 1}, {2, 4, 8, 1}, {3, 4, 4, 1}};
}

TEST(PlacementPortfolio, RefusesAThreadCountOutsideItsRangeAndNamesIt) {
  Placement out;
  PlaceOptions options;
  options.minimize = true;
  options.threads = -1;
  tp::Status status = tp::place(stairs(), options, &out);
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("options.threads = -1"), std::string::npos) << status.message();
  options.threads = tp::kMaxPlaceThreads + 1;
  status = tp::place(stairs(), options, &out);
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("options.threads = 257"), std::string::npos) << status.message();
  // The session goes on: the same call with a valid count answers.
  options.threads = tp::kMaxPlaceThreads;
  ASSERT_TRUE(tp::place(stairs(), options, &out).is_ok());
  EXPECT_EQ(out.height, 12);
}

TEST(PlacementPortfolio, OneThreadIsTheSearchAloneAndWorkerZeroKeepsItsSeeds) {
  const tp::PerfectPacking packing = tp::random_perfect_packing(60, 7);
  PlaceOptions options;
  options.minimize = true;
  options.time_limit_seconds = 0;  // no deadline: the search is the same on every run
  Placement alone, one_thread;
  ASSERT_TRUE(tp::place(packing.buffers, options, &alone).is_ok());
  options.threads = 1;
  ASSERT_TRUE(tp::place(packing.buffers, options, &one_thread).is_ok());
  EXPECT_EQ(one_thread.offsets, alone.offsets);
  EXPECT_EQ(one_thread.stats.nodes, alone.stats.nodes);
  EXPECT_EQ(one_thread.stats.threads, 1);
  // Worker 0 draws as a search without a portfolio; another worker does not.
  tp::placement_detail::SearchBudget first, second;
  second.worker = 1;
  EXPECT_EQ(tp::placement_detail::worker_seed(0x1234, first), 0x1234u);
  EXPECT_NE(tp::placement_detail::worker_seed(0x1234, second), 0x1234u);
}

TEST(PlacementPortfolio, ARaisedSettledFlagEndsABudgetAsAtTheDeadline) {
  std::atomic<bool> settled(false);
  tp::placement_detail::SearchBudget budget;  // no deadline, no stall time
  budget.settled = &settled;
  EXPECT_FALSE(budget.expired());
  settled.store(true);
  EXPECT_TRUE(budget.expired());
  EXPECT_TRUE(budget.timed_out);
  EXPECT_FALSE(budget.stalled);
}

TEST(PlacementPortfolio, ThreeWorkersReachAndProveTheOptimumAndTheCallEndsThere) {
  const tp::PerfectPacking packing = tp::random_perfect_packing(80, 11);
  PlaceOptions options;
  options.minimize = true;
  options.time_limit_seconds = 60;
  options.threads = 3;
  Placement out;
  ASSERT_TRUE(tp::place(packing.buffers, options, &out).is_ok());
  EXPECT_TRUE(tp::validate_placement(packing.buffers, out.offsets, 0).is_ok());
  EXPECT_EQ(out.height, packing.height);
  EXPECT_TRUE(out.proved_optimal);
  EXPECT_EQ(out.stats.threads, 3);
  EXPECT_FALSE(out.stats.timed_out);  // the others were ended by the answer, not by the clock
  // Had any worker run on to the limit, the call would have taken 60 s.
  EXPECT_LT(out.stats.seconds, 30);
}

TEST(PlacementPortfolio, ZeroRunsOneWorkerPerUsableProcessor) {
  PlaceOptions options;
  options.minimize = true;
  options.threads = 0;
  Placement out;
  ASSERT_TRUE(tp::place(stairs(), options, &out).is_ok());
  const int32_t usable = tp::placement_detail::usable_processors();
  EXPECT_GE(usable, 1);
  EXPECT_LE(usable, static_cast<int32_t>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))));
  EXPECT_EQ(out.stats.threads, std::min(usable, tp::kMaxPlaceThreads));
  EXPECT_EQ(out.height, 12);
}

TEST(PlacementPortfolio, AnswersCapacityQuestionsWithAnyWorkersProof) {
  PlaceOptions options;
  options.threads = 3;
  options.capacity = 11;  // below the optimum
  Placement refuted;
  ASSERT_TRUE(tp::place(stairs(), options, &refuted).is_ok());
  EXPECT_TRUE(refuted.proved_infeasible);
  EXPECT_FALSE(refuted.feasible);
  EXPECT_EQ(refuted.proved_lower_bound, 12);
  EXPECT_EQ(refuted.stats.threads, 3);
  EXPECT_TRUE(tp::validate_placement(stairs(), refuted.offsets, 0).is_ok());
  options.capacity = 12;
  Placement fits;
  ASSERT_TRUE(tp::place(stairs(), options, &fits).is_ok());
  EXPECT_TRUE(fits.feasible);
  EXPECT_FALSE(fits.proved_infeasible);
  EXPECT_LE(fits.height, 12);
}

TEST(PlacementPortfolio, WithoutMinimizeOrACapacityOneWorkerRuns) {
  PlaceOptions options;
  options.threads = 4;
  Placement out;
  ASSERT_TRUE(tp::place(stairs(), options, &out).is_ok());
  EXPECT_EQ(out.stats.threads, 1);
}

// Random instances of two or three pieces (time ranges no buffer crosses),
// so that the workers' pieces are merged one by one, under a deadline short
// enough that some workers end above the bound.
TEST(PlacementPortfolio, EveryMergedPlacementIsValidAndNoLowerThanWhatWasProved) {
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 24; ++trial) {
    std::vector<PlaceBuffer> buffers;
    const int pieces = 2 + static_cast<int>(rng() % 2);
    for (int p = 0; p < pieces; ++p) {
      const int64_t base = 100 * p;
      const int count = 8 + static_cast<int>(rng() % 40);
      for (int i = 0; i < count; ++i) {
        const int64_t lower = base + static_cast<int64_t>(rng() % 60);
        const int64_t upper = std::min<int64_t>(base + 90, lower + 1 + static_cast<int64_t>(rng() % 30));
        const int64_t alignment = int64_t{1} << (rng() % 4);
        buffers.push_back({lower, upper, 1 + static_cast<int64_t>(rng() % 500), alignment});
      }
    }
    PlaceOptions options;
    options.minimize = true;
    options.time_limit_seconds = 0.2;
    options.threads = 3;
    Placement out;
    ASSERT_TRUE(tp::place(buffers, options, &out).is_ok());
    ASSERT_TRUE(tp::validate_placement(buffers, out.offsets, 0).is_ok()) << "trial " << trial;
    EXPECT_EQ(out.height, tp::placement_height(buffers, out.offsets));
    EXPECT_GE(out.proved_lower_bound, out.lower_bound);
    EXPECT_GE(out.height, out.proved_lower_bound);
    EXPECT_EQ(out.proved_optimal, out.height == out.proved_lower_bound);
    EXPECT_GE(out.stats.threads, 1);
    EXPECT_LE(out.stats.threads, 3);
  }
}

}  // namespace
