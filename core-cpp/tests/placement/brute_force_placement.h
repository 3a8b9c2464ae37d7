// The lowest height of a small placement instance by brute force: the
// independent reference the canonical search and the well search are checked
// against. Every placement can be pushed down, in order of offset, each buffer
// to the lowest aligned offset above the buffers before it that it meets,
// without rising; so trying every order of pushing down reaches the optimum.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "placement/placement.h"

// The lowest height over every push-down order, or the first height found at
// or below `good_enough` (0: search them all). O(n! n^2): tiny instances only.
inline int64_t lowest_height_by_brute_force(const std::vector<tp::PlaceBuffer>& buffers, int64_t good_enough = 0) {
  std::vector<int32_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<int64_t> offsets(buffers.size());
  int64_t best = INT64_MAX;
  do {
    int64_t height = 0;
    for (size_t k = 0; k < order.size() && height < best; ++k) {
      const tp::PlaceBuffer& b = buffers[static_cast<size_t>(order[k])];
      int64_t offset = 0;
      for (size_t j = 0; j < k; ++j) {
        const tp::PlaceBuffer& c = buffers[static_cast<size_t>(order[j])];
        if (c.lower < b.upper && b.lower < c.upper) offset = std::max(offset, offsets[static_cast<size_t>(order[j])] + c.size);
      }
      offset = (offset + b.alignment - 1) / b.alignment * b.alignment;
      offsets[static_cast<size_t>(order[k])] = offset;
      height = std::max(height, offset + b.size);
    }
    best = std::min(best, height);
    if (best <= good_enough) return best;
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

// Whether some placement of `buffers` fits in `capacity`.
inline bool fits_by_brute_force(const std::vector<tp::PlaceBuffer>& buffers, int64_t capacity) {
  return lowest_height_by_brute_force(buffers, capacity) <= capacity;
}
