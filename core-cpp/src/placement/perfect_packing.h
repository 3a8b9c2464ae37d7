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

// How a partition is drawn. The defaults are the generator's own family
// ("mixed"); the named families of perfect_packing_family() vary one trait
// each, so that the solver is measured on shapes it was not tuned on.
struct PerfectPackingShape {
  // Weight of the time axis against the space axis (each as a share of the
  // whole) when a straight cut picks its axis: 8 cuts mostly in time (short
  // lifetimes, tall buffers), 1/8 mostly in space.
  double time_bias = 1.0;
  // > 0: a straight cut is in time with this probability whatever the
  // rectangle's shape (0.85: about six time cuts to one space cut), instead
  // of by its longer side.
  double time_cut_share = 0;
  // A later cut is a pinwheel with probability 1 / pinwheel_one_in. 0: never,
  // and the first cut is straight too: a guillotine partition, which may fall
  // apart at a time no buffer crosses.
  int32_t pinwheel_one_in = 4;
  // The rectangle to cut is drawn with weight area^area_exponent: below 1,
  // small rectangles keep being cut while a few large ones stay (size skew;
  // 0 draws it uniformly).
  double area_exponent = 1.0;
  // Share of the rectangles kept, except those alive at one drawn step, which
  // are all kept: that step stays full, so the lower bound and the optimum
  // stay `height`, with free space elsewhere. The partition is drawn with
  // count / density rectangles, so about `count` remain.
  double density = 1.0;
  // Space cuts fall on multiples of this power of two, and each buffer gets
  // an alignment drawn from the powers of two up to it.
  int64_t alignment = 1;
  // Lifetimes lie in [0, steps_per_buffer * count).
  int32_t steps_per_buffer = 2;
};

// `count` >= 5 buffers; the same (count, seed) gives the same instance on
// every platform (raw 64-bit draws, no std distributions). Space is
// 2^20 bytes high (MiniMalloc's challenging capacity), time 2 * count steps.
PerfectPacking random_perfect_packing(int32_t count, uint64_t seed);
// The same for any shape; the default shape gives random_perfect_packing's
// instances. With density < 1 there may be fewer than `count` buffers.
PerfectPacking random_perfect_packing(int32_t count, uint64_t seed, const PerfectPackingShape& shape);

// The named families: "mixed" (the defaults), "time-cuts", "space-cuts",
// "guillotine", "pinwheels", "sparse", "skewed", "aligned" and
// "time-cuts-skewed" (see perfect_packing_family() for each shape).
const std::vector<const char*>& perfect_packing_family_names();
// The shape of a named family; false for an unknown name.
bool perfect_packing_family(const char* name, PerfectPackingShape* shape);

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
