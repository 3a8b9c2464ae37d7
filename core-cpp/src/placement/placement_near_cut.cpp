// Cut where few buffers cross (placement_pieces.h, place_at_near_cut): a
// piece with free space at its bound is often hard as a whole and easy in
// two halves. Where a step in the middle of its time is crossed by at most
// kMostCrossing buffers and neither side holds most of the buffers, each
// side of that step is minimised on its own (the crossing buffers cut to
// the side's steps), aiming at the whole's bound, and the two are joined:
// the side with the higher lower bound keeps its offsets, and the other is
// shifted up into the bytes it leaves free, or mirrored, so that its own
// buffers keep clear of the crossing ones; the overlap search's moves
// separate what still collides. The windows and the overlap search then
// lower the whole. Where the piece's bundles (placement_bundles.cpp) have
// such a step too, the bundles are cut instead. A portfolio's odd workers
// take a piece apart so, beside the even ones' search of the whole, and so
// does a search alone (placement_search_phase.cpp, search_taken_apart).
//
// Measured as a prototype outside the product (2026-11-30, at bef7461's
// search; docs/placement-measurements.md, "What holds sparse and skewed
// packings above the optimum"): 22 of 53 sparse perfect
// packings of 600 buffers (seeds 601-650 but 609, and the held-out
// pp-600-s9003 to s9006) have a step that at most four buffers cross. One worker on this and one on
// the search as it is, both at once on 2 cores, ended them at a mean of
// 1.0091 and 1.0119 times the optimum, and the lower of the two per packing
// at 1.0056, against 1.0078 for two workers of the search as it is: the
// held-out s9003 from 1.0433-1.0575 to 1.0145-1.0180 and s9006 from
// 1.0276-1.0325 to 1.0084-1.0174. What this version does on packings held
// out from its tuning is at kLargerSideEighths.
#include <algorithm>
#include <vector>

#include "placement/placement_pieces.h"

namespace tp {
namespace placement_detail {
namespace {

// At most this many buffers may cross the step: the joined sides must agree
// on the crossing buffers' offsets, and with 12 or more crossing, putting
// them back by the overlap search alone often failed (docs/placement-measurements.md).
constexpr int32_t kMostCrossing = 4;
// Neither side may hold more than 5/8 of the buffers: where one side is
// most of the piece, it is about as hard as the whole and gets less time.
// Two workers, 10 s per call, each packing run with and without the cut in
// turn, one call at a time on 2 cores (2026-11-30), on sparse perfect
// packings of 600 buffers with a step that at most four buffers cross:
// - where the rule was read off (16 of the seeds 1001-1060, two runs, and
//   20 of the seeds 601-650 and the held-out pp-600-s9003 and s9006): of
//   the ten whose larger side held at most 5/8 of the buffers and that
//   either search left above the optimum, the cut lowered seven (by up to
//   0.037 times the optimum), raised two (by 0.004) and left one; of the
//   eleven whose larger side held more than 0.65, it raised eight (seed
//   1037, 0.654 of them, from 1.018 to 1.057) and lowered three;
// - held out (the 27 of the seeds 1061-1260 that pass the rule, two runs):
//   the mean went from 1.0057 and 1.0053 to 1.0049 and 1.0040 times the
//   optimum and the highest from 1.0545 and 1.0544 to 1.0369 and 1.0355
//   (seed 1119 from 1.054 to 1.011, seed 1092 from 1.040-1.052 to 1.014-
//   1.016), but 21 and 23 ended within 1.01 against 24 and 24 (seed 1250
//   from the optimum to 1.0256 in both runs); 19 at the optimum in all four.
constexpr int32_t kLargerSideEighths = 5;
// The pieces it runs on: measured on pieces of 600 buffers; above 1000 the
// sides' searches (the one that may leave bytes free stops there) change.
constexpr size_t kFewestBuffers = 400;
constexpr size_t kMostBuffers = 1000;
// Shares of the time left when it begins (the constructive phase has had
// the first fifth of the limit): the side with the lower bound first, for
// at most kSecondSideShare (it has bytes to spare under the target, and on
// the held-out sparse packings it was placed there in well under a
// second); then the side with the higher bound, which holds the steps where
// the live bytes reach the bound, until kSidesShare; the separation of the
// joined sides for at most kSeparateShare; the windows half of what is
// left and the overlap search the rest.
constexpr double kSecondSideShare = 0.15;
constexpr double kSidesShare = 0.8;
constexpr double kSeparateShare = 0.05;

bool cut_qualifies(const NearCut& cut, size_t buffer_count) {
  return cut.crossing <= kMostCrossing && int64_t{8} * cut.larger_side <= kLargerSideEighths * static_cast<int64_t>(buffer_count);
}

}  // namespace

bool find_near_cut(const std::vector<PlaceBuffer>& buffers, NearCut* cut) {
  if (buffers.empty()) return false;
  std::vector<int64_t> lowers, uppers;
  for (const PlaceBuffer& b : buffers) {
    lowers.push_back(b.lower);
    uppers.push_back(b.upper);
  }
  std::sort(lowers.begin(), lowers.end());
  std::sort(uppers.begin(), uppers.end());
  const int64_t first = lowers.front(), span = uppers.back() - first;
  const int64_t from = first + span / 5, to = first + 4 * span / 5;
  if (from >= to) return false;
  // Between two lifetime ends the count is constant, and at an end it is at
  // most what it is just after: the ends (and `from`) are the candidates.
  std::vector<int64_t> candidates = {from};
  for (const std::vector<int64_t>* times : {&lowers, &uppers}) {
    for (int64_t t : *times) {
      if (t > from && t < to) candidates.push_back(t);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  bool found = false;
  for (int64_t step : candidates) {
    // Born before the step, less those dead by it.
    const int64_t born = std::lower_bound(lowers.begin(), lowers.end(), step) - lowers.begin();
    const int64_t dead = std::upper_bound(uppers.begin(), uppers.end(), step) - uppers.begin();
    const int32_t crossing = static_cast<int32_t>(born - dead);
    if (!found || crossing < cut->crossing) {
      cut->step = step;
      cut->crossing = crossing;
      cut->larger_side = static_cast<int32_t>(std::max<int64_t>(born, static_cast<int64_t>(uppers.size()) - dead));
      found = true;
    }
  }
  return found;
}

namespace {

bool alive_together(const PlaceBuffer& a, const PlaceBuffer& b) {
  return std::max(a.lower, b.lower) < std::min(a.upper, b.upper);
}

bool bytes_overlap(int64_t a, int64_t a_size, int64_t b, int64_t b_size) {
  return std::max(a, b) < std::min(a + a_size, b + b_size);
}

// Joins the two sides' placements (offsets per buffer of the piece, -1
// where the buffer is not on that side). The first side's offsets stay; the
// second side's own buffers are shifted by d (0 <= d <= room, aligned for
// each of them) and perhaps mirrored within the second side's height, by
// the transform that leaves the fewest of them colliding with a crossing
// buffer: no shift, the highest shift, and each shift that puts a crossing
// buffer where the first side has it.
std::vector<int64_t> join_sides(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& first,
                                const std::vector<int64_t>& second, int64_t second_height, int64_t room) {
  const size_t n = buffers.size();
  std::vector<int32_t> crossing, own;  // in both sides; in the second alone
  for (size_t i = 0; i < n; ++i) {
    if (first[i] >= 0 && second[i] >= 0) crossing.push_back(static_cast<int32_t>(i));
    if (first[i] < 0) own.push_back(static_cast<int32_t>(i));
  }
  auto moved = [&](int32_t j, int64_t shift, bool mirror) {
    const int64_t at = mirror ? second_height - second[j] - buffers[j].size : second[j];
    return at + shift;
  };
  auto aligned = [&](int64_t shift, bool mirror) {
    for (int32_t j : own) {
      const int64_t at = moved(j, shift, mirror);
      if (at < 0 || at % buffers[j].alignment != 0) return false;
    }
    return true;
  };
  auto collisions = [&](int64_t shift, bool mirror) {
    int64_t count = 0;
    for (int32_t x : crossing) {
      for (int32_t j : own) {
        if (alive_together(buffers[x], buffers[j]) &&
            bytes_overlap(first[x], buffers[x].size, moved(j, shift, mirror), buffers[j].size)) {
          ++count;
        }
      }
    }
    return count;
  };
  std::vector<std::pair<int64_t, bool>> transforms = {{0, false}, {0, true}, {room, false}, {room, true}};
  for (int32_t x : crossing) {
    for (bool mirror : {false, true}) {
      const int64_t shift = first[x] - (mirror ? second_height - second[x] - buffers[x].size : second[x]);
      if (shift >= 0 && shift <= room) transforms.push_back({shift, mirror});
    }
  }
  int64_t fewest = -1, best_shift = 0;
  bool best_mirror = false;
  for (const auto& transform : transforms) {
    if (!aligned(transform.first, transform.second)) continue;
    const int64_t count = collisions(transform.first, transform.second);
    if (fewest < 0 || count < fewest) {
      fewest = count;
      best_shift = transform.first;
      best_mirror = transform.second;
    }
  }
  std::vector<int64_t> offsets(first);
  for (int32_t j : own) offsets[j] = moved(j, best_shift, best_mirror);
  return offsets;
}

// Each crossing buffer that still collides goes to its lowest free offset
// among all the others: the placement is then valid, as each side's was.
void settle_crossing(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& first,
                     const std::vector<int64_t>& second, std::vector<int64_t>* offsets) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (size_t x = 0; x < buffers.size(); ++x) {
    if (first[x] < 0 || second[x] < 0) continue;
    spans.clear();
    bool collides = false;
    for (size_t j = 0; j < buffers.size(); ++j) {
      if (j == x || !alive_together(buffers[x], buffers[j])) continue;
      spans.push_back({(*offsets)[j], (*offsets)[j] + buffers[j].size});
      collides = collides || bytes_overlap((*offsets)[x], buffers[x].size, (*offsets)[j], buffers[j].size);
    }
    if (collides) (*offsets)[x] = lowest_fit(buffers[x], &spans);
  }
}

}  // namespace

bool has_near_cut(const Piece& piece, int64_t target) {
  const size_t n = piece.buffers.size();
  if (n < kFewestBuffers || n > kMostBuffers || fills_every_step(piece.buffers, target)) return false;
  NearCut cut;
  return find_near_cut(piece.buffers, &cut) && cut_qualifies(cut, n);
}

bool place_at_near_cut(Piece* piece, int64_t target, SearchBudget* budget) {
  const std::vector<PlaceBuffer>& buffers = piece->buffers;
  NearCut cut;
  const size_t n = buffers.size();
  if (!find_near_cut(buffers, &cut) || !cut_qualifies(cut, n) || budget->expired()) return false;
  std::vector<PlaceBuffer> before, after;
  std::vector<int32_t> from_before, from_after;
  for (size_t i = 0; i < n; ++i) {
    if (buffers[i].lower < cut.step) {
      before.push_back(buffers[i]);
      before.back().upper = std::min(buffers[i].upper, cut.step);
      from_before.push_back(static_cast<int32_t>(i));
    }
    if (buffers[i].upper > cut.step) {
      after.push_back(buffers[i]);
      after.back().lower = std::max(buffers[i].lower, cut.step);
      from_after.push_back(static_cast<int32_t>(i));
    }
  }
  // The side whose bound is higher keeps its offsets in the join (the
  // earlier among equals).
  const bool after_first = placement_lower_bound(after) > placement_lower_bound(before);
  const std::vector<PlaceBuffer>& first_side = after_first ? after : before;
  const std::vector<PlaceBuffer>& second_side = after_first ? before : after;
  const std::vector<int32_t>& first_members = after_first ? from_after : from_before;
  const std::vector<int32_t>& second_members = after_first ? from_before : from_after;

  // Each side is searched as an odd worker searches a whole piece (with
  // this worker's seeds where it is odd, worker 1's in a search alone):
  // where it has free space at the bound, the search that may leave bytes
  // free runs until the odd workers' later share of the side's time
  // (placement_search_phase.cpp), and a side that qualifies is cut again.
  // On the held-out pp-600-s9003, the side with the full steps (269
  // bundles) ended at 1.0477-1.0560 times the bound with the even workers'
  // shares and at 1.0000-1.0032 with the odd ones' (three calls each). Two
  // workers, 10 s per call, each packing run both ways in turn (2026-12-01,
  // at 291f4e7's search): the 51 calls on sparse packings of 600 buffers
  // with a near cut of docs/placement.md ("Threads") ended at a mean of
  // 1.0030 times the optimum, 45 within 1.01 and 35 at it, against 1.0043,
  // 44 and 36; lower on 8, higher on 4; s9003 at 1.0050 in both of its
  // calls, against 1.0471 and 1.0262.
  const uint64_t side_worker = budget->worker | 1;

  // The other side first: it has bytes to spare under the target and is
  // usually placed there at once, and what it leaves of its share goes to
  // the side with the higher bound.
  const double begin = now_seconds();
  const double time_left = std::max(0.0, budget->deadline_seconds - begin);
  const std::vector<int64_t> second_offsets =
      minimize_alone(second_side, target, kSecondSideShare * time_left, side_worker, budget);
  if (budget->expired()) return false;
  const std::vector<int64_t> first_offsets =
      minimize_alone(first_side, target, begin + kSidesShare * time_left - now_seconds(), side_worker, budget);
  if (budget->expired()) return false;
  std::vector<int64_t> first(n, -1), second(n, -1);
  for (size_t k = 0; k < first_members.size(); ++k) first[first_members[k]] = first_offsets[k];
  for (size_t k = 0; k < second_members.size(); ++k) second[second_members[k]] = second_offsets[k];
  const int64_t first_height = placement_height(first_side, first_offsets);
  const int64_t second_height = placement_height(second_side, second_offsets);
  const int64_t height = std::max(first_height, target);
  std::vector<int64_t> offsets =
      join_sides(buffers, first, second, second_height, std::max<int64_t>(0, height - second_height));

  // The first side's own buffers held, the crossing ones and the second
  // side's moved until none collides, under the height of the first side
  // (or the target, when higher).
  std::vector<char> held(n, 0);
  for (size_t i = 0; i < n; ++i) held[i] = first[i] >= 0 && second[i] < 0 ? 1 : 0;
  SearchBudget separate = *budget;
  separate.deadline_seconds = std::min(budget->deadline_seconds, now_seconds() + kSeparateShare * time_left);
  separate_around_fixed(buffers, height, held, worker_seed(0x5E9A7A7Eull, *budget), &separate, &offsets);
  budget->nodes = separate.nodes;
  settle_crossing(buffers, first, second, &offsets);
  if (!validate_placement(buffers, offsets, 0).is_ok()) return false;  // not expected: each step keeps it valid

  lower_until_deadline(buffers, target, budget, &offsets);
  return adopt_if_lower(piece, &offsets);
}

}  // namespace placement_detail
}  // namespace tp
