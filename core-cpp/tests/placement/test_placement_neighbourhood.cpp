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

TEST(PlacementNeighbourhood, WindowsLowerAFirstFitPackingAndAreReproducible) {
  const tp::PerfectPacking packing = tp::random_perfect_packing(150, 7);
  const std::vector<int64_t> start = tp::place_first_fit(packing.buffers);
  const int64_t start_height = tp::placement_height(packing.buffers, start);
  ASSERT_GT(start_height, packing.height);
  std::vector<int64_t> runs[2];
  for (auto& offsets : runs) {
    offsets = start;
    SearchBudget budget;  // no deadline: the node work alone bounds it
    tp::placement_detail::improve_by_neighbourhoods(packing.buffers, packing.height, 200000, 42, &budget, &offsets);
    ASSERT_TRUE(tp::validate_placement(packing.buffers, offsets, 0).is_ok());
  }
  EXPECT_EQ(runs[0], runs[1]);
  const int64_t height = tp::placement_height(packing.buffers, runs[0]);
  EXPECT_LT(height, start_height);
  EXPECT_GE(height, packing.height);
}

}  // namespace
