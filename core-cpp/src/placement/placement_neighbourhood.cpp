// Large-neighbourhood search around the best placement found.
//
// On tight instances (random perfect packings of a few hundred buffers) the
// complete search gets lost below a wrong early choice and the dives leave
// 10-25% above the lower bound. Here the placement is repaired window by
// window instead: pick a buffer at the top, a time window around it and an
// offset band below the top; free the buffers inside both; and ask the
// exact search (placement_exact.cpp, with a node limit) to put them back
// below the current height, above the floor left by everything else. A
// window it re-places is adopted, so the buffers at the top go down one
// window at a time, and the height with them once none is left there.
// Each window is a small search (tens of buffers), so it finds what a
// search over the whole piece cannot reach within its time.
// Two kinds of window. The top-most one frees the highest buffers alive in
// a time window. Where the placement has holes deep down (free space in the
// instance, or a packing not yet at its bound), those buffers are often solid
// all the way down to where the load is highest, and every such window is
// refuted at once: its freed bytes and the floor left below them already
// reach the height. The slab (60% of the windows) frees instead everything
// from the lowest free byte up at the busiest step of the picked buffer's
// life, over a random reach of time around it, so the holes that lowering it
// needs are in the window.
// After a run of windows that lower nothing, the whole placement is jostled
// (placement_jostle.cpp) and the windows go on from there.
// Ruin-and-recreate in the sense of Shaw, "Using constraint programming and
// local search methods to solve vehicle routing problems" (CP 1998), with a
// complete search as the recreate step.
#include <algorithm>
#include <utility>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {

namespace {

// splitmix64: raw 64-bit draws, the same on every platform.
struct Draws {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n > 0.
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
};

// The share of windows cut as slabs (in percent), and the factor on each
// window's node limit, chosen on the held-out perfect packings of 300 and
// 600 buffers (docs/placement.md, "Hard instances"), one run each: without
// slabs 31 of the 36 reached the optimum, with slabs 31, with slabs and four
// times the nodes 32, and the two 600-buffer sparse packings went from
// 1.0190 and 1.0490 to 1.0000 and 1.0356. Once the canonical search's
// nodes cost 1.8 times fewer instructions (docs/placement.md, "The canonical
// search's cost per node"), eight times the nodes instead of four, on 49
// sparse perfect packings of 600 buffers (seeds 601-650 but 609; two
// workers, 10 s per call, each packing run with both in turn, 2026-11-30),
// ended 36 within 1.01 times the optimum at a mean of 1.0081, against 39
// at 1.0068: the cheaper nodes go to more windows, not longer ones.
constexpr int64_t kSlabPercent = 60;
constexpr int64_t kWindowNodes = 4;

// After this many windows in a row that lower nothing, the placement is
// jostled (placement_jostle.cpp): pushed up under its height and dropped
// again, so that the holes the windows could not reach move. On 49 sparse
// perfect packings of 600 buffers (seeds 601-650 but 609; 10 s per call,
// two workers, each packing run with and without it in turn, 2026-11-30,
// two runs with the order of the two swapped), it ended 39 and 39 within
// 1.01 times the optimum, at a mean of 1.0082 and 1.0068, against 34 and
// 34 at 1.0087 and 1.0091 without it; 23 and 23 at the optimum against 23
// and 21 (outside the product); the product then ended them at 1.0077, 36
// within 1.01 and 22 at the optimum. No run without it had ended more than
// 35 of them within 1.01. After 4 instead of 10, with each packing run
// with both in turn (2026-11-30, at db56902), 32 ended within 1.01 at a
// mean of 1.0084, against 39 at 1.0070; a jostle of only the buffers alive
// in a random range of steps gave 37-39 at 1.0080-1.0084, within the spread
// (docs/placement-measurements.md, "What holds sparse and skewed packings
// above the optimum").
constexpr int64_t kJostleAfterFailures = 10;

}  // namespace

// The step of [lower, upper) with the most bytes alive, among the lifetime's
// start and up to 16 of the births inside it (drawn when there are more, so
// that a window costs O(n) scans however long the buffer lives).
int64_t busiest_step(const std::vector<PlaceBuffer>& buffers, int64_t lower, int64_t upper, uint64_t seed,
                     std::vector<int64_t>* steps) {
  Draws draws{seed};
  steps->clear();
  steps->push_back(lower);
  for (const PlaceBuffer& other : buffers) {
    if (other.size > 0 && other.lower > lower && other.lower < upper) steps->push_back(other.lower);
  }
  constexpr size_t kMostSteps = 17;
  if (steps->size() > kMostSteps) {
    for (size_t k = 1; k < kMostSteps; ++k) {
      const size_t pick = k + static_cast<size_t>(draws.below(static_cast<int64_t>(steps->size() - k)));
      std::swap((*steps)[k], (*steps)[pick]);
    }
    steps->resize(kMostSteps);
  }
  int64_t best_step = lower, best_load = -1;
  for (int64_t step : *steps) {
    int64_t load = 0;
    for (const PlaceBuffer& other : buffers) {
      if (other.lower <= step && other.upper > step) load += other.size;
    }
    if (load > best_load) {
      best_load = load;
      best_step = step;
    }
  }
  return best_step;
}

// The lowest byte that no buffer alive at `step` covers: below it the
// placement is solid there.
int64_t lowest_free_byte(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets, int64_t step,
                         std::vector<std::pair<int64_t, int64_t>>* spans) {
  spans->clear();
  for (size_t i = 0; i < buffers.size(); ++i) {
    const PlaceBuffer& b = buffers[i];
    if (b.size > 0 && b.lower <= step && b.upper > step) spans->emplace_back(offsets[i], offsets[i] + b.size);
  }
  std::sort(spans->begin(), spans->end());
  int64_t solid = 0;
  for (const auto& span : *spans) {
    if (span.first > solid) break;
    solid = std::max(solid, span.second);
  }
  return solid;
}

bool improve_by_neighbourhoods(const std::vector<PlaceBuffer>& buffers, int64_t lower_bound, int64_t node_work,
                               uint64_t seed, SearchBudget* budget, std::vector<int64_t>* offsets) {
  const size_t n = buffers.size();
  if (n < 2) return false;
  Draws draws{seed};
  int64_t start_lo = buffers[0].lower, end_hi = buffers[0].upper;
  for (const PlaceBuffer& b : buffers) {
    start_lo = std::min(start_lo, b.lower);
    end_hi = std::max(end_hi, b.upper);
  }
  const int64_t span = end_hi - start_lo;
  auto top_of = [&](size_t i) { return (*offsets)[i] + buffers[i].size; };
  int64_t height = placement_height(buffers, *offsets);
  const int64_t initial = height;
  const int64_t nodes_at_start = budget->nodes;
  int64_t windows = 0;
  // Free-set size: grows after windows that fail, shrinks after ones that
  // succeed, so the search spends its nodes where windows are re-placeable.
  double want = 24;
  const double most = std::min<double>(120, static_cast<double>(n));
  std::vector<int32_t> hot, inside, free_set, by_offset;
  std::vector<PlaceBuffer> sub;
  std::vector<int64_t> sub_offsets;
  PlacedFloor floor;
  SearchScratch scratch;  // one table for the thousands of window searches
  std::vector<int64_t> steps;
  std::vector<std::pair<int64_t, int64_t>> spans;
  int64_t failures_in_a_row = 0;
  while (height > lower_bound) {
    if (budget->expired()) break;
    if (failures_in_a_row >= kJostleAfterFailures) {
      // The jostle never raises the height; where it lowers it, that counts.
      jostle_placement(buffers, draws.next(), budget, offsets);
      failures_in_a_row = 0;
      const int64_t before = height;
      height = placement_height(buffers, *offsets);
      if (height < before) budget->note_improvement();
      if (height <= lower_bound) break;
    }
    // Work is nodes plus windows: a window refuted before any node (its
    // freed bytes and the floor already reach the height) still costs a scan.
    if (node_work > 0 && budget->nodes - nodes_at_start + windows >= node_work) break;
    ++windows;
    by_offset.clear();
    for (size_t i = 0; i < n; ++i) {
      if (buffers[i].size > 0) by_offset.push_back(static_cast<int32_t>(i));
    }
    std::stable_sort(by_offset.begin(), by_offset.end(), [&](int32_t x, int32_t y) { return (*offsets)[static_cast<size_t>(x)] < (*offsets)[static_cast<size_t>(y)]; });
    hot.clear();
    for (size_t i = 0; i < n; ++i) {
      if (buffers[i].size > 0 && top_of(i) == height) hot.push_back(static_cast<int32_t>(i));
    }
    if (hot.empty()) break;  // cannot happen: height is some buffer's top
    const size_t pick = static_cast<size_t>(hot[static_cast<size_t>(draws.below(static_cast<int64_t>(hot.size())))]);
    const PlaceBuffer& b = buffers[pick];
    // A window around the picked buffer: random reach on each side, up to
    // the whole piece, and a band from a random depth below the top.
    const int64_t reach = 1 + draws.below(std::max<int64_t>(1, span / 2));
    const int64_t t0 = b.lower - draws.below(reach + 1);
    const int64_t t1 = b.upper + draws.below(reach + 1);
    inside.clear();
    for (size_t i = 0; i < n; ++i) {
      if (buffers[i].size > 0 && buffers[i].lower < t1 && buffers[i].upper > t0) inside.push_back(static_cast<int32_t>(i));
    }
    // The highest `want` of them (by top, ties by index) seed the free set;
    // the picked buffer is always among them (nothing is above it).
    const auto target_count = static_cast<size_t>(std::max<double>(2, want * (0.5 + static_cast<double>(draws.below(1000)) / 1000.0)));
    std::stable_sort(inside.begin(), inside.end(), [&](int32_t x, int32_t y) { return top_of(static_cast<size_t>(x)) > top_of(static_cast<size_t>(y)); });
    if (inside.size() > target_count) inside.resize(target_count);
    if (draws.below(100) < kSlabPercent) {
      // A slab instead: at the busiest step of the picked buffer's life,
      // everything from the lowest free byte up, over a random reach of
      // time around it. The top-most window frees only bytes that are
      // solid where the load is highest, and cannot go lower there; a slab
      // takes in the holes that lowering it needs.
      const int64_t step = busiest_step(buffers, b.lower, b.upper, draws.next(), &steps);
      const int64_t solid = lowest_free_byte(buffers, *offsets, step, &spans);
      const int64_t slab_reach = draws.below(1 + b.upper - b.lower);
      inside.clear();
      for (size_t i = 0; i < n; ++i) {
        if (buffers[i].size > 0 && buffers[i].lower <= step + slab_reach && buffers[i].upper > step - slab_reach &&
            top_of(i) > solid) {
          inside.push_back(static_cast<int32_t>(i));
        }
      }
    }
    // Closed upwards: every buffer above a freed one (alive with it, at a
    // higher offset) is freed too. Then each fixed buffer lies below every
    // freed one alive with it, the floor (a section's highest fixed top)
    // never lies above a freed buffer's current spot, and the current
    // placement of the window is one answer of its search: any window can
    // be re-placed at the current height, and the question is only whether
    // it can go lower. One pass in increasing offset suffices.
    std::vector<char> is_free(n, 0);
    for (int32_t i : inside) is_free[static_cast<size_t>(i)] = 1;
    free_set.clear();
    for (int32_t g : by_offset) {
      const size_t gi = static_cast<size_t>(g);
      if (!is_free[gi]) {
        for (int32_t f : free_set) {
          const size_t fi = static_cast<size_t>(f);
          if ((*offsets)[fi] <= (*offsets)[gi] && buffers[fi].lower < buffers[gi].upper && buffers[gi].lower < buffers[fi].upper) {
            is_free[gi] = 1;
            break;
          }
        }
      }
      if (is_free[gi]) free_set.push_back(g);
    }
    if (static_cast<double>(free_set.size()) > 1.5 * most) {
      want = std::max(4.0, want * 0.8);
      continue;
    }
    sub.clear();
    for (int32_t i : free_set) sub.push_back(buffers[static_cast<size_t>(i)]);
    int64_t lo = sub[0].lower, hi = sub[0].upper;
    for (const PlaceBuffer& s : sub) {
      lo = std::min(lo, s.lower);
      hi = std::max(hi, s.upper);
    }
    floor.buffers.clear();
    floor.offsets.clear();
    for (size_t i = 0; i < n; ++i) {
      if (is_free[i] || buffers[i].size == 0 || buffers[i].upper <= lo || buffers[i].lower >= hi) continue;
      floor.buffers.push_back(buffers[i]);
      floor.offsets.push_back((*offsets)[i]);
    }
    // The window cannot end lower than the highest fixed buffer: ask for
    // that first (the best case), then for one byte less than now, and
    // after a success, halve the distance that is left.
    int64_t fixed_top = lower_bound;
    for (size_t i = 0; i < n; ++i) {
      if (!is_free[i] && buffers[i].size > 0) fixed_top = std::max(fixed_top, top_of(i));
    }
    const int64_t node_limit = kWindowNodes * (200 + 40 * static_cast<int64_t>(sub.size()));
    bool improved = false;
    int64_t window_top = height;  // the window's best height so far
    for (int probe = 0; probe < 4 && window_top > fixed_top; ++probe) {
      int64_t capacity = window_top - 1;
      if (probe == 0 && fixed_top < window_top - 1) capacity = fixed_top;
      else if (probe >= 2) capacity = fixed_top + (window_top - fixed_top) / 2;
      if (budget->expired()) break;
      const SearchOutcome outcome = search_at_capacity(sub, capacity, node_limit, budget, &sub_offsets, &floor, nullptr, &scratch);
      if (outcome != SearchOutcome::kFound) {
        if (probe >= 1) break;  // probe 0 failing still leaves "one byte less"
        continue;
      }
      improved = true;
      for (size_t k = 0; k < free_set.size(); ++k) (*offsets)[static_cast<size_t>(free_set[k])] = sub_offsets[k];
      window_top = placement_height(sub, sub_offsets);
      if (probe == 0) break;  // at the fixed top: nothing lower to ask
      probe = std::max(probe, 1);
    }
    if (improved) {
      const int64_t before = height;
      height = placement_height(buffers, *offsets);
      if (height < before) budget->note_improvement();
      want = std::max(8.0, want * 0.9);
      failures_in_a_row = 0;
    } else {
      want = std::min(most, want * 1.05 + 0.5);
      ++failures_in_a_row;
    }
  }
  return height < initial;
}

}  // namespace placement_detail
}  // namespace tp
