// Buffers placed as one (placement_bundles.cpp): the bundles keep the live
// bytes at every step, hold every buffer of more than 0 bytes exactly once
// inside their own lifetime and size, and join what they should; any valid
// placement of the bundles gives a valid placement of the buffers at the
// same height, alignments kept; a bundled piece starts from a valid
// placement and is taken back only when lower; they are searched as a
// whole only for pieces that fill every step; and place() with two workers
// (the odd one searches the bundles) returns a valid placement.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "placement/perfect_packing.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"
#include "placement/placement_pieces.h"

namespace {

using tp::PlaceBuffer;
using tp::placement_detail::Bundles;
using tp::placement_detail::BundlePart;

std::map<int64_t, int64_t> LiveBytes(const std::vector<PlaceBuffer>& buffers) {
  std::map<int64_t, int64_t> live;
  for (const PlaceBuffer& b : buffers) {
    for (int64_t t = b.lower; t < b.upper; ++t) live[t] += b.size;
  }
  for (auto it = live.begin(); it != live.end();) it = it->second == 0 ? live.erase(it) : std::next(it);
  return live;
}

// Random instances where bundles are likely: sizes and lifetimes from small
// sets, so that equal lifetimes and same-size successors are common.
std::vector<PlaceBuffer> RandomInstance(std::mt19937_64* rng, int32_t count, int64_t alignment) {
  std::vector<PlaceBuffer> buffers(static_cast<size_t>(count));
  for (PlaceBuffer& b : buffers) {
    b.lower = static_cast<int64_t>((*rng)() % 12);
    b.upper = b.lower + 1 + static_cast<int64_t>((*rng)() % 4);
    b.size = ((*rng)() % 5 == 0) ? 0 : alignment * (1 + static_cast<int64_t>((*rng)() % 3));
    if ((*rng)() % 4 == 0) b.size += 1;  // not a multiple of the alignment: never stacked
    b.alignment = alignment;
  }
  return buffers;
}

tp::PerfectPacking FamilyPacking(const char* family, int32_t count, uint64_t seed) {
  tp::PerfectPackingShape shape;
  tp::perfect_packing_family(family, &shape);
  return tp::random_perfect_packing(count, seed, shape);
}

TEST(PlacementBundles, KeepLiveBytesAndHoldEachBufferOnceInsideItsBundle) {
  std::mt19937_64 rng(9090);
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t alignment = int64_t{1} << (rng() % 4);
    const std::vector<PlaceBuffer> buffers = RandomInstance(&rng, 1 + static_cast<int32_t>(rng() % 40), alignment);
    const Bundles bundles = tp::placement_detail::bundle_buffers(buffers);
    ASSERT_EQ(bundles.buffers.size(), bundles.parts.size());
    EXPECT_EQ(LiveBytes(bundles.buffers), LiveBytes(buffers)) << "trial " << trial;
    std::vector<int32_t> seen(buffers.size(), 0);
    for (size_t k = 0; k < bundles.parts.size(); ++k) {
      const PlaceBuffer& bundle = bundles.buffers[k];
      for (const BundlePart& part : bundles.parts[k]) {
        const PlaceBuffer& b = buffers[static_cast<size_t>(part.buffer)];
        ++seen[static_cast<size_t>(part.buffer)];
        EXPECT_GE(b.lower, bundle.lower) << "trial " << trial;
        EXPECT_LE(b.upper, bundle.upper) << "trial " << trial;
        EXPECT_GE(part.offset, 0) << "trial " << trial;
        EXPECT_LE(part.offset + b.size, bundle.size) << "trial " << trial;
        // A bundle offset that is a multiple of the bundle's alignment keeps
        // every part aligned.
        EXPECT_EQ(bundle.alignment % b.alignment, 0) << "trial " << trial;
        EXPECT_EQ(part.offset % b.alignment, 0) << "trial " << trial;
      }
    }
    for (size_t i = 0; i < buffers.size(); ++i) {
      EXPECT_EQ(seen[i], buffers[i].size > 0 ? 1 : 0) << "trial " << trial << " buffer " << i;
    }
  }
}

TEST(PlacementBundles, JoinSameLifetimesAndSameSizeSuccessorsOnly) {
  // 0 and 1 share a lifetime; 2 follows 0+1 with their total size; 3 is
  // born as 2 dies but is smaller; 4 shares 3's lifetime but another
  // alignment.
  std::vector<PlaceBuffer> buffers = {
      {0, 4, 8, 1}, {0, 4, 24, 1}, {4, 9, 32, 1}, {9, 12, 16, 1}, {9, 12, 16, 8},
  };
  const Bundles bundles = tp::placement_detail::bundle_buffers(buffers);
  ASSERT_EQ(bundles.buffers.size(), 3u);
  EXPECT_EQ(bundles.buffers[0].lower, 0);
  EXPECT_EQ(bundles.buffers[0].upper, 9);
  EXPECT_EQ(bundles.buffers[0].size, 32);
  ASSERT_EQ(bundles.parts[0].size(), 3u);
  EXPECT_EQ(bundles.parts[0][1].buffer, 1);
  EXPECT_EQ(bundles.parts[0][1].offset, 8);
  EXPECT_EQ(bundles.parts[0][2].buffer, 2);
  EXPECT_EQ(bundles.parts[0][2].offset, 0);
}

TEST(PlacementBundles, AnyPlacementOfTheBundlesIsOneOfTheBuffersAtItsHeight) {
  std::mt19937_64 rng(7171);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t alignment = int64_t{1} << (rng() % 13);
    const std::vector<PlaceBuffer> buffers = RandomInstance(&rng, 1 + static_cast<int32_t>(rng() % 60), alignment);
    const Bundles bundles = tp::placement_detail::bundle_buffers(buffers);
    // First fit of the bundles in a random order.
    std::vector<int32_t> order(bundles.buffers.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int32_t>(k);
    std::shuffle(order.begin(), order.end(), rng);
    const std::vector<int64_t> bundle_offsets = tp::placement_detail::best_fit_in_order(bundles.buffers, order);
    ASSERT_TRUE(tp::validate_placement(bundles.buffers, bundle_offsets, 0).is_ok()) << "trial " << trial;
    const std::vector<int64_t> offsets =
        tp::placement_detail::unbundle_offsets(bundles, bundle_offsets, buffers.size());
    ASSERT_TRUE(tp::validate_placement(buffers, offsets, 0).is_ok()) << "trial " << trial;
    EXPECT_EQ(tp::placement_height(buffers, offsets), tp::placement_height(bundles.buffers, bundle_offsets))
        << "trial " << trial;
  }
}

TEST(PlacementBundles, ABundledPieceStartsValidAndIsTakenBackOnlyWhenLower) {
  const tp::PerfectPacking packing = FamilyPacking("sparse", 300, 23);
  const Bundles bundles = tp::placement_detail::bundle_buffers(packing.buffers);
  tp::placement_detail::Piece piece;
  piece.buffers = packing.buffers;
  piece.offsets = packing.offsets;  // the optimum: nothing is lower
  piece.height = packing.height;
  piece.lower_bound = packing.height;
  tp::placement_detail::Piece bundled = tp::placement_detail::bundles_piece(piece, bundles);
  ASSERT_EQ(bundled.buffers.size(), bundles.buffers.size());
  EXPECT_TRUE(tp::validate_placement(bundled.buffers, bundled.offsets, 0).is_ok());
  EXPECT_EQ(bundled.height, tp::placement_height(bundled.buffers, bundled.offsets));
  EXPECT_GE(bundled.height, packing.height);
  EXPECT_EQ(bundled.lower_bound, packing.height);
  // First fit is above the optimum here, so the piece keeps its own.
  ASSERT_GT(bundled.height, packing.height);
  EXPECT_FALSE(tp::placement_detail::adopt_bundled(&piece, bundles, bundled));
  EXPECT_EQ(piece.offsets, packing.offsets);
  // From a higher placement of the piece, the bundled one is taken, valid
  // and at the bundles' height.
  std::vector<int64_t> raised = packing.offsets;
  for (int64_t& offset : raised) offset += bundled.height;
  piece.offsets = raised;
  piece.height = tp::placement_height(piece.buffers, raised);
  ASSERT_TRUE(tp::placement_detail::adopt_bundled(&piece, bundles, bundled));
  EXPECT_TRUE(tp::validate_placement(piece.buffers, piece.offsets, 0).is_ok());
  EXPECT_EQ(piece.height, bundled.height);
}

TEST(PlacementBundles, WorthBundlingOnlyWherePiecesFillEveryStepAndEnoughJoin) {
  for (const char* family : {"skewed", "sparse"}) {
    const tp::PerfectPacking packing = FamilyPacking(family, 300, 17);
    tp::placement_detail::Piece piece;
    piece.buffers = packing.buffers;
    const Bundles bundles = tp::placement_detail::bundle_buffers(packing.buffers);
    const bool fills = tp::placement_detail::fills_every_step(packing.buffers, packing.height);
    EXPECT_EQ(fills, std::string(family) == "skewed");
    const bool enough = (packing.buffers.size() - bundles.buffers.size()) * 20 >= packing.buffers.size();
    EXPECT_EQ(tp::placement_detail::worth_bundling(piece, packing.height, bundles.buffers.size()), fills && enough)
        << family;
    // Every buffer its own bundle: nothing joined, not worth it.
    EXPECT_FALSE(tp::placement_detail::worth_bundling(piece, packing.height, packing.buffers.size())) << family;
  }
}

TEST(PlacementBundles, PortfolioSearchingTheBundlesReturnsAValidPlacement) {
  const tp::PerfectPacking packing = FamilyPacking("time-cuts-skewed", 420, 31);
  const Bundles bundles = tp::placement_detail::bundle_buffers(packing.buffers);
  tp::placement_detail::Piece piece;
  piece.buffers = packing.buffers;
  ASSERT_TRUE(tp::placement_detail::worth_bundling(piece, packing.height, bundles.buffers.size()))
      << bundles.buffers.size() << " bundles of " << packing.buffers.size();
  tp::PlaceOptions options;
  options.minimize = true;
  options.threads = 2;
  options.time_limit_seconds = 1.0;
  tp::Placement placement;
  ASSERT_TRUE(tp::place(packing.buffers, options, &placement).is_ok());
  EXPECT_TRUE(tp::validate_placement(packing.buffers, placement.offsets, 0).is_ok());
  EXPECT_GE(placement.height, placement.lower_bound);
  EXPECT_EQ(placement.lower_bound, packing.height);
}

}  // namespace
