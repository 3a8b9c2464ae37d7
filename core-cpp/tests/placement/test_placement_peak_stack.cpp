// The peak-stack order (placement_peak_stack.cpp): what it puts first, that
// best fit in that order leaves no byte free at each piece's busiest step,
// and that on training-like traces where every skyline dive strands a buffer
// above the lower bound, it reaches the bound (and place() with it).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace {

using tp::PlaceBuffer;

// Random buffers on a short integer time axis with free steps between
// groups, so that most instances have several independent pieces.
std::vector<PlaceBuffer> random_pieces(std::mt19937_64& rng) {
  std::vector<PlaceBuffer> buffers;
  int64_t start = 0;
  const int groups = 1 + static_cast<int>(rng() % 3);
  for (int g = 0; g < groups; ++g) {
    const int count = 1 + static_cast<int>(rng() % 12);
    int64_t reach = start;
    for (int k = 0; k < count; ++k) {
      PlaceBuffer b;
      b.lower = start + static_cast<int64_t>(rng() % 8);
      b.upper = b.lower + 1 + static_cast<int64_t>(rng() % 6);
      b.size = rng() % 9 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % 40);
      buffers.push_back(b);
      reach = std::max(reach, b.upper);
    }
    start = reach + static_cast<int64_t>(rng() % 3);  // 0: touching groups, still separate pieces
  }
  return buffers;
}

// By brute force over the integer steps: bytes alive at each step, and for
// each buffer the first step of largest load of its piece (a run of steps
// joined by buffers alive on both sides of each boundary).
struct StepView {
  std::vector<int64_t> load;
  std::vector<int64_t> busiest_of_step;
};

StepView view_steps(const std::vector<PlaceBuffer>& buffers) {
  int64_t end = 0;
  for (const PlaceBuffer& b : buffers) end = std::max(end, b.upper);
  StepView v;
  v.load.assign(static_cast<size_t>(end), 0);
  std::vector<char> joined(static_cast<size_t>(end) + 1, 0);  // joined[t]: some buffer alive at t - 1 and t
  for (const PlaceBuffer& b : buffers) {
    if (b.size == 0) continue;
    for (int64_t t = b.lower; t < b.upper; ++t) v.load[static_cast<size_t>(t)] += b.size;
    for (int64_t t = b.lower + 1; t < b.upper; ++t) joined[static_cast<size_t>(t)] = 1;
  }
  v.busiest_of_step.assign(static_cast<size_t>(end), 0);
  int64_t piece = 0;
  for (int64_t t = 0; t <= end; ++t) {
    if (t == end || (t > 0 && !joined[static_cast<size_t>(t)])) {
      int64_t best = piece;
      for (int64_t s = piece; s < t; ++s) {
        if (v.load[static_cast<size_t>(s)] > v.load[static_cast<size_t>(best)]) best = s;
      }
      for (int64_t s = piece; s < t; ++s) v.busiest_of_step[static_cast<size_t>(s)] = best;
      piece = t;
    }
  }
  return v;
}

bool in_stack(const PlaceBuffer& b, const StepView& v) {
  if (b.size == 0) return false;
  const int64_t busiest = v.busiest_of_step[static_cast<size_t>(b.lower)];
  return b.lower <= busiest && busiest < b.upper;
}

TEST(PlacementPeakStack, TheBuffersAliveAtEachPiecesBusiestStepComeFirstByBirthThenTheRestByDecreasingSize) {
  std::mt19937_64 rng(2026);
  for (int round = 0; round < 2000; ++round) {
    const std::vector<PlaceBuffer> buffers = random_pieces(rng);
    const StepView v = view_steps(buffers);
    const std::vector<int32_t> order = tp::placement_detail::peak_stack_order(buffers);
    ASSERT_EQ(order.size(), buffers.size()) << "round " << round;
    std::vector<int32_t> sorted(order);
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], static_cast<int32_t>(i)) << "round " << round;
    size_t stacked = 0;
    while (stacked < order.size() && in_stack(buffers[static_cast<size_t>(order[stacked])], v)) ++stacked;
    for (size_t k = stacked; k < order.size(); ++k) {
      ASSERT_FALSE(in_stack(buffers[static_cast<size_t>(order[k])], v)) << "round " << round << ": position " << k;
    }
    for (size_t k = 1; k < order.size(); ++k) {
      const PlaceBuffer& a = buffers[static_cast<size_t>(order[k - 1])];
      const PlaceBuffer& b = buffers[static_cast<size_t>(order[k])];
      const bool before_ok =
          k < stacked ? (a.lower < b.lower || (a.lower == b.lower && a.upper > b.upper) ||
                         (a.lower == b.lower && a.upper == b.upper && order[k - 1] < order[k]))
                      : k == stacked || a.size > b.size || (a.size == b.size && order[k - 1] < order[k]);
      ASSERT_TRUE(before_ok) << "round " << round << ": positions " << k - 1 << " and " << k;
    }
  }
}

TEST(PlacementPeakStack, BestFitInThatOrderLeavesNoByteFreeAtEachPiecesBusiestStep) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 2000; ++round) {
    const std::vector<PlaceBuffer> buffers = random_pieces(rng);
    const StepView v = view_steps(buffers);
    const std::vector<int64_t> offsets = tp::placement_detail::best_fit_in_order(
        buffers, tp::placement_detail::peak_stack_order(buffers), nullptr, tp::placement_detail::BestFitRule::kXla);
    ASSERT_TRUE(tp::validate_placement(buffers, offsets, 0).is_ok()) << "round " << round;
    for (size_t t = 0; t < v.load.size(); ++t) {
      if (v.busiest_of_step[t] != static_cast<int64_t>(t) || v.load[t] == 0) continue;
      int64_t top = 0;
      for (size_t i = 0; i < buffers.size(); ++i) {
        if (buffers[i].size > 0 && buffers[i].lower <= static_cast<int64_t>(t) && static_cast<int64_t>(t) < buffers[i].upper) {
          top = std::max(top, offsets[i] + buffers[i].size);
        }
      }
      ASSERT_EQ(top, v.load[t]) << "round " << round << ": busiest step " << t;
    }
  }
}

// A training-like trace: values born during the forward steps [0, F] and
// freed during the backward steps, half of them soon after the peak and half
// near the end, a quarter alive from step 0; short temporaries everywhere.
// Sizes are odd (a block plus one byte, as in idealloc's iopddl traces),
// so no two ever tile a gap exactly by accident.
std::vector<PlaceBuffer> training_trace(uint64_t seed, int forward, int values, int temporaries) {
  std::mt19937_64 rng(seed);
  auto between = [&](int lo, int hi) { return static_cast<int64_t>(lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1))); };
  const int64_t sizes[] = {5, 9, 17, 257, 513, 769, 1025, 1537, 2049, 3073};
  std::vector<PlaceBuffer> buffers;
  for (int k = 0; k < values; ++k) {
    PlaceBuffer b;
    b.lower = between(0, forward);
    b.upper = between(0, 1) == 1 ? between(forward + 1, forward + forward / 4) : between(2 * forward - forward / 4, 2 * forward);
    if (between(0, 3) == 0) b.lower = 0;
    b.size = sizes[between(3, 9)];
    buffers.push_back(b);
  }
  for (int k = 0; k < temporaries; ++k) {
    PlaceBuffer b;
    b.lower = between(0, 2 * forward - 1);
    b.upper = std::min<int64_t>(2 * forward, b.lower + between(1, 3));
    b.size = sizes[between(0, 9)];
    buffers.push_back(b);
  }
  return buffers;
}

TEST(PlacementPeakStack, TracesWhereEverySkylineDiveStrandsABufferAreStackedAtTheLowerBound) {
  // Seeds found by scanning 200 of each shape: the only ones where all six
  // skyline dives of construct_pieces (orders A, TWA, Z, with and without
  // stacked starters) end above the lower bound and the peak stack does not.
  struct Case {
    uint64_t seed;
    int forward, values, temporaries;
  };
  for (const Case& c : {Case{143, 20, 40, 20}, Case{146, 100, 300, 200}}) {
    const std::vector<PlaceBuffer> buffers = training_trace(c.seed, c.forward, c.values, c.temporaries);
    const int64_t lower_bound = tp::placement_lower_bound(buffers);
    const std::vector<int64_t> heaviest = tp::placement_detail::heaviest_section_loads(buffers);
    for (const char* keys : {"A", "TWA", "Z"}) {
      for (bool starters : {false, true}) {
        const std::vector<int64_t> dive = tp::placement_detail::skyline_in_order(
            buffers, tp::placement_detail::preorder(buffers, heaviest, keys), lower_bound / 1000000, false, starters);
        EXPECT_GT(tp::placement_height(buffers, dive), lower_bound) << "seed " << c.seed << " order " << keys;
      }
    }
    const std::vector<int64_t> stacked = tp::placement_detail::best_fit_in_order(
        buffers, tp::placement_detail::peak_stack_order(buffers), nullptr, tp::placement_detail::BestFitRule::kXla);
    EXPECT_EQ(tp::placement_height(buffers, stacked), lower_bound) << "seed " << c.seed;

    tp::PlaceOptions options;
    tp::Placement placement;
    ASSERT_TRUE(tp::place(buffers, options, &placement).is_ok());
    EXPECT_EQ(placement.height, lower_bound) << "seed " << c.seed;
    EXPECT_TRUE(placement.proved_optimal) << "seed " << c.seed;
    // It is the stacked placement, not one the search found afterwards.
    EXPECT_EQ(placement.stats.method, tp::PlaceMethod::kConstructive) << "seed " << c.seed;
    EXPECT_EQ(placement.offsets, stacked) << "seed " << c.seed;
  }
}

}  // namespace
