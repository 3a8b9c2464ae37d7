// First fit (placement_first_fit.cpp) keeps its free gaps in a treap so that
// it runs in O(n log n) however many buffers are alive together. These tests
// hold it to the plain definition: a replay that scans the live blocks in
// offset order for the lowest aligned gap (the implementation it replaced).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::PlaceBuffer;

// The definition, O(n * live): frees before allocations at equal times,
// allocations in input order, each at the lowest aligned gap between the
// live blocks that fits, else on top of them.
std::vector<int64_t> first_fit_by_scan(const std::vector<PlaceBuffer>& buffers) {
  std::vector<std::pair<std::pair<int64_t, int>, int32_t>> events;  // ((time, kind), index); kind 0 frees
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].size == 0) continue;
    events.push_back({{buffers[i].lower, 1}, static_cast<int32_t>(i)});
    events.push_back({{buffers[i].upper, 0}, static_cast<int32_t>(i)});
  }
  std::sort(events.begin(), events.end());
  std::vector<int64_t> offsets(buffers.size(), 0);
  std::set<std::pair<int64_t, int64_t>> live;
  for (const auto& e : events) {
    const size_t i = static_cast<size_t>(e.second);
    if (e.first.second == 0) {
      live.erase({offsets[i], offsets[i] + buffers[i].size});
      continue;
    }
    int64_t cursor = 0, chosen = -1;
    for (const auto& block : live) {
      const int64_t start = tp::placement_detail::align_up(cursor, buffers[i].alignment);
      if (block.first >= start + buffers[i].size) {
        chosen = start;
        break;
      }
      cursor = std::max(cursor, block.second);
    }
    if (chosen < 0) chosen = tp::placement_detail::align_up(cursor, buffers[i].alignment);
    offsets[i] = chosen;
    live.insert({chosen, chosen + buffers[i].size});
  }
  return offsets;
}

TEST(PlacementFirstFit, MatchesTheLinearScanOnRandomInstances) {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 3000; ++trial) {
    const int n = 1 + static_cast<int>(random() % 60);
    const int steps = 1 + static_cast<int>(random() % 40);
    const int64_t max_size = 1 + static_cast<int64_t>(random() % 300);
    std::vector<PlaceBuffer> buffers(static_cast<size_t>(n));
    for (PlaceBuffer& b : buffers) {
      b.lower = static_cast<int64_t>(random() % static_cast<uint64_t>(steps));
      b.upper = b.lower + 1 + static_cast<int64_t>(random() % static_cast<uint64_t>(steps));
      b.size = random() % 8 == 0 ? 0 : 1 + static_cast<int64_t>(random() % static_cast<uint64_t>(max_size));
      b.alignment = int64_t{1} << (random() % 4 == 0 ? random() % 8 : 0);
    }
    ASSERT_EQ(tp::place_first_fit(buffers), first_fit_by_scan(buffers)) << "trial " << trial;
  }
}

TEST(PlacementFirstFit, MatchesTheLinearScanWhenFreedGapsMergeOnBothSides) {
  // Three neighbours, the middle one freed last (its gap joins both
  // sides), then one buffer that only fits in the joined gap, then a gap of
  // enough bytes that alignment rules out (the search must look above it).
  const std::vector<PlaceBuffer> buffers = {
      {0, 2, 10, 1}, {0, 3, 10, 1}, {0, 2, 10, 1}, {0, 9, 10, 1},  // at 0, 10, 20, 30
      {3, 5, 25, 1},                                              // at 0, in [0, 30) joined at step 3
      {3, 5, 1, 1},                                               // at 25, leaving [26, 30)
      {3, 5, 4, 8},                                               // 32 + 4 > 30: on top, at 40
  };
  EXPECT_EQ(tp::place_first_fit(buffers), first_fit_by_scan(buffers));
  const std::vector<int64_t> offsets = tp::place_first_fit(buffers);
  EXPECT_EQ(offsets[4], 0);
  EXPECT_EQ(offsets[5], 25);
  EXPECT_EQ(offsets[6], 40);
}

}  // namespace
