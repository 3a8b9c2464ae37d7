// The solver's search phase over the pieces: the capacity question, the
// probes of minimize, the well search on pieces that fill every step and
// the one that may leave bytes free on the others, the completion of their
// deepest partial placements, feedback dives on the pieces the first could
// not tile, and the neighbourhood search.
#include <algorithm>
#include <numeric>
#include <vector>

#include "placement/placement_pieces.h"

namespace tp {
namespace placement_detail {

// Pieces of up to this many buffers always share the neighbourhood search's
// time among their starts (placement_starts.cpp).
constexpr size_t kMostBuffersAlwaysWithStarts = 200;

// A larger piece shares it only where it has free space at `target`.
// - Where it fills every step, the well search ran, and its fallback is
//   usually far below the dives: on the held-out packings of 300 and 600
//   buffers (one run each), sharing the time left 8 of 36 above the optimum
//   against 4 of 36 with the best start alone.
// - Where it has free space, the well search did not run, the best start is
//   a dive's, and where the search ends depends on which dive it starts
//   from. Sparse packings, 10 s, one run each: on the 14 it was chosen on
//   (600 buffers, seeds 601-612 but 609, which both settings place at the
//   optimum; 300 buffers, the seeds 601, 605 and 606 of 601-608 that had
//   not reached it) the mean height went from 1.0505 to 1.0415 times the
//   optimum; on 12 fresh ones (seeds 613-618; 400 and 600 buffers) from
//   1.0301 to 1.0278, with 4 within 1.01 instead of 2; on the two held-out
//   ones of 600 buffers it went up, from 1.0285 and 1.0298 to 1.033-1.038.
//   MiniMalloc's challenging D and J (213 and 409 buffers; 10 s, one run
//   each) went from 1.0467 and 1.0434 times the lower bound to 1.0456 and
//   1.0403.
const std::vector<std::vector<int64_t>>& neighbourhood_starts(const Piece& piece, int64_t target) {
  static const std::vector<std::vector<int64_t>> none;
  if (piece.buffers.size() <= kMostBuffersAlwaysWithStarts) return piece.starts;
  return fills_every_step(piece.buffers, target) ? none : piece.starts;
}

namespace {

// The search keeps an adjacency list of pairs alive together; beyond this it
// would need too much memory and time per node to be worth starting.
constexpr int64_t kMaxSearchPairs = int64_t{3} << 20;
// The search recurses once per placed buffer; this keeps its stack modest
// (the WASM build has a few MB of stack).
constexpr size_t kMaxSearchBuffers = 4000;

// Pieces with free space at `target` (the proved bound), after the feedback
// dives: the well search that may leave bytes free (search_leaving_slack),
// from 20% to 40% of the limit (kFreeSpaceSearchUntil), then the completion
// of its deepest partial placement by the search above it
// (complete_deepest_tilings) to 43%, then the windows from whichever
// placement is lowest. The dives leave long-lived buffers on top; this
// search builds the placement from the bottom up, as a tiling, and leaves
// the windows a start with another structure. Measured with the whole
// solver at 10 s, one run each, two at a time on 2 cores (2026-11-29),
// against the solver without it:
// - MiniMalloc's challenging D (213 buffers) reached its lower bound, so
//   proved optimal, at 5.8-5.9 s in both runs (1.0218 times the bound
//   without this search), and J (409 buffers) ended at 1.0290 in both
//   (1.0434);
// - sparse perfect packings of 300 buffers (seeds 601-608) and of 400
//   (613-618): the mean went from 1.0076 to 1.0038 times the optimum, 12
//   of the 14 within 1.01 instead of 10;
// - sparse ones of 600 buffers (seeds 601-618 but 609): mean 1.0391 before,
//   1.0351 after, one of 17 within 1.01 in both.
// Before its repair went in episodes (placement_wells.cpp), an end at 45%
// left those of 600 buffers with seeds 613-618 at 1.0408 instead of 1.0295
// with 30%. With the episodes the time pays where the search has two
// workers: on 49 sparse packings of 600 buffers (seeds 601-650 but 609; 10 s
// per call, one at a time on 2 cores, 2026-11-30), two runs of each end
// at a mean of 1.0105 and 1.0107 with 30%, 32 and 31 within 1.01, 20 at the
// optimum in both, and at 1.0083 and 1.0087 with 40%, 35 and 33 within, 24
// and 23 at the optimum; one run with 45%, 1.0088 (36, 24) and, on seeds
// 601-618 but 609, 1.0185 with 60% against 1.0162. One worker (two at a
// time) moves more from run to run than that: 1.0158-1.0193 (22-26 within)
// with 30%, 1.0130-1.0162 (22-25) with 40%. The held-out pp-600-s9002 is
// placed at its optimum between 30% and 40%. MiniMalloc's challenging A-K,
// two workers: the same heights but J's, which moves with the timing (1.0062
// with 30%, 35% and 40%, 1.0072 with 45%, 1.0041 with 50%).
// Measured up to 630 buffers; larger pieces keep that time for the windows.
constexpr double kFreeSpaceSearchUntil = 0.4;
constexpr double kFreeSpaceCompletionUntil = 0.43;
// In a portfolio (placement_portfolio.cpp) the odd workers give that search
// until 55% of the limit and its completion until 58%: the workers then
// differ in how they spend the time as well as in their draws, one leaving
// more to the windows and the overlap search, the other more to the search
// that builds a start. On the 49 sparse packings above (two workers, 10 s,
// each packing run with both settings in turn, 2026-11-30, at db56902; two
// runs with the order of the two swapped), 41 and 39 ended within 1.01 at
// a mean of 1.0065 and 1.0073, 25 and 26 at the optimum, against 36 and 36
// at 1.0086 and 1.0080, 22 and 25, with 40% for both workers; no run of
// that search had ended more than 39 of them within 1.01 (six runs). The
// odd workers at 25% instead ended 34 within 1.01, against 38.
constexpr double kFreeSpaceSearchUntilOddWorkers = 0.55;
constexpr double kFreeSpaceCompletionUntilOddWorkers = 0.58;
constexpr size_t kMostBuffersLeavingSlack = 1000;

// The capacity question's share of the time left that the well search which
// may leave bytes free gets on a piece with free space at the capacity,
// before the canonical search; without a time limit it gets
// kLeavingSlackNodesPerBuffer nodes per buffer instead. It finds but never
// refutes, so a capacity that does not fit pays this share before the
// canonical search proves it. Measured at the bound of sparse perfect
// packings (docs/placement.md, "The capacity question").
constexpr double kLeavingSlackShare = 0.3;
constexpr int64_t kLeavingSlackNodesPerBuffer = 4000;

// The capacity question under a time limit: the share of the limit its
// decision searches get before, without minimize, the windows
// (improve_by_neighbourhoods) work on the lowest placement until it is
// within the capacity. The searches answer near the bound when they answer
// at all, within the first seconds, and they prove the capacities that do
// not fit; where they get lost, the windows lower a placement as they do
// under minimize. Sparse perfect packings, 10 s, one run each, two at a
// time on 2 cores (2026-11-29), questions answered (the share 0.25, 0.5,
// and the searches alone):
// - at the optimum, 22 of 80-400 buffers (seeds 601-608 and 613-618):
//   16, 15, 11;
// - at 1.05 times the optimum, 17 of 600 buffers (seeds 601-618 but 609):
//   10, 10, 3 (0.1: 9).
// At the optimum of the 36 held-out perfect packings of 300 and 600
// buffers (bench/data/perfect-packings), 33 with 0.25 and 32 with the
// searches alone. Under minimize with a capacity, the same share, and then
// minimize's phases instead of the searches for the whole limit: at the
// optimum of the 22, 17 answered instead of 11; at 1.05 times that of the
// 17, 12 instead of 3.
constexpr double kDecisionShare = 0.25;

// The nodes of a short attempt at a capacity: the default attempt at the
// lower bound, and the canonical search's first go in the capacity question.
int64_t short_attempt_nodes(size_t buffer_count) {
  return std::max<int64_t>(20000, 20 * static_cast<int64_t>(buffer_count));
}

// The first go at capacity K on a piece with free space at K: the well
// search that may leave bytes free finds such placements where the canonical
// search gets lost (sparse perfect packings of 80 to 300 buffers at their
// bound). Where the canonical search finds one at once, it is faster, so it
// first gets the nodes of the default attempt (MiniMalloc's challenging A-K
// at their capacity: about 10 ms each, where the well search takes 0.04-0.3
// s natively). kFound or kInfeasible settle the piece; kGaveUp leaves it to
// decide's searches, with the lower fallback adopted.
SearchOutcome decide_with_free_space(Piece* piece, int64_t capacity, SearchBudget* budget) {
  std::vector<int64_t> offsets, fallback;
  auto settle = [&](SearchOutcome outcome) {
    if (outcome != SearchOutcome::kInfeasible) {
      adopt_if_lower(piece, outcome == SearchOutcome::kFound ? &offsets : &fallback);
    }
    fallback.clear();
    return outcome;
  };
  const SearchOutcome quick = settle(placement_detail::search_at_capacity(
      piece->buffers, capacity, short_attempt_nodes(piece->buffers.size()), budget, &offsets, nullptr, &fallback));
  if (quick != SearchOutcome::kGaveUp) return quick;
  SearchBudget slack_budget = *budget;
  int64_t slack_nodes = 0;
  if (budget->deadline_seconds > 0) {
    const double now = placement_detail::now_seconds();
    slack_budget.deadline_seconds = now + kLeavingSlackShare * std::max(0.0, budget->deadline_seconds - now);
  } else {
    slack_nodes = kLeavingSlackNodesPerBuffer * static_cast<int64_t>(piece->buffers.size());
  }
  const SearchOutcome found = settle(placement_detail::search_leaving_slack(
      piece->buffers, capacity, slack_nodes, &slack_budget, &offsets, &fallback, nullptr));
  budget->nodes = slack_budget.nodes;
  return found;
}

// Runs the decision procedure at capacity K on every piece above K. Returns
// kFound when every piece now fits, kInfeasible when one piece provably
// cannot, kGaveUp otherwise. Improvements found on the way are kept.
SearchOutcome decide(std::vector<Piece>* pieces, int64_t capacity, int64_t node_limit, SearchBudget* budget,
                     bool* out_of_reach = nullptr, bool leave_slack_first = false) {
  SearchOutcome overall = SearchOutcome::kFound;
  // Hardest (highest) pieces first: an infeasible one ends the question early.
  std::vector<size_t> order(pieces->size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return (*pieces)[a].lower_bound > (*pieces)[b].lower_bound;
  });
  for (size_t index : order) {
    Piece& piece = (*pieces)[index];
    if (piece.height <= capacity) continue;
    if (piece.lower_bound > capacity) return SearchOutcome::kInfeasible;
    if (piece.pairs > kMaxSearchPairs || piece.buffers.size() > kMaxSearchBuffers) {
      if (out_of_reach != nullptr) *out_of_reach = true;  // no budget will change this answer
      overall = SearchOutcome::kGaveUp;
      continue;
    }
    std::vector<int64_t> offsets, fallback;
    if (leave_slack_first && piece.buffers.size() <= kMostBuffersLeavingSlack &&
        !fills_every_step(piece.buffers, capacity)) {
      const SearchOutcome first = decide_with_free_space(&piece, capacity, budget);
      if (first == SearchOutcome::kInfeasible) return first;
      if (first == SearchOutcome::kFound) continue;
    }
    // Where the piece fills every step at K, a placement leaves no byte free:
    // the well search (placement_wells.cpp) tiles such pieces far faster than
    // the canonical search. It gives up at once on any other piece, and when
    // it gives up, the canonical search has a go. Each search that gives up
    // leaves a fallback (its deepest branch, completed), kept when lower.
    SearchOutcome outcome =
        placement_detail::search_without_waste(piece.buffers, capacity, node_limit, budget, &offsets, &fallback);
    if (outcome == SearchOutcome::kGaveUp) {
      adopt_if_lower(&piece, &fallback);
      fallback.clear();
      if (!budget->timed_out) {
        outcome = placement_detail::search_at_capacity(piece.buffers, capacity, node_limit, budget, &offsets, nullptr,
                                                       &fallback);
      }
    }
    if (outcome == SearchOutcome::kInfeasible) return outcome;
    if (outcome == SearchOutcome::kGaveUp) {
      overall = SearchOutcome::kGaveUp;
      adopt_if_lower(&piece, &fallback);
      if (budget->timed_out) return overall;
      continue;
    }
    adopt_if_lower(&piece, &offsets);
  }
  return overall;
}

// Iterative deepening probes: capacities in [proved, best) are tried with a
// node budget that doubles each round. Tight probes (near the proved bound)
// are cheap to refute; probes near the best height are cheap to satisfy; the
// middle is where the hard questions are, so it is asked last in each round,
// with the most budget.
void minimize_by_probes(size_t buffer_count, std::vector<Piece>* pieces, SearchBudget* budget,
                        HeightBracket* bracket) {
  int64_t& proved = bracket->proved;
  int64_t& best = bracket->best;
  int64_t round_limit = std::max<int64_t>(2000, 10 * static_cast<int64_t>(buffer_count));
  bool stuck = false;
  while (proved < best && !budget->timed_out && !stuck) {
    // One round: the proved bound, then points at 1/2, 3/4 and 7/8 of the
    // bracket. A refutation raises `proved` and restarts the ladder. A
    // success lowers `best` and goes on from the same point of the new,
    // shorter bracket: the proved bound was asked in this round already,
    // and the search is deterministic, so asking it again at the same node
    // limit gave the same answer and only cost time (docs/placement.md,
    // the probes of minimize).
    int step = 0;
    while (step < 4 && proved < best && !budget->timed_out) {
      const int64_t span = best - 1 - proved;
      const int64_t target = step == 0 ? proved : proved + span - (span >> step);
      bool out_of_reach = false;
      const SearchOutcome outcome = decide(pieces, target, round_limit, budget, &out_of_reach);
      const int64_t height = pieces_height(*pieces);
      if (out_of_reach) {
        // A piece above the target is too large to search: more budget
        // cannot help, so stop rather than spin (the time limit may be off).
        best = height;
        stuck = true;
        break;
      }
      const bool improved = height < best;
      if (improved) budget->note_improvement();
      best = height;
      if (outcome == SearchOutcome::kInfeasible) {
        proved = target + 1;
        budget->note_progress();
        step = 0;
      } else if (outcome == SearchOutcome::kFound || improved) {
        step = std::max(step, 1);
      } else {
        ++step;
      }
    }
    if (round_limit > (int64_t{1} << 50)) break;
    round_limit *= 2;
  }
}

// Runs the neighbourhood search on every piece above `target` (the proved
// bound), each from its own seed, from the piece's best placement and, with
// `with_starts`, its other constructive ones where they are used
// (neighbourhood_starts; placement_starts.cpp); a piece it lowers reports
// the search.
void improve_pieces_by_neighbourhoods(std::vector<Piece>* pieces, int64_t target, bool with_starts,
                                      SearchBudget* budget) {
  static const std::vector<std::vector<int64_t>> best_only;
  for (size_t index = 0; index < pieces->size(); ++index) {
    Piece& piece = (*pieces)[index];
    if (piece.height <= target) continue;
    if (budget->expired()) break;
    std::vector<int64_t> offsets = piece.offsets;
    if (placement_detail::improve_from_starts(piece.buffers, std::max(target, piece.lower_bound),
                                              with_starts ? neighbourhood_starts(piece, target) : best_only,
                                              worker_seed(0x4E16B0D5ull, *budget) + index, budget, &offsets)) {
      adopt_if_lower(&piece, &offsets);
    }
  }
}

// The overlap search keeps 48 bytes per pair of buffers alive together (an
// entry on each side); beyond this many pairs (48 MB) it is not started. The
// packings of 600 buffers and MiniMalloc's J have 13,000-29,000.
constexpr int64_t kMaxOverlapSearchPairs = int64_t{1} << 20;

// The overlap search (placement_overlap_search.cpp) on every piece above
// `target` (the proved bound), between the two runs of the windows: it may
// move a buffer through the others, where the windows lower buffers only
// above the fixed rest, and the windows go on from what it leaves. In the
// solver at 10 s, one run each, two at a time on 2 cores (2026-11-29),
// against the windows alone until 80% of the limit:
// - skewed perfect packings of 600 buffers (seeds 601-615 but 609, 14):
//   mean height 1.0167-1.0173 times the optimum, 8 within 1.01, before;
//   1.0126 and 10 after;
// - sparse ones (601-618 but 609, 17): 1.0354-1.0388, 1-2 within 1.01,
//   before; 1.0325 and 2 after.
// The windows until 75% and the overlap search until 95% gave 1.0140 and
// 1.0334; the windows until 70%, the overlap search until 90% and the
// windows until 97%, 1.0129 and 1.0334. With the jostle in the windows
// (placement_neighbourhood.cpp), on 49 sparse packings of 600 buffers (seeds
// 601-650 but 609, two workers, each packing run with each setting in turn,
// 2026-11-30, at db56902): 39 within 1.01 at a mean of 1.0070 with this
// phase, 33 at 1.0105 with the windows until 95% instead; the two taking
// turns twice, or this phase from 55% to 75%, 36-38 within 1.01.
void improve_pieces_by_overlap_search(std::vector<Piece>* pieces, int64_t target, SearchBudget* budget) {
  for (size_t index = 0; index < pieces->size(); ++index) {
    Piece& piece = (*pieces)[index];
    if (piece.height <= target || piece.pairs > kMaxOverlapSearchPairs || budget->expired()) continue;
    std::vector<int64_t> offsets = piece.offsets;
    if (placement_detail::improve_by_overlap_search(piece.buffers, std::max(target, piece.lower_bound), 0,
                                                    worker_seed(0x6F7665726C6170ull, *budget) + index, budget, &offsets)) {
      adopt_if_lower(&piece, &offsets);
    }
  }
}

// The pieces that fill every step at `target` (the proved bound) go to the
// well search first: a placement there leaves no byte free, which that search
// exploits and the canonical one does not (placement_wells.cpp). Returns
// kInfeasible when a piece provably cannot be tiled.
SearchOutcome tile_full_pieces(std::vector<Piece>* pieces, int64_t target, SearchBudget* budget) {
  for (Piece& piece : *pieces) {
    if (piece.height <= target || budget->expired()) continue;
    std::vector<int64_t> offsets, fallback;  // a piece with a free byte at `target` gives up at once
    const SearchOutcome outcome = placement_detail::search_without_waste(piece.buffers, target, 0, budget, &offsets,
                                                                         &fallback, &piece.deepest_tiling);
    if (outcome == SearchOutcome::kInfeasible) return outcome;
    // A tiling is at `target`, below the piece's height. Otherwise the
    // deepest partial tiling, completed, is a lower start for the
    // neighbourhood search than the dives' placement when it is lower.
    if (adopt_if_lower(&piece, outcome == SearchOutcome::kFound ? &offsets : &fallback)) budget->note_improvement();
  }
  return SearchOutcome::kGaveUp;
}

// The phase of minimize described at kMostBuffersLeavingSlack (above).
void fill_pieces_with_free_space(std::vector<Piece>* pieces, int64_t target, SearchBudget* budget) {
  for (Piece& piece : *pieces) {
    if (piece.height <= target || piece.buffers.size() > kMostBuffersLeavingSlack || budget->expired()) continue;
    if (fills_every_step(piece.buffers, target)) continue;  // the well search's own (tile_full_pieces)
    std::vector<int64_t> offsets, fallback;
    const SearchOutcome outcome = placement_detail::search_leaving_slack(
        piece.buffers, std::max(target, piece.lower_bound), 0, budget, &offsets, &fallback, &piece.deepest_tiling);
    if (adopt_if_lower(&piece, outcome == SearchOutcome::kFound ? &offsets : &fallback)) budget->note_improvement();
  }
}

// The pieces the well search gave up on: their deepest partial tiling,
// completed by the search above it (complete_above_partial) where that is
// lower than the greedy completion they have; the pieces that fill every
// step at `target` when `free_space` is false (until 65% of the limit,
// after the well search's 60%), the others when it is true. On eight
// skewed packings of 600 buffers (seeds 501-504, 9001, 9002 and two
// time-cuts-skewed), in two runs each, it lowered the greedy completion on
// five (1.0342 to 1.0223, for one), found none lower on the other three,
// and changed two final heights: 1.0004 to the optimum and 1.0147 to
// 1.0081; no final height went up.
void complete_deepest_tilings(std::vector<Piece>* pieces, int64_t target, bool free_space, SearchBudget* budget) {
  for (Piece& piece : *pieces) {
    if (piece.height <= target || piece.deepest_tiling.empty() || budget->expired()) continue;
    if (fills_every_step(piece.buffers, target) == free_space) continue;
    const int64_t node_limit = 20000 + 40 * static_cast<int64_t>(piece.buffers.size());
    std::vector<int64_t> offsets = placement_detail::complete_above_partial(
        piece.buffers, piece.deepest_tiling, std::max(target, piece.lower_bound), piece.height, node_limit, budget);
    if (adopt_if_lower(&piece, &offsets)) budget->note_improvement();
  }
}

// Where the dives start with the best placement still at kFarAboveBound
// times the proved bound or more, they run until kDivesUntilFarAbove of the
// limit instead of kDivesUntil. A completion that far above leaves the
// dives most to gain, and they need more than 5% of the limit for it: on
// time-cuts-skewed seed 802 (600 buffers; one worker, 10 s), the completion
// left 1.1541 times the optimum, the dives cut at 70% left 1.1095 and the
// search ended at 1.1087; allowed to run on, the dives stopped by
// themselves (kMostDives) at 77% with 1.0912, and the overlap search took
// that to 1.0452, where from 1.1095 it lowered nothing. On 62 skewed and
// time-cuts-skewed packings of 600 buffers (the twelve held-out ones, seeds
// 701-720 of both families and time-cuts-skewed 801-810; two workers, 10 s,
// each packing run with both in turn, 2026-11-30), this ended them at a
// mean of 1.0043 times the optimum and at worst 1.0575, against 1.0054 and
// 1.1085 (seed 802: 1.0443), 53 within 1.01 and 41 at the optimum with
// either; no other height moved by more than 0.001. Every piece's dives
// until 80% instead ended those 62 at 1.0048, with 11 higher and 5 lower
// than at 70%, among them the held-out skewed pp-600-s9006 (1.0259 against
// 1.0216) and time-cuts-skewed pp-600-s9004 (1.0182 against 1.0121): where
// the completion is close, the overlap search needs the time more.
constexpr double kDivesUntil = 0.7;
constexpr double kDivesUntilFarAbove = 0.8;
constexpr double kFarAboveBound = 1.1;

// The pieces the well search gave up on, after their completion: feedback
// dives (placement_feedback_dives.cpp) from 65% to 70% of the limit
// (kDivesUntil; kDivesUntilFarAbove, above, where they start far above the
// bound). The well search's fallback, like the dives of a piece with free
// space, leaves long-lived buffers on top, where the neighbourhood search
// cannot lower them. On 14 skewed and time-cuts-skewed packings of 600 buffers (seeds
// 501-508 and 501-504, and the two held-out ones), 10 s, one run each: the
// time-cuts-skewed seed 501 ended at 1.0761 times the optimum instead of
// 1.1626 (the fallback left two buffers living 437 and 167 steps on top),
// and the mean went from 1.0209 to 1.0148; no other height moved by more
// than 0.0004. Up to 75% they gave 1.0154; the windows ending at 95%
// instead of 80% as well, 1.0147.
void dive_untiled_pieces(std::vector<Piece>* pieces, int64_t target, SearchBudget* budget) {
  for (Piece& piece : *pieces) {
    if (piece.height <= target || !fills_every_step(piece.buffers, target) || budget->expired()) continue;
    if (improve_untiled_piece_by_feedback_dives(&piece, std::max(target, piece.lower_bound), budget)) {
      budget->note_improvement();
    }
  }
}

// In one of a portfolio's odd workers or in a search alone, under minimize
// with a time limit and no capacity, the one piece above the proved bound;
// null where there is none or more than one, or elsewhere.
Piece* piece_to_take_apart(const PlaceOptions& options, const HeightBracket& bracket, const SearchBudget& budget,
                           std::vector<Piece>* pieces) {
  const bool odd_worker = budget.worker % 2 == 1;
  if ((!odd_worker && !budget.alone) || options.time_limit_seconds <= 0 || options.capacity > 0) return nullptr;
  Piece* above = nullptr;
  for (Piece& piece : *pieces) {
    if (piece.height <= bracket.proved) continue;
    if (above != nullptr) return nullptr;
    above = &piece;
  }
  return above;
}

// The search of a piece taken apart, for the whole limit, where one applies;
// false where none does (the worker then searches as the even ones do). The
// even workers of a portfolio search the buffers as a whole: the searches
// end low on different packings, and the portfolio keeps the lower.
// - In an odd worker, a piece that fills every step at the target and whose
//   bundles join enough of its buffers (worth_bundling) is searched as
//   bundles, then as buffers (place_as_bundles; placement_bundles.cpp has
//   the figures).
// - In an odd worker or a search alone, a piece with a near cut
//   (has_near_cut) is taken apart there (placement_near_cut.cpp): its
//   bundles where they have such a step too, else its buffers. A search
//   alone has no even worker beside it, and still gains (one worker, 10 s
//   per call, each packing run both ways in turn, 2026-12-01, at 50c2d88's
//   search, outside the product: on the 51 calls on sparse packings of 600
//   buffers with such a step of placement_near_cut.cpp, 41 within 1.01 and
//   30 at the optimum at a mean of 1.0060, against 37, 27 and 1.0090 for
//   the whole; lower on 17, higher on 7). The bundles stay with the odd
//   workers: in a search alone (the same kind of run, on the 48 skewed and
//   time-cuts-skewed packings of 600 buffers of kBundlesShare's figures in
//   placement_bundles.cpp) they ended 25 within 1.01 and 2 at the
//   optimum at a mean of 1.0149, against 32, 17 and 1.0130 for the
//   buffers: they lose the tilings that put a stacked pair apart, which
//   the even workers beside them keep.
// The bundles are made only where one of the two may run: a search alone
// (every default minimize) does not bundle a piece it will not cut.
bool search_taken_apart(Piece* piece, int64_t target, SearchBudget* budget) {
  const bool odd_worker = budget->worker % 2 == 1;
  const bool near_cut = has_near_cut(*piece, target);
  if (!odd_worker && !near_cut) return false;
  const Bundles bundles = bundle_buffers(piece->buffers);
  bool lower = false;
  if (odd_worker && worth_bundling(*piece, target, bundles.buffers.size())) {
    lower = place_as_bundles(piece, bundles, target, budget);
  } else if (near_cut) {
    Piece bundled = bundles_piece(*piece, bundles);
    lower = has_near_cut(bundled, target)
                ? place_at_near_cut(&bundled, target, budget) && adopt_bundled(piece, bundles, bundled)
                : place_at_near_cut(piece, target, budget);
  } else {
    return false;
  }
  if (lower) budget->note_improvement();
  return true;
}

// Takes back what a phase's copy of the budget recorded: its nodes, its
// progress, and a stall (which ends every later phase too).
void absorb_phase(SearchBudget* budget, const SearchBudget& phase) {
  budget->nodes = phase.nodes;
  budget->progress_seconds = phase.progress_seconds;
  budget->improved_seconds = phase.improved_seconds;
  if (phase.stalled) budget->stalled = budget->timed_out = true;
}

}  // namespace

void lower_until_deadline(const std::vector<PlaceBuffer>& buffers, int64_t target, SearchBudget* budget,
                          std::vector<int64_t>* offsets) {
  if (placement_height(buffers, *offsets) <= target || budget->expired()) return;
  SearchBudget windows = *budget;
  windows.deadline_seconds = (now_seconds() + budget->deadline_seconds) / 2;
  improve_by_neighbourhoods(buffers, target, 0, worker_seed(0x4E16B0D5ull, *budget), &windows, offsets);
  budget->nodes = windows.nodes;
  budget->improved_seconds = std::max(budget->improved_seconds, windows.improved_seconds);
  if (!budget->expired()) {
    improve_by_overlap_search(buffers, target, 0, worker_seed(0x6F7665726C6170ull, *budget), budget, offsets);
  }
}

// The search phase: answers the capacity question when one is asked, makes
// one short attempt at the lower bound by default, and hunts for the optimum
// under minimize. Sets out->proved_infeasible when the capacity is refuted.
HeightBracket search_pieces(size_t buffer_count, const PlaceOptions& options, double start, int64_t lower_bound,
                            std::vector<Piece>* pieces, SearchBudget* budget, Placement* out) {
  HeightBracket bracket;
  bracket.proved = lower_bound;  // no placement is lower than this
  bracket.best = pieces_height(*pieces);
  const int64_t capacity = options.capacity;
  // Without minimize or a capacity, the search is a short attempt at the
  // lower bound, not a proof hunt; a capacity is a question to answer.
  const int64_t node_limit = options.minimize || capacity > 0 ? 0 : short_attempt_nodes(buffer_count);

  if (capacity > 0 && bracket.best > capacity) {
    // Under a time limit the decision searches get the first kDecisionShare
    // of it. Then, without minimize, the windows, aimed at the capacity, get
    // the rest; under minimize, its phases below.
    const bool shared = options.time_limit_seconds > 0;
    const bool windows_after = shared && !options.minimize;
    SearchBudget decision = *budget;
    if (shared) {
      decision.deadline_seconds =
          std::min(budget->deadline_seconds, start + kDecisionShare * options.time_limit_seconds);
    }
    const SearchOutcome outcome = decide(pieces, capacity, node_limit, shared ? &decision : budget, nullptr, true);
    if (shared) absorb_phase(budget, decision);
    if (pieces_height(*pieces) < bracket.best) budget->note_improvement();
    bracket.best = pieces_height(*pieces);
    if (outcome == SearchOutcome::kInfeasible) {
      out->proved_infeasible = true;
      bracket.proved = std::max(bracket.proved, capacity + 1);
    } else if (windows_after && bracket.best > capacity && !budget->expired()) {
      improve_pieces_by_neighbourhoods(pieces, capacity, true, budget);
      bracket.best = pieces_height(*pieces);
    }
  }
  if (!options.minimize && capacity == 0 && bracket.proved < bracket.best) {
    // The default: one short attempt at the lower bound (perfect packings
    // are common and then cheap to find), then whatever was found.
    const SearchOutcome outcome = decide(pieces, bracket.proved, node_limit, budget);
    if (pieces_height(*pieces) < bracket.best) budget->note_improvement();
    bracket.best = pieces_height(*pieces);
    if (outcome == SearchOutcome::kInfeasible) bracket.proved += 1;
  }
  // Under a time limit, while the optimum is not proved, a phase runs with a
  // copy of the budget whose deadline is at `share` of the limit, and hands
  // back what it recorded.
  auto run_phase_until = [&](double share, auto phase) {
    if (options.time_limit_seconds <= 0 || bracket.proved >= bracket.best) return;
    SearchBudget phase_budget = *budget;
    phase_budget.deadline_seconds = std::min(budget->deadline_seconds, start + share * options.time_limit_seconds);
    phase(&phase_budget);
    absorb_phase(budget, phase_budget);
    bracket.best = pieces_height(*pieces);
  };
  if (options.minimize && !out->proved_infeasible) {
    Piece* apart = piece_to_take_apart(options, bracket, *budget, pieces);
    if (apart != nullptr && search_taken_apart(apart, std::max(bracket.proved, apart->lower_bound), budget)) {
      bracket.best = pieces_height(*pieces);
      return bracket;
    }
    if (bracket.proved < bracket.best) {
      // 60% of the time limit (all of it without one) for the pieces that
      // must be tiled without a free byte; the phases below get the rest,
      // so that a piece the well search gives up on keeps 2 tenths of the
      // limit for the neighbourhood search to lower its fallback (on 48
      // seeded 600-buffer packings, 6 of 10 s lost 3 tilings that 8 s found,
      // and brought the 5-6 not found from up to 1.22 to at most 1.043).
      SearchBudget tiling = *budget;
      if (options.time_limit_seconds > 0) {
        tiling.deadline_seconds = std::min(budget->deadline_seconds, start + 0.6 * options.time_limit_seconds);
      }
      if (tile_full_pieces(pieces, bracket.proved, &tiling) == SearchOutcome::kInfeasible) bracket.proved += 1;
      absorb_phase(budget, tiling);
      bracket.best = pieces_height(*pieces);
      // Where a piece that fills every step took the well search's 60%,
      // these two phases have no time left, and the windows do the rest.
      const bool odd_worker = budget->worker % 2 == 1;
      run_phase_until(odd_worker ? kFreeSpaceSearchUntilOddWorkers : kFreeSpaceSearchUntil, [&](SearchBudget* phase) {
        fill_pieces_with_free_space(pieces, bracket.proved, phase);
      });
      run_phase_until(odd_worker ? kFreeSpaceCompletionUntilOddWorkers : kFreeSpaceCompletionUntil, [&](SearchBudget* phase) {
        complete_deepest_tilings(pieces, bracket.proved, true, phase);
      });
      run_phase_until(0.65, [&](SearchBudget* phase) { complete_deepest_tilings(pieces, bracket.proved, false, phase); });
      const bool far_above = static_cast<double>(bracket.best) >= kFarAboveBound * static_cast<double>(bracket.proved);
      run_phase_until(far_above ? kDivesUntilFarAbove : kDivesUntil,
                      [&](SearchBudget* phase) { dive_untiled_pieces(pieces, bracket.proved, phase); });
    }
    if (options.time_limit_seconds > 0 && options.stall_share > 0) {
      // The stall rule (docs/placement.md, "When minimize stops"): from
      // here on, the search ends once neither the height went down nor the
      // proved bound up for stall_share of the limit. The well search before
      // is exempt: it either tiles the piece at the bound or leaves a
      // fallback, with nothing in between to count as progress.
      budget->stall_seconds = options.stall_share * options.time_limit_seconds;
      budget->progress_seconds = placement_detail::now_seconds();
    }
    // Under a time limit: a first share for the probes (they find and prove
    // the small and the easy instances within it), then windows re-placed
    // around the best placement (improve_by_neighbourhoods: where the
    // whole-piece search gets lost), the overlap search, the windows again
    // from the best placement alone, then the probes again, from the lower
    // height, for the rest.
    run_phase_until(0.2, [&](SearchBudget* phase) { minimize_by_probes(buffer_count, pieces, phase, &bracket); });
    run_phase_until(0.7, [&](SearchBudget* phase) { improve_pieces_by_neighbourhoods(pieces, bracket.proved, true, phase); });
    run_phase_until(0.85, [&](SearchBudget* phase) { improve_pieces_by_overlap_search(pieces, bracket.proved, phase); });
    run_phase_until(0.95, [&](SearchBudget* phase) { improve_pieces_by_neighbourhoods(pieces, bracket.proved, false, phase); });
    minimize_by_probes(buffer_count, pieces, budget, &bracket);
  }
  return bracket;
}

}  // namespace placement_detail
}  // namespace tp
