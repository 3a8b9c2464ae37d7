// The peak-stack order for best fit.
//
// Training and inference traces share one shape: values pile up towards one
// busiest step (the end of the forward pass) and are freed after it. There,
// the lower bound is the bytes alive at that step, and a placement reaches it
// only if the buffers alive there are stacked without a byte between them.
// The order below makes that happen and keeps the rest of the arena usable:
//   - First, per independent piece, the buffers alive at its busiest
//     section (the first one of largest load), earliest birth first. They
//     all meet at that section, so best fit stacks them one on another with
//     no gap there. Stacked by birth, the ones alive at any earlier step are
//     exactly those born by then, which sit together at the bottom: before
//     the peak the free space is one band above a floor that only rises.
//   - Then every other buffer, largest first, each into the smallest gap
//     that holds it (best fit): the large ones take the bands and holes the
//     stack leaves, and the small ones fill what is left over.
// Measured on idealloc's iopddl traces (shared/bench/dsa): S_1 (28,526
// buffers) goes from 1.0018 of the lower bound (the skyline dives) to the
// lower bound itself in 0.8 s natively, and Y_1 (62,185 buffers) from
// 1.00001 to the lower bound. It does not help where no single step dominates:
// on random perfect packings and MiniMalloc's challenging files it places at
// 1.2-1.9 of the bound, far behind the dives. Stacking by death instead (the
// mirror in time) was measured on the same files and never beat what the
// dives or the birth order give (S_1: 1.042, Y_1: 1.0025), so it is not a
// candidate.
#include <algorithm>
#include <numeric>
#include <vector>

#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {

std::vector<int32_t> peak_stack_order(const std::vector<PlaceBuffer>& buffers) {
  const TimeSections axis = time_sections(buffers);
  const size_t sections = static_cast<size_t>(std::max<int32_t>(1, axis.count()));
  // Load per section and the buffers crossing each inner boundary, by
  // difference arrays (a boundary nothing crosses starts a new piece).
  std::vector<int64_t> load(sections + 1, 0);
  std::vector<int64_t> crossing(sections + 1, 0);
  for (size_t i = 0; i < buffers.size(); ++i) {
    const size_t lo = static_cast<size_t>(axis.first[i]), hi = static_cast<size_t>(axis.end[i]);
    if (buffers[i].size == 0 || lo >= hi) continue;
    load[lo] += buffers[i].size;
    load[hi] -= buffers[i].size;
    crossing[lo + 1] += 1;
    crossing[hi] -= 1;
  }
  // For each section, the busiest section of its piece (the first of them).
  std::vector<int32_t> busiest(sections, 0);
  size_t piece_start = 0;
  int64_t alive = 0, crossers = 0;
  for (size_t s = 0; s <= sections; ++s) {
    if (s > 0) crossers += crossing[s];
    if (s == sections || (s > 0 && crossers == 0)) {
      // The piece [piece_start, s) ends here.
      size_t best = piece_start;
      for (size_t k = piece_start; k < s; ++k) {
        if (load[k] > load[best]) best = k;
      }
      for (size_t k = piece_start; k < s; ++k) busiest[k] = static_cast<int32_t>(best);
      piece_start = s;
    }
    if (s < sections) {
      alive += load[s];
      load[s] = alive;  // from here on, load[s] is the bytes alive in section s
    }
  }
  std::vector<int32_t> stack, rest;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const int32_t lo = axis.first[i], hi = axis.end[i];
    const bool in_stack = buffers[i].size > 0 && lo < hi && lo <= busiest[static_cast<size_t>(lo)] &&
                          busiest[static_cast<size_t>(lo)] < hi;
    (in_stack ? stack : rest).push_back(static_cast<int32_t>(i));
  }
  std::stable_sort(stack.begin(), stack.end(), [&](int32_t a, int32_t b) {
    const PlaceBuffer& x = buffers[static_cast<size_t>(a)];
    const PlaceBuffer& y = buffers[static_cast<size_t>(b)];
    if (x.lower != y.lower) return x.lower < y.lower;
    return x.upper > y.upper;  // at one birth, the longest-lived lowest
  });
  std::stable_sort(rest.begin(), rest.end(), [&](int32_t a, int32_t b) {
    return buffers[static_cast<size_t>(a)].size > buffers[static_cast<size_t>(b)].size;
  });
  stack.insert(stack.end(), rest.begin(), rest.end());
  return stack;
}

}  // namespace placement_detail
}  // namespace tp
