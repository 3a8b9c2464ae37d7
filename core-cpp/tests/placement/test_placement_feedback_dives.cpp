// The feedback dives (placement_feedback_dives.cpp): before the search they
// run only under minimize and where a piece has free space at the bound,
// never raise a piece, return valid placements, repeat exactly without a
// time limit, and on sparse perfect packings end lower than the fixed and
// noisy dives before them; on a piece that fills every step and is above
// its bound (as the well search leaves those it gives up on) they lower it.
#include <gtest/gtest.h>

#include <vector>

#include "placement/perfect_packing.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"
#include "placement/placement_pieces.h"

namespace {

using tp::PlaceBuffer;
using tp::placement_detail::Piece;

// The pieces as the solver has them before its search phase, without a
// time limit (every dive bounded by work, as in solve_ours).
std::vector<Piece> PiecesAfterTheFixedAndNoisyDives(const std::vector<PlaceBuffer>& buffers,
                                                    const tp::PlaceOptions& options) {
  const int64_t lower_bound = tp::placement_lower_bound(buffers);
  std::vector<Piece> pieces = tp::placement_detail::split_at_free_steps(buffers);
  tp::placement_detail::SearchBudget budget;
  budget.dive_step_limit = tp::placement_detail::noisy_dive_work(buffers.size());
  tp::PlaceStats stats;
  tp::placement_detail::construct_pieces(buffers, lower_bound, &pieces, &budget, &stats);
  tp::placement_detail::improve_by_noisy_dives(buffers, options, 0, lower_bound, &pieces);
  return pieces;
}

// Both sets of pieces hold the same placements and the same starts.
void ExpectSamePieces(const std::vector<Piece>& pieces, const std::vector<Piece>& expected) {
  ASSERT_EQ(pieces.size(), expected.size());
  for (size_t k = 0; k < pieces.size(); ++k) {
    EXPECT_EQ(pieces[k].offsets, expected[k].offsets) << "piece " << k;
    EXPECT_EQ(pieces[k].start_heights, expected[k].start_heights) << "piece " << k;
  }
}

// Without a time limit every dive is bounded by work, so runs repeat exactly.
tp::PlaceOptions Minimize() {
  tp::PlaceOptions options;
  options.minimize = true;
  options.time_limit_seconds = 0;
  return options;
}

TEST(PlacementFeedbackDives, EndLowerThanTheFixedAndNoisyDivesOnSparsePackings) {
  tp::PerfectPackingShape sparse;
  ASSERT_TRUE(tp::perfect_packing_family("sparse", &sparse));
  int lowered = 0;
  const int seeds[] = {41, 42, 43, 44};
  for (int seed : seeds) {
    const tp::PerfectPacking packing = tp::random_perfect_packing(200, static_cast<uint64_t>(seed), sparse);
    const int64_t lower_bound = tp::placement_lower_bound(packing.buffers);
    std::vector<Piece> pieces = PiecesAfterTheFixedAndNoisyDives(packing.buffers, Minimize());
    const int64_t before = tp::placement_detail::pieces_height(pieces);
    std::vector<int64_t> heights_before;
    for (const Piece& piece : pieces) heights_before.push_back(piece.height);
    tp::placement_detail::improve_by_feedback_dives(packing.buffers, Minimize(), 0, lower_bound, &pieces);
    for (size_t k = 0; k < pieces.size(); ++k) {
      EXPECT_LE(pieces[k].height, heights_before[k]) << "seed " << seed << ", piece " << k << " went up";
      EXPECT_TRUE(tp::validate_placement(pieces[k].buffers, pieces[k].offsets, 0).is_ok()) << "seed " << seed;
      EXPECT_EQ(tp::placement_height(pieces[k].buffers, pieces[k].offsets), pieces[k].height) << "seed " << seed;
    }
    const int64_t after = tp::placement_detail::pieces_height(pieces);
    EXPECT_GE(after, lower_bound);
    if (after < before) ++lowered;
  }
  EXPECT_GE(lowered, 3) << "the feedback dives lowered too few of the sparse packings";
}

TEST(PlacementFeedbackDives, RepeatExactlyWithoutATimeLimit) {
  tp::PerfectPackingShape sparse;
  ASSERT_TRUE(tp::perfect_packing_family("sparse", &sparse));
  const tp::PerfectPacking packing = tp::random_perfect_packing(150, 5, sparse);
  const int64_t lower_bound = tp::placement_lower_bound(packing.buffers);
  std::vector<Piece> first = PiecesAfterTheFixedAndNoisyDives(packing.buffers, Minimize());
  std::vector<Piece> second = first;
  tp::placement_detail::improve_by_feedback_dives(packing.buffers, Minimize(), 0, lower_bound, &first);
  tp::placement_detail::improve_by_feedback_dives(packing.buffers, Minimize(), 0, lower_bound, &second);
  ExpectSamePieces(first, second);
}

TEST(PlacementFeedbackDives, LeaveAlonePackingsThatFillEveryStepAtTheBound) {
  // The default shape fills every step: the well search's work, not theirs.
  const tp::PerfectPacking packing = tp::random_perfect_packing(300, 7);
  const int64_t lower_bound = tp::placement_lower_bound(packing.buffers);
  ASSERT_TRUE(tp::placement_detail::fills_every_step(packing.buffers, lower_bound));
  std::vector<Piece> pieces = PiecesAfterTheFixedAndNoisyDives(packing.buffers, Minimize());
  ASSERT_GT(tp::placement_detail::pieces_height(pieces), lower_bound);
  const std::vector<Piece> untouched = pieces;
  tp::placement_detail::improve_by_feedback_dives(packing.buffers, Minimize(), 0, lower_bound, &pieces);
  ExpectSamePieces(pieces, untouched);
}

TEST(PlacementFeedbackDives, LowerAPieceTheWellSearchLeftAboveItsBound) {
  // The default shape fills every step; the skyline dives leave this piece
  // above its bound, as the well search's fallback leaves the pieces it gave
  // up on.
  const tp::PerfectPacking packing = tp::random_perfect_packing(300, 7);
  const int64_t lower_bound = tp::placement_lower_bound(packing.buffers);
  std::vector<Piece> pieces = PiecesAfterTheFixedAndNoisyDives(packing.buffers, Minimize());
  Piece* above = nullptr;
  for (Piece& piece : pieces) {
    if (piece.height > lower_bound) above = &piece;
  }
  ASSERT_NE(above, nullptr);
  ASSERT_TRUE(tp::placement_detail::fills_every_step(above->buffers, lower_bound));
  const int64_t before = above->height;
  tp::placement_detail::SearchBudget budget;
  budget.deadline_seconds = tp::placement_detail::now_seconds() + 1.0;
  EXPECT_TRUE(tp::placement_detail::improve_untiled_piece_by_feedback_dives(above, lower_bound, &budget));
  EXPECT_LT(above->height, before);
  EXPECT_GE(above->height, lower_bound);
  EXPECT_TRUE(tp::validate_placement(above->buffers, above->offsets, 0).is_ok());
  EXPECT_EQ(tp::placement_height(above->buffers, above->offsets), above->height);

  // A piece at its target is left as it is.
  Piece done = *above;
  tp::placement_detail::SearchBudget more;
  more.deadline_seconds = tp::placement_detail::now_seconds() + 2.0;
  EXPECT_FALSE(tp::placement_detail::improve_untiled_piece_by_feedback_dives(&done, done.height, &more));
  EXPECT_EQ(done.offsets, above->offsets);
}

TEST(PlacementFeedbackDives, RunOnlyUnderMinimize) {
  tp::PerfectPackingShape sparse;
  ASSERT_TRUE(tp::perfect_packing_family("sparse", &sparse));
  const tp::PerfectPacking packing = tp::random_perfect_packing(200, 42, sparse);
  const int64_t lower_bound = tp::placement_lower_bound(packing.buffers);
  tp::PlaceOptions once = Minimize();
  once.minimize = false;  // one attempt at the bound
  std::vector<Piece> pieces = PiecesAfterTheFixedAndNoisyDives(packing.buffers, once);
  ASSERT_GT(tp::placement_detail::pieces_height(pieces), lower_bound);
  const std::vector<Piece> untouched = pieces;
  tp::placement_detail::improve_by_feedback_dives(packing.buffers, once, 0, lower_bound, &pieces);
  ExpectSamePieces(pieces, untouched);
}

}  // namespace
