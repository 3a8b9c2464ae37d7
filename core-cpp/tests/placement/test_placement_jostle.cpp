// The jostle (placement_jostle.cpp): from any valid placement it hands back
// a valid one, alignments kept, no higher than the start; the second pass
// leaves no buffer that could drop lower; the same salt gives the same
// placement; on placements with holes it moves buffers and can lower the
// height; and a budget already past its deadline stops it before it moves
// anything.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "placement/perfect_packing.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::PlaceBuffer;

std::vector<PlaceBuffer> RandomBuffers(std::mt19937_64* rng, size_t count) {
  std::vector<PlaceBuffer> buffers(count);
  for (PlaceBuffer& b : buffers) {
    b.lower = static_cast<int64_t>((*rng)() % 30);
    b.upper = b.lower + 1 + static_cast<int64_t>((*rng)() % 10);
    b.size = static_cast<int64_t>((*rng)() % 50);  // some of 0 bytes
    b.alignment = int64_t{1} << ((*rng)() % 4);
  }
  return buffers;
}

// Whether buffer i could sit lower: an aligned offset below its own where
// it overlaps none of the buffers alive with it.
bool CouldDrop(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets, size_t i) {
  const PlaceBuffer& b = buffers[i];
  const int64_t step = std::max<int64_t>(1, b.alignment);
  for (int64_t offset = 0; offset < offsets[i]; offset += step) {
    bool free = true;
    for (size_t j = 0; j < buffers.size() && free; ++j) {
      const PlaceBuffer& o = buffers[j];
      if (j == i || o.size == 0 || o.upper <= b.lower || b.upper <= o.lower) continue;
      free = offsets[j] + o.size <= offset || offset + b.size <= offsets[j];
    }
    if (free) return true;
  }
  return false;
}

TEST(PlacementJostle, KeepsPlacementsValidNoHigherAndSettled) {
  std::mt19937_64 rng(2718);
  int moved = 0, lowered = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<PlaceBuffer> buffers = RandomBuffers(&rng, 3 + rng() % 40);
    // Starts: first fit, and first fit with every offset doubled (still
    // aligned and disjoint, with holes below every buffer not at 0).
    std::vector<int64_t> start = tp::place_first_fit(buffers);
    if (trial % 2 == 1) {
      for (int64_t& offset : start) offset *= 2;
    }
    ASSERT_TRUE(tp::validate_placement(buffers, start, 0).is_ok());
    const int64_t start_height = tp::placement_height(buffers, start);
    std::vector<int64_t> offsets = start;
    tp::placement_detail::jostle_placement(buffers, static_cast<uint64_t>(trial), nullptr, &offsets);
    ASSERT_TRUE(tp::validate_placement(buffers, offsets, 0).is_ok()) << "trial " << trial;
    const int64_t height = tp::placement_height(buffers, offsets);
    EXPECT_LE(height, start_height) << "trial " << trial;
    EXPECT_GE(height, tp::placement_lower_bound(buffers)) << "trial " << trial;
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (buffers[i].size > 0) {
        EXPECT_FALSE(CouldDrop(buffers, offsets, i)) << "trial " << trial << " buffer " << i;
      }
    }
    std::vector<int64_t> again = start;
    tp::placement_detail::jostle_placement(buffers, static_cast<uint64_t>(trial), nullptr, &again);
    EXPECT_EQ(again, offsets) << "trial " << trial;
    moved += offsets != start ? 1 : 0;
    lowered += height < start_height ? 1 : 0;
  }
  EXPECT_GT(moved, 100);   // the spread starts always move
  EXPECT_GT(lowered, 10);  // and some come out lower
}

TEST(PlacementJostle, KeepsAPerfectPackingAtItsHeight) {
  // Every step full: nothing can move up or down, so the packing stays
  // valid and at the optimum whatever order the passes take.
  const tp::PerfectPacking packing = tp::random_perfect_packing(120, 5);
  std::vector<int64_t> offsets = packing.offsets;
  tp::placement_detail::jostle_placement(packing.buffers, 99, nullptr, &offsets);
  ASSERT_TRUE(tp::validate_placement(packing.buffers, offsets, packing.height).is_ok());
  EXPECT_EQ(tp::placement_height(packing.buffers, offsets), packing.height);
}

TEST(PlacementJostle, StopsAtTheDeadline) {
  std::mt19937_64 rng(31);
  const std::vector<PlaceBuffer> buffers = RandomBuffers(&rng, 40);
  std::vector<int64_t> start = tp::place_first_fit(buffers);
  for (int64_t& offset : start) offset *= 2;  // holes, so a jostle would move buffers
  std::vector<int64_t> jostled = start;
  tp::placement_detail::jostle_placement(buffers, 1, nullptr, &jostled);
  ASSERT_NE(jostled, start);
  tp::placement_detail::SearchBudget budget;
  budget.deadline_seconds = tp::placement_detail::now_seconds() - 1;
  std::vector<int64_t> offsets = start;
  tp::placement_detail::jostle_placement(buffers, 1, &budget, &offsets);
  EXPECT_EQ(offsets, start);
  EXPECT_TRUE(budget.timed_out);
}

}  // namespace
