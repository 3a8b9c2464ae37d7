// The cut where few buffers cross (placement_near_cut.cpp): the step found
// is the one a count at every step finds; a piece qualifies only with free
// space, 400-1000 buffers and at most four crossing; the sides placed and
// joined give a valid placement, alignments kept, never higher than the
// piece had; and place() on such an instance returns a valid placement,
// with two workers (the odd one takes it apart, or its bundles) and with
// one (the search alone takes it apart).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "placement/perfect_packing.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"
#include "placement/placement_pieces.h"

namespace {

using tp::PlaceBuffer;
using tp::placement_detail::NearCut;
using tp::placement_detail::Piece;

// Buffers alive both before `step` and from it on.
int32_t CrossingAt(const std::vector<PlaceBuffer>& buffers, int64_t step) {
  int32_t count = 0;
  for (const PlaceBuffer& b : buffers) count += b.lower < step && step < b.upper ? 1 : 0;
  return count;
}

TEST(PlacementNearCut, FindsTheEarliestStepWithTheFewestCrossing) {
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<PlaceBuffer> buffers(1 + rng() % 40);
    const int64_t origin = static_cast<int64_t>(rng() % 7) - 3;
    for (PlaceBuffer& b : buffers) {
      b.lower = origin + static_cast<int64_t>(rng() % 60);
      b.upper = b.lower + 1 + static_cast<int64_t>(rng() % 25);
      b.size = 1 + static_cast<int64_t>(rng() % 9);
    }
    int64_t first = buffers[0].lower, last = buffers[0].upper;
    for (const PlaceBuffer& b : buffers) {
      first = std::min(first, b.lower);
      last = std::max(last, b.upper);
    }
    const int64_t from = first + (last - first) / 5, to = first + 4 * (last - first) / 5;
    NearCut cut;
    const bool found = tp::placement_detail::find_near_cut(buffers, &cut);
    ASSERT_EQ(found, from < to) << "trial " << trial;
    if (!found) continue;
    int64_t best_step = from;
    for (int64_t step = from; step < to; ++step) {
      if (CrossingAt(buffers, step) < CrossingAt(buffers, best_step)) best_step = step;
    }
    EXPECT_EQ(cut.step, best_step) << "trial " << trial;
    EXPECT_EQ(cut.crossing, CrossingAt(buffers, best_step)) << "trial " << trial;
    int32_t before = 0, after = 0;
    for (const PlaceBuffer& b : buffers) {
      before += b.lower < best_step ? 1 : 0;
      after += b.upper > best_step ? 1 : 0;
    }
    EXPECT_EQ(cut.larger_side, std::max(before, after)) << "trial " << trial;
  }
}

// Two sparse perfect packings of `count` and `second_count` (0: `count`)
// buffers one after the other in time, each with a thin buffer alive over all of it (so that neither falls
// apart where the sparse family left a step empty), joined by `crossing`
// small buffers alive across the seam: the seam is the step that they
// alone cross.
std::vector<PlaceBuffer> TwoPackingsAndASeam(uint64_t seed, int32_t crossing, int64_t alignment,
                                             int32_t count = 260, int32_t second_count = 0) {
  tp::PerfectPackingShape shape;
  tp::perfect_packing_family("sparse", &shape);
  shape.alignment = alignment;
  const tp::PerfectPacking first = tp::random_perfect_packing(count, seed, shape);
  const tp::PerfectPacking second =
      tp::random_perfect_packing(second_count > 0 ? second_count : count, seed + 1, shape);
  std::vector<PlaceBuffer> buffers = first.buffers;
  for (PlaceBuffer b : second.buffers) {
    b.lower += first.span;
    b.upper += first.span;
    buffers.push_back(b);
  }
  // The spines differ in size, so that bundles (placement_bundles.cpp) do
  // not chain them into one buffer across the seam.
  for (const auto& range : {std::make_pair(int64_t{0}, first.span), std::make_pair(first.span, first.span + second.span)}) {
    PlaceBuffer spine;
    spine.lower = range.first;
    spine.upper = range.second;
    spine.size = range.first == 0 ? 2048 : 3072;
    spine.alignment = alignment;
    buffers.push_back(spine);
  }
  for (int32_t k = 0; k < crossing; ++k) {
    PlaceBuffer b;
    b.lower = first.span - 5 - k;
    b.upper = first.span + 7 + k;
    b.size = 4096 * (1 + k);
    b.alignment = alignment;
    buffers.push_back(b);
  }
  return buffers;
}

Piece WholePiece(const std::vector<PlaceBuffer>& buffers) {
  std::vector<Piece> pieces = tp::placement_detail::split_at_free_steps(buffers);
  EXPECT_EQ(pieces.size(), 1u);
  Piece piece = pieces[0];
  piece.offsets = tp::place_first_fit(piece.buffers);
  piece.height = tp::placement_height(piece.buffers, piece.offsets);
  return piece;
}

// The fewest buffers crossing a step of the middle three fifths, counted
// at every step, and the larger side at the earliest such step.
struct Fewest {
  int32_t crossing = 0;
  int32_t larger_side = 0;
};
Fewest FewestCrossing(const std::vector<PlaceBuffer>& buffers) {
  int64_t first = buffers[0].lower, last = buffers[0].upper;
  for (const PlaceBuffer& b : buffers) {
    first = std::min(first, b.lower);
    last = std::max(last, b.upper);
  }
  Fewest fewest;
  fewest.crossing = static_cast<int32_t>(buffers.size()) + 1;
  for (int64_t step = first + (last - first) / 5; step < first + 4 * (last - first) / 5; ++step) {
    const int32_t crossing = CrossingAt(buffers, step);
    if (crossing >= fewest.crossing) continue;
    int32_t before = 0, after = 0;
    for (const PlaceBuffer& b : buffers) {
      before += b.lower < step ? 1 : 0;
      after += b.upper > step ? 1 : 0;
    }
    fewest.crossing = crossing;
    fewest.larger_side = std::max(before, after);
  }
  return fewest;
}

// The rule as placement_near_cut.cpp states it: at most four crossing,
// neither side over 5/8 of the buffers.
bool Qualifies(const std::vector<PlaceBuffer>& buffers) {
  if (buffers.empty()) return false;
  const Fewest fewest = FewestCrossing(buffers);
  return fewest.crossing <= 4 && 8 * static_cast<size_t>(fewest.larger_side) <= 5 * buffers.size();
}

TEST(PlacementNearCut, QualifiesOnlyWithFewCrossingAndFreeSpace) {
  int qualified = 0, refused = 0;
  for (int32_t crossing = 1; crossing <= 8; ++crossing) {
    const std::vector<PlaceBuffer> buffers = TwoPackingsAndASeam(11 + crossing, crossing, 1);
    const Piece piece = WholePiece(buffers);
    const bool expected = Qualifies(buffers);
    EXPECT_EQ(tp::placement_detail::has_near_cut(piece, tp::placement_lower_bound(buffers)), expected)
        << "crossing " << crossing;
    qualified += expected ? 1 : 0;
    refused += expected ? 0 : 1;
  }
  EXPECT_GT(qualified, 0);
  EXPECT_GT(refused, 0);
  // Too few buffers.
  const std::vector<PlaceBuffer> small = TwoPackingsAndASeam(5, 2, 1, 150);
  ASSERT_TRUE(Qualifies(small));
  ASSERT_LT(small.size(), 400u);
  EXPECT_FALSE(tp::placement_detail::has_near_cut(WholePiece(small), tp::placement_lower_bound(small)));
  // One side most of the piece: refused, however few cross.
  const std::vector<PlaceBuffer> lopsided = TwoPackingsAndASeam(7, 1, 1, 400, 130);
  ASSERT_LE(FewestCrossing(lopsided).crossing, 4);
  ASSERT_FALSE(Qualifies(lopsided));
  EXPECT_FALSE(tp::placement_detail::has_near_cut(WholePiece(lopsided), tp::placement_lower_bound(lopsided)));
  // A piece that fills every step at the bound needs a tiling: never cut.
  tp::PerfectPackingShape guillotine;
  tp::perfect_packing_family("guillotine", &guillotine);
  const tp::PerfectPacking full = tp::random_perfect_packing(600, 5, guillotine);
  const std::vector<Piece> pieces = tp::placement_detail::split_at_free_steps(full.buffers);
  for (const Piece& piece : pieces) {
    EXPECT_FALSE(tp::placement_detail::has_near_cut(piece, full.height));
  }
}

// The sides are searched as an odd worker searches, whichever worker cuts
// (an odd one in a portfolio, worker 0 in a search alone): the join holds.
TEST(PlacementNearCut, JoinedSidesAreValidAlignedAndNoHigher) {
  for (uint64_t worker : {uint64_t{0}, uint64_t{1}}) {
    for (int64_t alignment : {int64_t{1}, int64_t{4096}}) {
      for (int32_t crossing : {1, 2, 4}) {
        // The first seed from 30 whose seam is the cut found (a step inside a
        // packing may be crossed by as few and lie off centre).
        std::vector<PlaceBuffer> buffers;
        for (uint64_t seed = 30; seed < 60 && !Qualifies(buffers); seed += 2) {
          buffers = TwoPackingsAndASeam(seed, crossing, alignment);
        }
        ASSERT_TRUE(Qualifies(buffers)) << "alignment " << alignment << " crossing " << crossing;
        Piece piece = WholePiece(buffers);
        const int64_t start_height = piece.height;
        const int64_t bound = tp::placement_lower_bound(buffers);
        ASSERT_TRUE(tp::placement_detail::has_near_cut(piece, bound));
        tp::placement_detail::SearchBudget budget;
        budget.worker = worker;
        budget.deadline_seconds = tp::placement_detail::now_seconds() + 1.0;
        const bool lowered = tp::placement_detail::place_at_near_cut(&piece, bound, &budget);
        const tp::Status valid = tp::validate_placement(piece.buffers, piece.offsets, 0);
        ASSERT_TRUE(valid.is_ok()) << "worker " << worker << " alignment " << alignment << " crossing " << crossing
                                   << ": " << valid.message();
        EXPECT_EQ(piece.height, tp::placement_height(piece.buffers, piece.offsets));
        EXPECT_LE(piece.height, start_height);
        EXPECT_EQ(lowered, piece.height < start_height);
        EXPECT_GE(piece.height, bound);
      }
    }
  }
}

// place() under minimize with two workers (the odd one takes the instance
// apart) or one (the search alone takes it apart) returns a valid placement,
// no higher than first fit.
void ExpectWorkersPlaceValidly(const std::vector<PlaceBuffer>& buffers, int32_t threads) {
  tp::PlaceOptions options;
  options.minimize = true;
  options.threads = threads;
  options.time_limit_seconds = 1.5;
  tp::Placement out;
  ASSERT_TRUE(tp::place(buffers, options, &out).is_ok());
  EXPECT_TRUE(tp::validate_placement(buffers, out.offsets, 0).is_ok());
  EXPECT_GE(out.height, out.lower_bound);
  EXPECT_LE(out.height, tp::placement_height(buffers, tp::place_first_fit(buffers)));
}

TEST(PlacementNearCut, PortfolioWithTheCutReturnsAValidPlacement) {
  // Large enough (400 buffers or more) for the odd worker to take it apart.
  ExpectWorkersPlaceValidly(TwoPackingsAndASeam(77, 2, 1, 360), 2);
}

TEST(PlacementNearCut, SearchAloneWithTheCutReturnsAValidPlacement) {
  // The bundles' instance below: one worker alone reaches the cut on it.
  ExpectWorkersPlaceValidly(TwoPackingsAndASeam(78, 2, 1, 360), 1);
}

TEST(PlacementNearCut, PortfolioCuttingTheBundlesReturnsAValidPlacement) {
  // Large enough that the bundles (placement_bundles.cpp) still number 400
  // or more and have the seam as their near cut: the odd worker cuts them.
  const std::vector<PlaceBuffer> buffers = TwoPackingsAndASeam(78, 2, 1, 360);
  const tp::placement_detail::Bundles bundles = tp::placement_detail::bundle_buffers(buffers);
  Piece piece;
  piece.buffers = buffers;
  piece.lower_bound = tp::placement_lower_bound(buffers);
  const Piece bundled = tp::placement_detail::bundles_piece(piece, bundles);
  ASSERT_TRUE(tp::placement_detail::has_near_cut(bundled, piece.lower_bound))
      << bundles.buffers.size() << " bundles of " << buffers.size();
  ExpectWorkersPlaceValidly(buffers, 2);
}

}  // namespace
