// The random perfect packing generator (placement/perfect_packing.h): its
// packing is valid at exactly the lower bound, it is not a guillotine
// partition (no straight cut crosses it), it is a function of the seed, and
// the guillotine check itself tells the two kinds apart. Each named family
// keeps the optimum at the lower bound and has the trait it is named for.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "placement/perfect_packing.h"
#include "placement/placement.h"

namespace {

using tp::PlaceBuffer;

TEST(PerfectPacking, ItsPackingIsValidAtTheLowerBoundForEverySizeAndSeed) {
  for (int32_t n : {5, 6, 20, 40, 80, 100, 200, 600}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const tp::PerfectPacking p = tp::random_perfect_packing(n, seed);
      ASSERT_EQ(p.buffers.size(), static_cast<size_t>(n)) << n << " " << seed;
      EXPECT_EQ(tp::placement_lower_bound(p.buffers), p.height) << n << " " << seed;
      EXPECT_EQ(tp::placement_height(p.buffers, p.offsets), p.height) << n << " " << seed;
      EXPECT_TRUE(tp::validate_placement(p.buffers, p.offsets, p.height).is_ok()) << n << " " << seed;
      for (const PlaceBuffer& b : p.buffers) {
        EXPECT_GT(b.size, 0);
        EXPECT_GE(b.lower, 0);
        EXPECT_LE(b.upper, p.span);
      }
    }
  }
}

TEST(PerfectPacking, NoStraightCutCrossesItAndNoBlockIsGuillotine) {
  for (int32_t n : {5, 20, 80, 400}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const tp::PerfectPacking p = tp::random_perfect_packing(n, seed);
      EXPECT_FALSE(tp::has_straight_cut(p.buffers, p.offsets)) << n << " " << seed;
      EXPECT_EQ(tp::guillotine_free_buffers(p.buffers, p.offsets), n) << n << " " << seed;
    }
  }
}

TEST(PerfectPacking, TheSameSeedGivesTheSameInstanceAndAnotherSeedAnother) {
  const tp::PerfectPacking a = tp::random_perfect_packing(100, 7);
  const tp::PerfectPacking b = tp::random_perfect_packing(100, 7);
  const tp::PerfectPacking c = tp::random_perfect_packing(100, 8);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  bool same = true, differs = false;
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    same = same && a.buffers[i].lower == b.buffers[i].lower && a.buffers[i].upper == b.buffers[i].upper &&
           a.buffers[i].size == b.buffers[i].size && a.offsets[i] == b.offsets[i];
    differs = differs || a.buffers[i].lower != c.buffers[i].lower || a.buffers[i].size != c.buffers[i].size;
  }
  EXPECT_TRUE(same);
  EXPECT_TRUE(differs);
}

TEST(PerfectPacking, EveryFamilyIsPlacedAtTheLowerBoundByItsOwnPacking) {
  for (const char* family : tp::perfect_packing_family_names()) {
    tp::PerfectPackingShape shape;
    ASSERT_TRUE(tp::perfect_packing_family(family, &shape)) << family;
    for (int32_t n : {5, 40, 300}) {
      for (uint64_t seed = 1; seed <= 3; ++seed) {
        const tp::PerfectPacking p = tp::random_perfect_packing(n, seed, shape);
        ASSERT_GE(p.buffers.size(), 2u) << family << " " << n << " " << seed;
        EXPECT_EQ(tp::placement_lower_bound(p.buffers), p.height) << family << " " << n << " " << seed;
        EXPECT_EQ(tp::placement_height(p.buffers, p.offsets), p.height) << family << " " << n << " " << seed;
        // The validator checks alignments too.
        EXPECT_TRUE(tp::validate_placement(p.buffers, p.offsets, p.height).is_ok()) << family << " " << n << " " << seed;
      }
    }
  }
  tp::PerfectPackingShape unknown;
  EXPECT_FALSE(tp::perfect_packing_family("no-such-family", &unknown));
}

TEST(PerfectPacking, TheDefaultShapeIsTheMixedFamilyAndGivesTheSameInstances) {
  tp::PerfectPackingShape mixed;
  ASSERT_TRUE(tp::perfect_packing_family("mixed", &mixed));
  const tp::PerfectPacking a = tp::random_perfect_packing(200, 3);
  const tp::PerfectPacking b = tp::random_perfect_packing(200, 3, mixed);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    EXPECT_EQ(a.buffers[i].lower, b.buffers[i].lower);
    EXPECT_EQ(a.buffers[i].upper, b.buffers[i].upper);
    EXPECT_EQ(a.buffers[i].size, b.buffers[i].size);
    EXPECT_EQ(a.offsets[i], b.offsets[i]);
  }
}

// Sum over buffers of one trait, to compare families drawn with the same seeds.
struct Traits {
  int64_t lifetime = 0;
  int64_t count = 0;
  int64_t live_area = 0;  // sum of size x lifetime
  int64_t largest = 0;
  int64_t smallest = 0;
};

Traits traits_of(const char* family, int32_t n) {
  tp::PerfectPackingShape shape;
  EXPECT_TRUE(tp::perfect_packing_family(family, &shape));
  Traits t;
  t.smallest = int64_t{1} << 40;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const tp::PerfectPacking p = tp::random_perfect_packing(n, seed, shape);
    for (const PlaceBuffer& b : p.buffers) {
      t.lifetime += b.upper - b.lower;
      t.live_area += b.size * (b.upper - b.lower);
      t.largest = std::max(t.largest, b.size);
      t.smallest = std::min(t.smallest, b.size);
      ++t.count;
    }
  }
  return t;
}

TEST(PerfectPacking, EachFamilyHasTheTraitItIsNamedFor) {
  // Mostly time cuts: shorter lifetimes than mostly space cuts.
  EXPECT_LT(traits_of("time-cuts", 200).lifetime * 3, traits_of("space-cuts", 200).lifetime);
  // Guillotine: straight cuts only, so every buffer is cut off in the end.
  tp::PerfectPackingShape guillotine;
  ASSERT_TRUE(tp::perfect_packing_family("guillotine", &guillotine));
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const tp::PerfectPacking p = tp::random_perfect_packing(200, seed, guillotine);
    EXPECT_EQ(tp::guillotine_free_buffers(p.buffers, p.offsets), 0) << seed;
  }
  // The families with pinwheels have no straight cut across them.
  for (const char* family : {"time-cuts", "space-cuts", "pinwheels", "skewed", "aligned", "time-cuts-skewed"}) {
    tp::PerfectPackingShape shape;
    ASSERT_TRUE(tp::perfect_packing_family(family, &shape));
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const tp::PerfectPacking p = tp::random_perfect_packing(200, seed, shape);
      EXPECT_FALSE(tp::has_straight_cut(p.buffers, p.offsets)) << family << " " << seed;
    }
  }
  // Sparse: free space, so less area than the full rectangle, while one
  // step stays full (the lower bound is the height, checked above).
  tp::PerfectPackingShape sparse;
  ASSERT_TRUE(tp::perfect_packing_family("sparse", &sparse));
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const tp::PerfectPacking p = tp::random_perfect_packing(200, seed, sparse);
    int64_t area = 0;
    for (const PlaceBuffer& b : p.buffers) area += b.size * (b.upper - b.lower);
    EXPECT_LT(area, p.height * p.span * 9 / 10) << seed;
  }
  // Skewed: a wider spread of sizes than the default shape.
  const Traits mixed = traits_of("mixed", 300), skewed = traits_of("skewed", 300);
  EXPECT_GT(skewed.largest / skewed.smallest, 4 * (mixed.largest / mixed.smallest));
  // Aligned: every size a multiple of 4 KiB, alignments up to 4 KiB, and
  // some buffer aligned to more than one byte.
  tp::PerfectPackingShape aligned;
  ASSERT_TRUE(tp::perfect_packing_family("aligned", &aligned));
  const tp::PerfectPacking p = tp::random_perfect_packing(200, 1, aligned);
  int64_t most = 1;
  for (const PlaceBuffer& b : p.buffers) {
    EXPECT_EQ(b.size % 4096, 0);
    EXPECT_LE(b.alignment, 4096);
    most = std::max(most, b.alignment);
  }
  EXPECT_GT(most, 1);
}

// The check on hand-made partitions of a 4 x 4 square (time x space).
std::vector<PlaceBuffer> rects(const std::vector<std::vector<int64_t>>& xywh, std::vector<int64_t>* offsets) {
  std::vector<PlaceBuffer> buffers;
  offsets->clear();
  for (const auto& r : xywh) {
    PlaceBuffer b;
    b.lower = r[0];
    b.upper = r[0] + r[2];
    b.size = r[3];
    buffers.push_back(b);
    offsets->push_back(r[1]);
  }
  return buffers;
}

TEST(PerfectPacking, TheGuillotineCheckFindsStraightCutsAndPinwheels) {
  std::vector<int64_t> offsets;
  // Four quadrants: cut in time at 2, then in space: a guillotine partition.
  std::vector<PlaceBuffer> quads = rects({{0, 0, 2, 2}, {2, 0, 2, 2}, {0, 2, 2, 2}, {2, 2, 2, 2}}, &offsets);
  EXPECT_TRUE(tp::has_straight_cut(quads, offsets));
  EXPECT_EQ(tp::guillotine_free_buffers(quads, offsets), 0);
  // A pinwheel: bottom [0,3)x[0,1), right [3,4)x[0,3), top [1,4)x[3,4),
  // left [0,1)x[1,4), centre [1,3)x[1,3).
  std::vector<PlaceBuffer> wheel =
      rects({{0, 0, 3, 1}, {3, 0, 1, 3}, {1, 3, 3, 1}, {0, 1, 1, 3}, {1, 1, 2, 2}}, &offsets);
  EXPECT_FALSE(tp::has_straight_cut(wheel, offsets));
  EXPECT_EQ(tp::guillotine_free_buffers(wheel, offsets), 5);
  // The same pinwheel stacked on a full-width strip: the strip is cut off,
  // the wheel stays.
  std::vector<PlaceBuffer> stacked =
      rects({{0, 0, 3, 1}, {3, 0, 1, 3}, {1, 3, 3, 1}, {0, 1, 1, 3}, {1, 1, 2, 2}, {0, 4, 4, 1}}, &offsets);
  EXPECT_TRUE(tp::has_straight_cut(stacked, offsets));
  EXPECT_EQ(tp::guillotine_free_buffers(stacked, offsets), 5);
}

}  // namespace
