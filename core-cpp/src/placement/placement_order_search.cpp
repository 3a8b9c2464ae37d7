// Local search over the order of a skyline dive (see placement_internal.h).
//
// A dive places, among the unplaced buffers with the lowest possible offset,
// the first in its order; on tight instances (perfect packings: the optimum
// is the lower bound) that tie-break decides everything, and no fixed or
// noisy order gets close (random 400-buffer perfect packings end 20-25%
// above the bound). The search keeps one order and changes it by one move at
// a time, kept when the dive's height is no worse (a walk on plateaus, as in
// iterated greedy for strip packing, e.g. Burke, Kendall and Whitwell,
// "A new placement heuristic for the orthogonal stock-cutting problem",
// Operations Research 52(4), 2004, whose best-fit dives inspired the
// skyline; the moves are this file's own):
//  - promote: one of the buffers ending highest moves to a random earlier
//    rank (it was placed too late, on top of everything);
//  - swap: two random ranks trade places (escapes plateaus).
// Moves come from a fixed-seed engine, so the walk is the same on every
// build; it stops at its dive budget, at the deadline, or at the target.
#include <algorithm>
#include <random>
#include <vector>

#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {

OrderSearchResult order_local_search(const std::vector<PlaceBuffer>& buffers, std::vector<int32_t> order,
                                     int64_t target, int64_t max_dives, SearchBudget* budget) {
  OrderSearchResult result;
  const size_t n = order.size();
  if (n == 0) return result;
  std::mt19937_64 rng(0x0D3E5EA7Cull + n);
  auto draw = [&](uint64_t bound) { return static_cast<size_t>(rng() % bound); };
  const int64_t small_below = placement_lower_bound(buffers) / 1000000;
  auto dive = [&](const std::vector<int32_t>& o, std::vector<int64_t>* offsets) {
    *offsets = skyline_in_order(buffers, o, small_below, false, false, budget);
    ++result.dives;
    return placement_height(buffers, *offsets);
  };
  std::vector<int64_t> offsets;
  int64_t height = dive(order, &offsets);
  if (budget->timed_out) return result;
  result.offsets = offsets;
  result.height = height;
  std::vector<int32_t> rank(n), candidate(order);
  std::vector<std::pair<int64_t, int32_t>> tops(n);
  while (result.height > target && result.dives < max_dives && !budget->expired()) {
    for (size_t r = 0; r < n; ++r) rank[static_cast<size_t>(order[r])] = static_cast<int32_t>(r);
    candidate = order;
    if (draw(3) != 0) {
      // Promote one of the (up to) eight buffers ending highest.
      for (size_t i = 0; i < n; ++i) tops[i] = {offsets[i] + buffers[i].size, static_cast<int32_t>(i)};
      const size_t pool = std::min<size_t>(8, n);
      std::partial_sort(tops.begin(), tops.begin() + static_cast<std::ptrdiff_t>(pool), tops.end(),
                        [](const std::pair<int64_t, int32_t>& a, const std::pair<int64_t, int32_t>& b) {
                          return a.first != b.first ? a.first > b.first : a.second < b.second;
                        });
      const int32_t b = tops[draw(pool)].second;
      const size_t from = static_cast<size_t>(rank[static_cast<size_t>(b)]);
      if (from == 0) continue;
      const size_t to = draw(from);
      std::rotate(candidate.begin() + static_cast<std::ptrdiff_t>(to), candidate.begin() + static_cast<std::ptrdiff_t>(from),
                  candidate.begin() + static_cast<std::ptrdiff_t>(from) + 1);
    } else {
      std::swap(candidate[draw(n)], candidate[draw(n)]);
    }
    std::vector<int64_t> trial;
    const int64_t trial_height = dive(candidate, &trial);
    if (budget->timed_out) break;  // a dive cut by the deadline is no evidence
    if (trial_height <= height) {
      order.swap(candidate);
      offsets.swap(trial);
      height = trial_height;
      if (height < result.height) {
        result.height = height;
        result.offsets = offsets;
      }
    }
  }
  return result;
}

}  // namespace placement_detail
}  // namespace tp
