// The large-neighbourhood search (placement_neighbourhood.cpp) and the
// search above fixed buffers it relies on (search_at_capacity with a floor):
// every answer must be a valid placement together with the fixed buffers,
// a window must never go up, and a bounded run must be reproducible.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "placement/perfect_packing.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"
#include "placement/placement_pieces.h"

namespace {

using tp::PlaceBuffer;
using tp::placement_detail::PlacedFloor;
using tp::placement_detail::SearchBudget;
using tp::placement_detail::SearchOutcome;

TEST(PlacementNeighbourhood, TheSearchAboveAFloorNeverOverlapsTheFixedBuffers) {
  std::mt19937_64 rng(1818);
  int found = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // Fixed buffers first (stacked by first fit), free buffers on top.
    std::vector<PlaceBuffer> fixed(6), free_buffers(6);
    for (auto* list : {&fixed, &free_buffers}) {
      for (PlaceBuffer& b : *list) {
        b.lower = static_cast<int64_t>(rng() % 10);
        b.upper = b.lower + 1 + static_cast<int64_t>(rng() % 5);
        b.size = 1 + static_cast<int64_t>(rng() % 7);
        b.alignment = int64_t{1} << (rng() % 2);
      }
    }
    PlacedFloor floor;
    floor.buffers = fixed;
    floor.offsets = tp::place_first_fit(fixed);
    const int64_t capacity = tp::placement_height(fixed, floor.offsets) + 8 + static_cast<int64_t>(rng() % 8);
    SearchBudget budget;
    std::vector<int64_t> offsets;
    const SearchOutcome outcome =
        tp::placement_detail::search_at_capacity(free_buffers, capacity, 0, &budget, &offsets, &floor);
    ASSERT_NE(outcome, SearchOutcome::kGaveUp);
    if (outcome != SearchOutcome::kFound) continue;
    ++found;
    std::vector<PlaceBuffer> all = fixed;
    all.insert(all.end(), free_buffers.begin(), free_buffers.end());
    std::vector<int64_t> all_offsets = floor.offsets;
    all_offsets.insert(all_offsets.end(), offsets.begin(), offsets.end());
    EXPECT_TRUE(tp::validate_placement(all, all_offsets, capacity).is_ok()) << "trial " << trial;
  }
  EXPECT_GT(found, 50);  // most trials really place something above the floor
}

// Two runs of the neighbourhood search from first fit, bounded by work
// alone (no deadline): both valid, equal, lower than first fit and not below
// the optimum.
void ExpectWindowsLowerFirstFitReproducibly(const tp::PerfectPacking& packing, uint64_t seed) {
  const std::vector<int64_t> start = tp::place_first_fit(packing.buffers);
  const int64_t start_height = tp::placement_height(packing.buffers, start);
  ASSERT_GT(start_height, packing.height);
  std::vector<int64_t> runs[2];
  for (auto& offsets : runs) {
    offsets = start;
    SearchBudget budget;
    tp::placement_detail::improve_by_neighbourhoods(packing.buffers, packing.height, 200000, seed, &budget, &offsets);
    ASSERT_TRUE(tp::validate_placement(packing.buffers, offsets, 0).is_ok());
  }
  EXPECT_EQ(runs[0], runs[1]);
  const int64_t height = tp::placement_height(packing.buffers, runs[0]);
  EXPECT_LT(height, start_height);
  EXPECT_GE(height, packing.height);
}

TEST(PlacementNeighbourhood, WindowsLowerAFirstFitPackingAndAreReproducible) {
  ExpectWindowsLowerFirstFitReproducibly(tp::random_perfect_packing(150, 7), 42);
}

TEST(PlacementNeighbourhood, ASectionWithoutFreedBuffersDoesNotRefuteTheSearch) {
  // Two freed buffers with a gap in time between them, and a fixed buffer
  // 100 bytes high alive only in that gap. Nothing freed lives there, so
  // the fixed buffer asks nothing of the search: both fit at offset 0 below
  // a capacity of 20.
  const std::vector<PlaceBuffer> freed = {{0, 5, 10, 1}, {6, 10, 10, 1}};
  PlacedFloor floor;
  floor.buffers = {{5, 6, 100, 1}};
  floor.offsets = {0};
  SearchBudget budget;
  std::vector<int64_t> offsets;
  ASSERT_EQ(tp::placement_detail::search_at_capacity(freed, 20, 0, &budget, &offsets, &floor), SearchOutcome::kFound);
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 0}));
  // Where a freed buffer does live, the fixed one still counts.
  const std::vector<PlaceBuffer> across = {{0, 10, 10, 1}};
  EXPECT_EQ(tp::placement_detail::search_at_capacity(across, 20, 0, &budget, &offsets, &floor),
            SearchOutcome::kInfeasible);
}

TEST(PlacementNeighbourhood, SlabsStartAtTheLowestFreeByteOfTheBusiestStep) {
  // Step 0: 4 + 6 bytes alive, step 1: 4 + 6 + 5, step 2: 5.
  const std::vector<PlaceBuffer> buffers = {{0, 2, 4, 1}, {0, 2, 6, 1}, {1, 3, 5, 1}};
  std::vector<int64_t> steps;
  EXPECT_EQ(tp::placement_detail::busiest_step(buffers, 0, 3, 1, &steps), 1);
  EXPECT_EQ(tp::placement_detail::busiest_step(buffers, 2, 3, 1, &steps), 2);
  std::vector<std::pair<int64_t, int64_t>> spans;
  // Solid from 0 to 10 at step 0, a hole at [10, 12) at step 1, then 12..17.
  const std::vector<int64_t> offsets = {0, 4, 12};
  EXPECT_EQ(tp::placement_detail::lowest_free_byte(buffers, offsets, 0, &spans), 10);
  EXPECT_EQ(tp::placement_detail::lowest_free_byte(buffers, offsets, 1, &spans), 10);
  // At step 2 only the third buffer is alive, above a hole that starts at 0.
  EXPECT_EQ(tp::placement_detail::lowest_free_byte(buffers, offsets, 2, &spans), 0);
}

TEST(PlacementNeighbourhood, BusiestStepDrawsAmongManyBirthsAndStaysInTheRange) {
  // 40 short buffers born inside [0, 100): more candidates than are scanned.
  std::vector<PlaceBuffer> buffers;
  for (int64_t k = 0; k < 40; ++k) buffers.push_back({k * 2 + 1, k * 2 + 3, 1 + k % 5, 1});
  buffers.push_back({0, 100, 7, 1});
  std::vector<int64_t> steps;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const int64_t step = tp::placement_detail::busiest_step(buffers, 0, 100, seed, &steps);
    EXPECT_GE(step, 0);
    EXPECT_LT(step, 100);
    EXPECT_LE(steps.size(), 17u);
    EXPECT_EQ(step, tp::placement_detail::busiest_step(buffers, 0, 100, seed, &steps));  // same seed, same step
  }
}

TEST(PlacementNeighbourhood, WindowsLowerASparsePackingAndAreReproducible) {
  // Free space everywhere but one step: the family the slab windows are for.
  tp::PerfectPackingShape shape;
  ASSERT_TRUE(tp::perfect_packing_family("sparse", &shape));
  ExpectWindowsLowerFirstFitReproducibly(tp::random_perfect_packing(150, 11, shape), 5);
}

TEST(PlacementNeighbourhood, StartsKeepTheLowestAndNeverGoUp) {
  tp::PerfectPackingShape shape;
  ASSERT_TRUE(tp::perfect_packing_family("sparse", &shape));
  const tp::PerfectPacking packing = tp::random_perfect_packing(120, 23, shape);
  const std::vector<int64_t> first_fit = tp::place_first_fit(packing.buffers);
  const int64_t first_fit_height = tp::placement_height(packing.buffers, first_fit);
  ASSERT_GT(first_fit_height, packing.height);
  // An alternative that is the packing itself is at the bound: the halving
  // ends there, whatever the best start reached in its first slice.
  std::vector<int64_t> offsets = first_fit;
  SearchBudget budget;
  budget.deadline_seconds = tp::placement_detail::now_seconds() + 30;
  const std::vector<std::vector<int64_t>> alternatives = {first_fit, {1, 2, 3}, packing.offsets};
  EXPECT_TRUE(tp::placement_detail::improve_from_starts(packing.buffers, packing.height, alternatives, 9, &budget,
                                                        &offsets));
  EXPECT_EQ(tp::placement_height(packing.buffers, offsets), packing.height);
  EXPECT_TRUE(tp::validate_placement(packing.buffers, offsets, 0).is_ok());
  // From a start at the bound there is nothing to lower: no change, false.
  std::vector<int64_t> at_bound = packing.offsets;
  EXPECT_FALSE(tp::placement_detail::improve_from_starts(packing.buffers, packing.height, {first_fit}, 9, &budget,
                                                         &at_bound));
  EXPECT_EQ(at_bound, packing.offsets);
  // Under a short deadline the result is valid and never above the start.
  std::vector<int64_t> short_run = first_fit;
  SearchBudget short_budget;
  short_budget.deadline_seconds = tp::placement_detail::now_seconds() + 0.2;
  tp::placement_detail::improve_from_starts(packing.buffers, packing.height, {tp::place_best_fit_by_lifetime(packing.buffers)},
                                            9, &short_budget, &short_run);
  EXPECT_TRUE(tp::validate_placement(packing.buffers, short_run, 0).is_ok());
  EXPECT_LE(tp::placement_height(packing.buffers, short_run), first_fit_height);
}

// The constructive phase's starts of the one piece of `packing`, and which
// of them the neighbourhood search shares its time with at the bound.
struct PieceStarts {
  size_t kept = 0;
  size_t used = 0;
};
PieceStarts StartsOfTheOnlyPiece(const tp::PerfectPacking& packing) {
  std::vector<tp::placement_detail::Piece> pieces = tp::placement_detail::split_at_free_steps(packing.buffers);
  EXPECT_EQ(pieces.size(), 1u);
  if (pieces.size() != 1) return {};
  SearchBudget budget;
  tp::PlaceStats stats;
  tp::placement_detail::construct_pieces(packing.buffers, packing.height, &pieces, &budget, &stats);
  const std::vector<std::vector<int64_t>>& used = tp::placement_detail::neighbourhood_starts(pieces[0], packing.height);
  if (!used.empty()) {
    EXPECT_EQ(&used, &pieces[0].starts);  // all of them or none
  }
  return {pieces[0].starts.size(), used.size()};
}

TEST(PlacementNeighbourhood, LargePiecesShareTheSearchAmongStartsOnlyWhereTheyHaveFreeSpace) {
  tp::PerfectPackingShape sparse;
  ASSERT_TRUE(tp::perfect_packing_family("sparse", &sparse));
  // 300 buffers with free space at the bound: the well search does not run,
  // and the dives' placements are starts.
  const PieceStarts with_free_space = StartsOfTheOnlyPiece(tp::random_perfect_packing(300, 7, sparse));
  EXPECT_GE(with_free_space.kept, 2u);
  EXPECT_EQ(with_free_space.used, with_free_space.kept);
  // 300 buffers that fill every step at the bound: the well search's
  // fallback is the one start, so the dives' are kept but not used.
  const PieceStarts full = StartsOfTheOnlyPiece(tp::random_perfect_packing(300, 7));
  EXPECT_GE(full.kept, 2u);
  EXPECT_EQ(full.used, 0u);
  // Up to 200 buffers every piece shares its time among its starts.
  const PieceStarts small_full = StartsOfTheOnlyPiece(tp::random_perfect_packing(120, 7));
  EXPECT_GE(small_full.kept, 2u);
  EXPECT_EQ(small_full.used, small_full.kept);
}

TEST(PlacementNeighbourhood, TheSearchCompletesAPartialTilingAtTheBound) {
  // Leave out every buffer that reaches above 70% of a perfect packing: the
  // rest is a partial tiling, and the left-out buffers fit back where they
  // were, so a completion at the bound exists above that floor.
  const tp::PerfectPacking packing = tp::random_perfect_packing(60, 31);
  std::vector<int64_t> partial = packing.offsets;
  int left_out = 0;
  for (size_t b = 0; b < partial.size(); ++b) {
    if (partial[b] + packing.buffers[b].size > packing.height * 7 / 10) {
      partial[b] = -1;
      ++left_out;
    }
  }
  ASSERT_GT(left_out, 3);
  const std::vector<int64_t> greedy = tp::placement_detail::complete_partial_placement(packing.buffers, partial);
  SearchBudget budget;
  const std::vector<int64_t> completed = tp::placement_detail::complete_above_partial(
      packing.buffers, partial, packing.height, 4 * packing.height, 200000, &budget);
  ASSERT_FALSE(completed.empty());
  EXPECT_TRUE(tp::validate_placement(packing.buffers, completed, 0).is_ok());
  EXPECT_EQ(tp::placement_height(packing.buffers, completed), packing.height);
  EXPECT_LE(tp::placement_height(packing.buffers, completed), tp::placement_height(packing.buffers, greedy));
  for (size_t b = 0; b < partial.size(); ++b) {
    if (partial[b] >= 0) {
      EXPECT_EQ(completed[b], partial[b]) << "buffer " << b << " was placed and must stay";
    }
  }
  // Nothing placed, or nothing left out: nothing to complete.
  const std::vector<int64_t> none(packing.buffers.size(), -1);
  EXPECT_TRUE(tp::placement_detail::complete_above_partial(packing.buffers, none, packing.height, 4 * packing.height,
                                                           200000, &budget).empty());
  EXPECT_TRUE(tp::placement_detail::complete_above_partial(packing.buffers, packing.offsets, packing.height,
                                                           4 * packing.height, 200000, &budget).empty());
}

}  // namespace
