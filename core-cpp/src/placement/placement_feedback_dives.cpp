// Feedback dives: skyline dives whose order learns from the dive before.
//
// A skyline dive places, among the buffers that can go lowest, the one that
// comes first in its order (skyline_in_order). Long-lived buffers can go
// low only where the skyline is low over their whole life, so in the fixed
// and noisy orders they are taken late and end on top: after 10 s of the
// solver without these dives, on three sparse perfect packings of 600
// buffers (seeds 602, 608, 611), 24 of the 28 buffers within 2% of the
// final height live over 90 steps, where the median buffer of the first
// lives 31. The neighbourhood search then has to lower them, and a window
// around a buffer that lives for half the instance is too large for its
// exact search.
// Here every buffer that ends above the lower bound moves up in the order of
// the next dive, by a randomised amount: squeaky-wheel optimisation (Joslin
// and Clements, "Squeaky wheel optimization", JAIR 10, 1999), with the
// priority a buffer gains added to what it had. Over a few thousand dives
// the buffers that keep ending on top are taken early enough to find room.
// On the 14 sparse packings it was chosen on (600 buffers, seeds 601-612
// but 609; 300 buffers, seeds 601, 605 and 606), 3 s of these dives alone
// reach 1.04-1.12 times the optimum, where the lowest fixed-order dive
// reaches 1.09-1.19.
#include <algorithm>
#include <random>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"
#include "placement/placement_pieces.h"

namespace tp {
namespace placement_detail {

namespace {

// The share of the time limit (from the call's start) the dives may run to,
// and how many at most (a 600-buffer dive costs about 0.7 ms). Measured
// with the whole solver at 10 s, one run each, two at a time on 2 cores
// (2026-11-28): the mean height over those 14 packings and over 12 fresh
// sparse ones (seeds 613-618, 400 and 600 buffers) was 1.0418 and 1.0287
// without these dives, and with them 1.0378 and 1.0266 at a share of 0.1,
// 1.0374 and 1.0200 at 0.2, 1.0378 and 1.0237 at 0.3.
constexpr double kTimeShare = 0.2;
constexpr int kMostDives = 4096;
// What a buffer above the lower bound gains per dive, in ranks of the area
// order the priorities start from: 2% of the buffer count, times a draw in
// [0.5, 1.5). With 0.5%, 2% and 8%, 3 s of dives alone ended within 0.004
// of each other in mean height on those 14 packings.
constexpr double kBlame = 0.02;
// Beyond this many buffers a dive costs tens of milliseconds or more and the
// few that fit in the share do not learn; the same bound as the starts'
// (placement_pieces.cpp).
constexpr size_t kMostBuffersForFeedbackDives = 5000;

// The dives themselves, on `buffers` (the instance or one piece): until the
// budget's deadline, kMostDives dives, `work` steps when > 0, or a dive for
// which `adopt` (called with each dive's offsets) returns true (the target
// reached).
template <typename Adopt>
void run_feedback_dives(const std::vector<PlaceBuffer>& buffers, int64_t lower_bound, int64_t work,
                        SearchBudget* dive_budget, Adopt adopt) {
  const size_t n = buffers.size();
  std::mt19937_64 rng(worker_seed(0x5C0EA4F1ull, *dive_budget));
  // Priorities start at the area order's ranks.
  const std::vector<int32_t> area_order = preorder(buffers, heaviest_section_loads(buffers), "A");
  std::vector<double> priority(n);
  for (size_t k = 0; k < n; ++k) priority[static_cast<size_t>(area_order[k])] = static_cast<double>(n - k);
  const double blame = kBlame * static_cast<double>(n);
  std::vector<int32_t> order(n);
  for (int dive = 1; dive <= kMostDives; ++dive) {
    if (dive_budget->expired()) break;
    if (work > 0) {
      if (dive_budget->dive_cut || dive_budget->dive_steps >= work) break;
      dive_budget->dive_step_limit = work - dive_budget->dive_steps;
    }
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<int32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return priority[static_cast<size_t>(a)] > priority[static_cast<size_t>(b)];
    });
    std::vector<int64_t> offsets = skyline_in_order(buffers, order, lower_bound / 1000000, false, false, dive_budget);
    if (dive_budget->timed_out || dive_budget->dive_cut) break;  // a cut dive is no lesson
    for (size_t i = 0; i < n; ++i) {
      if (buffers[i].size > 0 && offsets[i] + buffers[i].size > lower_bound) {
        const double unit = unit_interval(rng());
        priority[i] += blame * (0.5 + unit);
      }
    }
    if (adopt(&offsets)) break;
  }
}

}  // namespace

void improve_by_feedback_dives(const std::vector<PlaceBuffer>& buffers, const PlaceOptions& options, double start,
                               int64_t lower_bound, std::vector<Piece>* pieces, const std::atomic<bool>* settled) {
  const size_t n = buffers.size();
  if (!options.minimize || n < 2 || n > kMostBuffersForFeedbackDives) return;
  // A piece that fills every step at the bound needs a tiling, which the
  // well search builds (placement_wells.cpp): on the held-out perfect
  // packings that fill every step it found it within 1.4 s on all but one
  // (docs/bench-run-0c83f44.txt); these dives, run first there, made those
  // of 300 and 600 buffers take 0.9-2.9 s. So they run here only where a
  // piece above the bound has free space at it, and on the pieces that fill
  // every step only once the well search has given up on them
  // (improve_untiled_piece_by_feedback_dives).
  const bool free_space_above = std::any_of(pieces->begin(), pieces->end(), [&](const Piece& piece) {
    return piece.height > lower_bound && !fills_every_step(piece.buffers, lower_bound);
  });
  if (!free_space_above || pieces_height(*pieces) <= lower_bound) return;
  SearchBudget dive_budget;
  dive_budget.deadline_seconds = options.time_limit_seconds > 0 ? start + kTimeShare * options.time_limit_seconds : 0;
  dive_budget.settled = settled;
  const int64_t work = options.time_limit_seconds > 0 ? 0 : noisy_dive_work(n);
  run_feedback_dives(buffers, lower_bound, work, &dive_budget, [&](std::vector<int64_t>* offsets) {
    for (Piece& piece : *pieces) adopt_if_lower(&piece, *offsets, PlaceMethod::kConstructive);
    return pieces_height(*pieces) <= lower_bound;
  });
}

bool improve_untiled_piece_by_feedback_dives(Piece* piece, int64_t target, SearchBudget* budget) {
  if (piece->height <= target || piece->buffers.size() < 2 || piece->buffers.size() > kMostBuffersForFeedbackDives) {
    return false;
  }
  bool improved = false;
  run_feedback_dives(piece->buffers, target, 0, budget, [&](std::vector<int64_t>* offsets) {
    improved = adopt_if_lower(piece, offsets) || improved;
    return piece->height <= target;
  });
  return improved;
}

}  // namespace placement_detail
}  // namespace tp
