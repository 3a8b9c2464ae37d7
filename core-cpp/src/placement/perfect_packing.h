// Seeded random perfect packings: hard placement instances whose optimum is
// known. A time x space rectangle [0, span) x [0, height) is cut into
// `count` rectangles; each becomes a buffer alive over its time range
// [lower, upper) with its space range as [offset, offset + size). Every step
// is covered from 0 to height, so the lower bound (max live bytes) is
// `height`, and the rectangle itself is a placement at that height: the
// optimum equals the lower bound by construction.
//
// The partition is built by refining: pick a rectangle (by area), then cut it
// straight in two or, as a "pinwheel", into five (four arms turning around a
// centre; no straight line crosses a pinwheel without cutting one of its
// pieces). The first cut is always a pinwheel, so the instance does not fall
// apart at a time no buffer crosses, and about a quarter of the later cuts
// are pinwheels, so straight-cut (guillotine) reasoning cannot solve it.
// guillotine_free_buffers() measures this on any placement.
//
// For tests, tools and benchmarks only: the core's API does not use it.
#ifndef TENSORPLAN_PLACEMENT_PERFECT_PACKING_H
#define TENSORPLAN_PLACEMENT_PERFECT_PACKING_H

#include <cstdint>
#include <vector>

#include "placement/placement.h"

namespace tp {

struct PerfectPacking {
  std::vector<PlaceBuffer> buffers;  // shuffled: input order says nothing of the packing
  std::vector<int64_t> offsets;      // the packing the instance was cut from (height == lower bound)
  int64_t height = 0;                // the optimum and the lower bound
  int64_t span = 0;                  // steps: lifetimes lie in [0, span)
};

// `count` >= 5 buffers; the same (count, seed) gives the same instance on
// every platform (raw 64-bit draws, no std distributions). Space is
// 2^20 bytes high (MiniMalloc's challenging capacity), time 2 * count steps.
PerfectPacking random_perfect_packing(int32_t count, uint64_t seed);

// Applies every straight cut (a time or an offset that no buffer's rectangle
// crosses, in the placement given) recursively, and returns how many buffers
// end up in blocks of two or more that no straight cut divides: 0 means the
// placement is a guillotine partition.
int32_t guillotine_free_buffers(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets);

// Whether some straight line crosses the whole bounding rectangle of the
// placement without cutting a buffer (a time cut splits the instance into
// independent pieces; an offset cut splits it into stacked sub-packings).
bool has_straight_cut(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets);

}  // namespace tp

#endif  // TENSORPLAN_PLACEMENT_PERFECT_PACKING_H
