// place(): input checks, the baselines, and tensorplan's solver driver.
//
// The driver cuts the instance at steps no buffer crosses (the pieces are
// independent: the height is the max over pieces), takes for every piece the
// best of the baselines, and only searches the pieces above the target. The
// search is the complete decision procedure of placement_exact.cpp, called at
// a capacity K: at the lower bound first (a perfect packing is common), then
// by bisection between the proved bound and the best height found. A piece
// whose live bytes equal K at every step can only be placed at K without a
// free byte; the well search of placement_wells.cpp decides those first.
#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "base/noinline.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace tp {

using placement_detail::SearchBudget;
using placement_detail::SearchOutcome;

const char* place_method_name(PlaceMethod method) {
  switch (method) {
#define TP_X(code, c, cpp, name) \
  case PlaceMethod::k##cpp:      \
    return name;
    TP_PLACE_METHOD_LIST(TP_X)
#undef TP_X
  }
  return "unknown";
}

TP_NOINLINE Status check_place_buffers(const std::vector<PlaceBuffer>& buffers) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    const PlaceBuffer& b = buffers[i];
    const std::string field = "buffers[" + std::to_string(i) + "]";
    if (b.size < 0 || b.size > kMaxExactInteger) {
      return Status::invalid(field + ".size = " + std::to_string(b.size) + ": must be in [0, 2^53]");
    }
    if (b.lower < -kMaxExactInteger || b.lower > kMaxExactInteger) {
      return Status::out_of_range(field + ".lower = " + std::to_string(b.lower) + ": beyond 2^53");
    }
    if (b.upper < -kMaxExactInteger || b.upper > kMaxExactInteger) {
      return Status::out_of_range(field + ".upper = " + std::to_string(b.upper) + ": beyond 2^53");
    }
    if (b.upper <= b.lower) {
      return Status::invalid(field + ".upper = " + std::to_string(b.upper) + ": must be > lower = " +
                             std::to_string(b.lower) + " (lifetimes are half-open [lower, upper))");
    }
    if (!is_power_of_two(b.alignment)) {
      return Status::invalid(field + ".alignment = " + std::to_string(b.alignment) + ": must be a power of two");
    }
  }
  // The sum of sizes bounds every height any planner here produces (aligned
  // stacking adds at most alignment - 1 per buffer).
  int64_t total = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    TP_RETURN_IF_ERROR(checked_add(total, buffers[i].size + buffers[i].alignment - 1, "total bytes of all buffers", &total));
  }
  return Status::ok();
}

int64_t placement_lower_bound(const std::vector<PlaceBuffer>& buffers) {
  std::vector<std::pair<int64_t, int64_t>> events;  // (time, delta); deaths sort first at equal times
  events.reserve(buffers.size() * 2);
  for (const PlaceBuffer& b : buffers) {
    if (b.size == 0) continue;
    events.emplace_back(b.lower, b.size);
    events.emplace_back(b.upper, -b.size);
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, peak = 0;
  for (const auto& e : events) {
    live += e.second;
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t placement_height(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets) {
  int64_t height = 0;
  for (size_t i = 0; i < buffers.size() && i < offsets.size(); ++i) {
    if (buffers[i].size > 0) height = std::max(height, offsets[i] + buffers[i].size);
  }
  return height;
}

namespace {

// One independent piece of the instance (buffers with size > 0).
struct Piece {
  std::vector<int32_t> members;      // indices into the input
  std::vector<PlaceBuffer> buffers;  // their copies, in the same order
  std::vector<int64_t> offsets;      // best placement found for the piece
  int64_t height = 0;
  int64_t lower_bound = 0;
  PlaceMethod method = PlaceMethod::kNone;
  int64_t pairs = 0;  // buffer pairs alive together: the search's memory cost
  // Other placements the constructive phase made of the piece, the lowest
  // kMaxStarts of them (pieces of up to kMostBuffersForStarts buffers):
  // starts of the neighbourhood search besides the best (placement_starts.cpp).
  std::vector<std::vector<int64_t>> starts;
  std::vector<int64_t> start_heights;  // their heights, ascending
  // The well search's deepest partial tiling when it gave up (-1: left out).
  std::vector<int64_t> deepest_tiling;
};

std::vector<Piece> split_at_free_steps(const std::vector<PlaceBuffer>& buffers) {
  std::vector<int32_t> order;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].size > 0) order.push_back(static_cast<int32_t>(i));
  }
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return buffers[static_cast<size_t>(a)].lower < buffers[static_cast<size_t>(b)].lower;
  });
  std::vector<Piece> pieces;
  int64_t reach = 0;
  for (int32_t i : order) {
    const PlaceBuffer& b = buffers[static_cast<size_t>(i)];
    if (pieces.empty() || b.lower >= reach) {
      pieces.emplace_back();
      reach = b.upper;
    }
    pieces.back().members.push_back(i);
    pieces.back().buffers.push_back(b);
    reach = std::max(reach, b.upper);
  }
  for (Piece& p : pieces) {
    p.lower_bound = placement_lower_bound(p.buffers);
    // Pairs alive together, counted by a sweep (each pair once, at the later birth).
    std::vector<std::pair<int64_t, int>> events;
    for (const PlaceBuffer& b : p.buffers) {
      events.emplace_back(b.lower, 1);
      events.emplace_back(b.upper, 0);
    }
    std::sort(events.begin(), events.end());
    int64_t alive = 0;
    for (const auto& e : events) {
      if (e.second == 0) {
        --alive;
      } else {
        p.pairs += alive;
        ++alive;
      }
    }
  }
  return pieces;
}

// The search keeps an adjacency list of pairs alive together; beyond this it
// would need too much memory and time per node to be worth starting.
constexpr int64_t kMaxSearchPairs = int64_t{3} << 20;
// The search recurses once per placed buffer; this keeps its stack modest
// (the WASM build has a few MB of stack).
constexpr size_t kMaxSearchBuffers = 4000;

// Takes `offsets` (a placement of the piece's buffers, or empty) as the
// piece's placement when it is lower than the one it has.
void adopt_if_lower(Piece* piece, std::vector<int64_t>* offsets) {
  if (offsets->empty()) return;
  const int64_t height = placement_height(piece->buffers, *offsets);
  if (height < piece->height) {
    piece->offsets = std::move(*offsets);
    piece->height = height;
    piece->method = PlaceMethod::kSearch;
  }
}

// Runs the decision procedure at capacity K on every piece above K. Returns
// kFound when every piece now fits, kInfeasible when one piece provably
// cannot, kGaveUp otherwise. Improvements found on the way are kept.
SearchOutcome decide(std::vector<Piece>* pieces, int64_t capacity, int64_t node_limit, SearchBudget* budget,
                     bool* out_of_reach = nullptr) {
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

int64_t pieces_height(const std::vector<Piece>& pieces) {
  int64_t height = 0;
  for (const Piece& p : pieces) height = std::max(height, p.height);
  return height;
}

// How many of a piece's other constructive placements it keeps as starts,
// and on pieces of how many buffers at most. On 31 sparse packings of about
// 80 buffers (seeds 510-539 and 9001), several starts reached the optimum
// on 30 where the best start alone reached it on 28 of 30 (seeds 520 and 9001
// it missed); on the held-out packings of 300 and 600 buffers, one run each,
// splitting the time among starts left 8 of 36 above the optimum against 4
// of 36 with the best start alone, which is often the well search's
// fallback and far below the dives (docs/placement.md, "Hard instances").
constexpr size_t kMaxStarts = 7;
constexpr size_t kMostBuffersForStarts = 200;

// Keeps `offsets` among the piece's starts when it is one of the lowest
// kMaxStarts so far (ties: the earlier one stays).
void keep_as_start(Piece* piece, const std::vector<int64_t>& offsets, int64_t height) {
  if (piece->buffers.size() > kMostBuffersForStarts) return;
  auto& heights = piece->start_heights;
  const auto position = std::upper_bound(heights.begin(), heights.end(), height) - heights.begin();
  if (static_cast<size_t>(position) >= kMaxStarts) return;
  heights.insert(heights.begin() + position, height);
  piece->starts.insert(piece->starts.begin() + position, offsets);
  if (heights.size() > kMaxStarts) {
    heights.pop_back();
    piece->starts.pop_back();
  }
}

void adopt_if_lower(Piece* piece, const std::vector<int64_t>& whole_offsets, PlaceMethod method) {
  std::vector<int64_t> offsets(piece->members.size());
  for (size_t k = 0; k < piece->members.size(); ++k) offsets[k] = whole_offsets[static_cast<size_t>(piece->members[k])];
  const int64_t height = placement_height(piece->buffers, offsets);
  keep_as_start(piece, offsets, height);
  if (piece->method == PlaceMethod::kNone || height < piece->height) {
    piece->offsets = std::move(offsets);
    piece->height = height;
    piece->method = method;
  }
}

// Constructive phase on the whole instance; each piece keeps the best of
// the methods: skyline dives first (they usually win), then the baselines
// when the instance is small enough for them. Records the best baseline
// height in `stats`. First fit runs before everything else: it is O(n log n)
// whatever the overlap, so a complete, reasonable placement exists before
// any phase that the deadline can cut (a dive cut short drops its remaining
// buffers on the skyline, which can be far worse). It joins the candidates
// in its usual place, after the dives and the other baselines, so ties go
// where they always went. On a large instance (beyond any plan the
// fingerprints cover) that first fit already packs at the lower bound, it is
// optimal and the dives are skipped: on a wide fan-out a dive costs O(n^2).
// A dive that the deadline cuts short (see skyline_in_order) is only a
// candidate: first fit stays whenever it is lower.
void construct_pieces(const std::vector<PlaceBuffer>& buffers, int64_t lower_bound, std::vector<Piece>* pieces,
                      SearchBudget* budget, PlaceStats* stats) {
  int64_t total_pairs = 0;
  for (const Piece& piece : *pieces) total_pairs += piece.pairs;
  const bool large = buffers.size() > 5000;
  std::vector<int64_t> first_fit = place_first_fit(buffers);
  const int64_t first_fit_height = placement_height(buffers, first_fit);
  std::vector<std::pair<PlaceMethod, std::vector<int64_t>>> results;
  int64_t best_baseline = 0;
  auto baseline = [&](PlaceMethod method, std::vector<int64_t> offsets) {
    if (offsets.empty() && !buffers.empty()) return;  // cut by the deadline
    const int64_t height = placement_height(buffers, offsets);
    if (best_baseline == 0 || height < best_baseline) best_baseline = height;
    results.emplace_back(method, std::move(offsets));
  };
  const bool first_fit_optimal = large && first_fit_height <= lower_bound;
  if (!first_fit_optimal) {
    const std::vector<int64_t> heaviest = placement_detail::heaviest_section_loads(buffers);
    const char* const orders[] = {"A", "TWA", "Z"};
    for (const char* keys : orders) {
      if (large && keys != orders[0]) break;  // large instances afford the area order only
      const std::vector<int32_t> order = placement_detail::preorder(buffers, heaviest, keys);
      // Buffers under a millionth of the lower bound barely move the height;
      // they go in a second dive (see skyline_in_order).
      for (bool starters : {false, true}) {
        // First fit is a complete placement already; after a dive cut by its
        // work budget (no time limit), the next would be cut too.
        if (budget->expired() || budget->dive_cut) break;
        results.emplace_back(PlaceMethod::kConstructive,
                             placement_detail::skyline_in_order(buffers, order, lower_bound / 1000000,
                                                                buffers.size() > 40000, starters, budget));
      }
    }
    // Best fit costs O(pairs log pairs): beyond this many pairs (S_1 and
    // Y_1 of the benchmarks) the baselines take seconds each, and the caller
    // gets tensorplan's dives, first fit and the peak stack below. Under a
    // deadline each can be cut.
    constexpr int64_t kMaxBaselinePairs = int64_t{20} << 20;
    if (total_pairs <= kMaxBaselinePairs) {
      if (!budget->expired()) {
        baseline(PlaceMethod::kGreedySize,
                 placement_detail::best_fit_in_order(buffers, placement_detail::size_order(buffers), budget));
      }
      // XLA's spatial order (heap_simulator.cc, see place_xla_by_size) is a
      // baseline of its own since the XLA rules were read from the source: ours
      // starts from it too, so it is never above any baseline it is compared with.
      if (!budget->expired()) {
        baseline(PlaceMethod::kXlaSize,
                 placement_detail::best_fit_in_order(buffers, placement_detail::xla_size_order(buffers), budget,
                                                     placement_detail::BestFitRule::kXla));
      }
      if (!budget->expired()) {
        baseline(PlaceMethod::kXlaLifetime,
                 placement_detail::best_fit_in_order(buffers, placement_detail::lifetime_order(buffers), budget,
                                                     placement_detail::BestFitRule::kXla));
      }
    }
  }
  baseline(PlaceMethod::kFirstFit, std::move(first_fit));
  stats->best_baseline_height = best_baseline;
  // The peak stack (placement_peak_stack.cpp) last, so that it wins only when
  // strictly lower, and only when nothing reached the lower bound already:
  // it is one more best fit, seconds on traces of tens of thousands of buffers.
  constexpr int64_t kMaxPeakStackPairs = int64_t{1} << 28;
  if (!first_fit_optimal && total_pairs <= kMaxPeakStackPairs && !budget->expired()) {
    int64_t best = first_fit_height;
    for (const auto& result : results) best = std::min(best, placement_height(buffers, result.second));
    if (best > lower_bound) {
      std::vector<int64_t> stacked = placement_detail::best_fit_in_order(
          buffers, placement_detail::peak_stack_order(buffers), budget, placement_detail::BestFitRule::kXla);
      if (!stacked.empty()) results.emplace_back(PlaceMethod::kConstructive, std::move(stacked));  // empty: cut by the deadline
    }
  }
  for (Piece& piece : *pieces) {
    for (const auto& result : results) adopt_if_lower(&piece, result.second, result.first);
  }
}

// Randomised dives: area order with multiplicative noise on the keys. On
// large real instances a fixed order can strand a few big buffers above
// holes the dive cannot reach (pangu_2.6B: every fixed order ends 0.76%
// above the lower bound; noisy orders reach 0.01% within a few dozen
// tries). The seed is fixed and the noise is built from raw 64-bit draws,
// so every build returns the same placement. The dives stop after 24, at
// half the time limit, or once the height is within 0.05% of the lower
// bound (at the lower bound itself under minimize).
// Without a time limit they are bounded by work instead: a dive costs about
// 15 n log2 n selection steps on random lifetimes (0.3 s at 10^4 buffers,
// 5 s at 10^5) and up to n^2 / 2 on a wide fan-out, so all 24 share
// max(2^25, 16 n log2 n) steps. The floor lets every dive finish below about
// 6,000 buffers; above it the noisy dives together cost about one dive more.
// Plans always place under a time limit, so no plan depends on this budget. Without a limit, each
// constructive dive gets the same budget (solve_ours).
int64_t noisy_dive_work(size_t n) {
  int64_t log_n = 1;  // ceil(log2 n), in integers so that every build agrees
  while ((size_t{1} << log_n) < n) ++log_n;
  return std::max<int64_t>(int64_t{1} << 25, 16 * static_cast<int64_t>(n) * log_n);
}

void improve_by_noisy_dives(const std::vector<PlaceBuffer>& buffers, const PlaceOptions& options, double start,
                            int64_t lower_bound, std::vector<Piece>* pieces) {
  std::mt19937_64 rng(0x7E45011Aull);
  const double dive_deadline = options.time_limit_seconds > 0 ? start + 0.5 * options.time_limit_seconds : 0;
  // Its own budget: a dive cut short at half the limit does not end the search phase.
  SearchBudget dive_budget;
  dive_budget.deadline_seconds = dive_deadline;
  const int64_t work = dive_deadline > 0 ? 0 : noisy_dive_work(buffers.size());
  const int64_t good_enough = options.minimize ? lower_bound : lower_bound + lower_bound / 2000;
  std::vector<double> key(buffers.size());
  std::vector<int32_t> order(buffers.size());
  for (int dive = 1; dive <= 24 && pieces_height(*pieces) > good_enough; ++dive) {
    if (dive_deadline > 0 && placement_detail::now_seconds() > dive_deadline) break;
    if (work > 0) {
      if (dive_budget.dive_cut || dive_budget.dive_steps >= work) break;
      dive_budget.dive_step_limit = work - dive_budget.dive_steps;
    }
    const double noise = dive % 2 == 1 ? 1.0 : 0.3;
    for (size_t i = 0; i < buffers.size(); ++i) {
      const double unit = static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
      key[i] = static_cast<double>(buffers[i].size) * static_cast<double>(buffers[i].upper - buffers[i].lower) *
               (1.0 + noise * (2.0 * unit - 1.0));
    }
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return key[static_cast<size_t>(a)] > key[static_cast<size_t>(b)];
    });
    const std::vector<int64_t> offsets = placement_detail::skyline_in_order(
        buffers, order, lower_bound / 1000000, buffers.size() > 40000, false, &dive_budget);
    for (Piece& piece : *pieces) adopt_if_lower(&piece, offsets, PlaceMethod::kConstructive);
  }
}

// What the search phase knows: no placement is lower than `proved`, and the
// pieces reach `best`.
struct HeightBracket {
  int64_t proved = 0;
  int64_t best = 0;
};

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
// bound), each from its own seed, from the piece's best placement and its
// other constructive ones (placement_starts.cpp); a piece it lowers reports
// the search.
void improve_pieces_by_neighbourhoods(std::vector<Piece>* pieces, int64_t target, SearchBudget* budget) {
  for (size_t index = 0; index < pieces->size(); ++index) {
    Piece& piece = (*pieces)[index];
    if (piece.height <= target) continue;
    if (budget->expired()) break;
    std::vector<int64_t> offsets = piece.offsets;
    if (placement_detail::improve_from_starts(piece.buffers, std::max(target, piece.lower_bound), piece.starts,
                                              0x4E16B0D5ull + index, budget, &offsets)) {
      piece.offsets = std::move(offsets);
      piece.height = placement_height(piece.buffers, piece.offsets);
      piece.method = PlaceMethod::kSearch;
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
    if (outcome == SearchOutcome::kFound) {
      piece.offsets = std::move(offsets);
      piece.height = placement_height(piece.buffers, piece.offsets);
      piece.method = PlaceMethod::kSearch;
      budget->note_improvement();
    } else if (!fallback.empty()) {
      // The deepest partial tiling, completed: a lower start for the
      // neighbourhood search than the dives' placement, when it is lower.
      const int64_t height = placement_height(piece.buffers, fallback);
      if (height < piece.height) {
        piece.offsets = std::move(fallback);
        piece.height = height;
        piece.method = PlaceMethod::kSearch;
        budget->note_improvement();
      }
    }
  }
  return SearchOutcome::kGaveUp;
}

// The pieces the well search gave up on: their deepest partial tiling,
// completed by the search above it (complete_above_partial) where that is
// lower than the greedy completion they have. Until 65% of the limit, after
// the well search's 60%. On eight skewed packings of 600 buffers (seeds
// 501-504, 9001, 9002 and two time-cuts-skewed), in two runs each, it
// lowered the greedy completion on five (1.0342 to 1.0223, for one), found
// none lower on the other three, and changed two final heights: 1.0004 to
// the optimum and 1.0147 to 1.0081; no final height went up.
void complete_deepest_tilings(std::vector<Piece>* pieces, int64_t target, SearchBudget* budget) {
  for (Piece& piece : *pieces) {
    if (piece.height <= target || piece.deepest_tiling.empty() || budget->expired()) continue;
    const int64_t node_limit = 20000 + 40 * static_cast<int64_t>(piece.buffers.size());
    std::vector<int64_t> offsets = placement_detail::complete_above_partial(
        piece.buffers, piece.deepest_tiling, std::max(target, piece.lower_bound), piece.height, node_limit, budget);
    if (offsets.empty()) continue;
    piece.offsets = std::move(offsets);
    piece.height = placement_height(piece.buffers, piece.offsets);
    piece.method = PlaceMethod::kSearch;
    budget->note_improvement();
  }
}

// Takes back what a phase's copy of the budget recorded: its nodes, its
// progress, and a stall (which ends every later phase too).
void absorb_phase(SearchBudget* budget, const SearchBudget& phase) {
  budget->nodes = phase.nodes;
  budget->progress_seconds = phase.progress_seconds;
  budget->improved_seconds = phase.improved_seconds;
  if (phase.stalled) budget->stalled = budget->timed_out = true;
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
  const int64_t node_limit =
      options.minimize || capacity > 0 ? 0 : std::max<int64_t>(20000, 20 * static_cast<int64_t>(buffer_count));

  if (capacity > 0 && bracket.best > capacity) {
    const SearchOutcome outcome = decide(pieces, capacity, node_limit, budget);
    if (pieces_height(*pieces) < bracket.best) budget->note_improvement();
    bracket.best = pieces_height(*pieces);
    if (outcome == SearchOutcome::kInfeasible) {
      out->proved_infeasible = true;
      bracket.proved = std::max(bracket.proved, capacity + 1);
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
  if (options.minimize && !out->proved_infeasible) {
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
      if (options.time_limit_seconds > 0 && bracket.proved < bracket.best) {
        SearchBudget completing = *budget;
        completing.deadline_seconds = std::min(budget->deadline_seconds, start + 0.65 * options.time_limit_seconds);
        complete_deepest_tilings(pieces, bracket.proved, &completing);
        absorb_phase(budget, completing);
        bracket.best = pieces_height(*pieces);
      }
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
    if (options.time_limit_seconds > 0 && bracket.proved < bracket.best) {
      // Under a time limit: a first share for the probes (they find and
      // prove the small and the easy instances within it), then windows
      // re-placed around the best placement (improve_by_neighbourhoods:
      // where the whole-piece search gets lost), then the probes again,
      // from the lower height, for the rest.
      const double limit = options.time_limit_seconds;
      SearchBudget early = *budget;
      early.deadline_seconds = std::min(budget->deadline_seconds, start + 0.2 * limit);
      minimize_by_probes(buffer_count, pieces, &early, &bracket);
      absorb_phase(budget, early);
      if (bracket.proved < bracket.best && !budget->expired()) {
        SearchBudget windows = *budget;
        windows.deadline_seconds = std::min(budget->deadline_seconds, start + 0.8 * limit);
        improve_pieces_by_neighbourhoods(pieces, bracket.proved, &windows);
        absorb_phase(budget, windows);
        bracket.best = pieces_height(*pieces);
      }
    }
    minimize_by_probes(buffer_count, pieces, budget, &bracket);
  }
  return bracket;
}

// Gathers the pieces' offsets into the whole instance's placement. The method
// reported is that of a piece reaching the best height, the search's when any
// such piece was searched.
void write_placement(const std::vector<Piece>& pieces, size_t buffer_count, const SearchBudget& budget,
                     const HeightBracket& bracket, Placement* out) {
  out->offsets.assign(buffer_count, 0);
  PlaceMethod method = PlaceMethod::kNone;
  for (const Piece& piece : pieces) {
    for (size_t k = 0; k < piece.members.size(); ++k) out->offsets[static_cast<size_t>(piece.members[k])] = piece.offsets[k];
    if (piece.height == bracket.best && (method == PlaceMethod::kNone || piece.method == PlaceMethod::kSearch)) {
      method = piece.method;
    }
  }
  out->stats.method = method;
  out->stats.nodes = budget.nodes;
  out->stats.timed_out = budget.timed_out && !budget.stalled;
  out->stats.stalled = budget.stalled;
  out->proved_lower_bound = std::min(bracket.proved, bracket.best);
  if (out->proved_infeasible) out->proved_lower_bound = bracket.proved;
}

TP_NOINLINE Status solve_ours(const std::vector<PlaceBuffer>& buffers, const PlaceOptions& options, double start,
                              Placement* out) {
  const int64_t lower_bound = out->lower_bound;
  std::vector<Piece> pieces = split_at_free_steps(buffers);
  SearchBudget budget;
  if (options.time_limit_seconds > 0) {
    // The limit covers the whole call. What runs after the deadline
    // (gathering the offsets, the validator, encoding the result) costs
    // about what the setup so far cost (the input checks, the lower bound
    // and the split all sort the n buffers): twice that is kept back.
    const double setup = placement_detail::now_seconds() - start;
    const double reserve = std::min(2 * setup, 0.5 * options.time_limit_seconds);
    budget.deadline_seconds = start + options.time_limit_seconds - reserve;
  } else {
    // Without a limit each constructive dive is bounded by work as the
    // noisy dives together are: on a wide fan-out that first fit does not
    // pack at the lower bound, one dive would otherwise do n^2 / 2 steps
    // (minutes at 10^5 buffers). A cut dive is kept only if it beats first fit.
    budget.dive_step_limit = noisy_dive_work(buffers.size());
  }
  out->stats.components = static_cast<int32_t>(pieces.size());
  construct_pieces(buffers, lower_bound, &pieces, &budget, &out->stats);
  if (!budget.dive_cut) improve_by_noisy_dives(buffers, options, start, lower_bound, &pieces);
  budget.improved_seconds = placement_detail::now_seconds();
  const HeightBracket bracket = search_pieces(buffers.size(), options, start, lower_bound, &pieces, &budget, out);
  write_placement(pieces, buffers.size(), budget, bracket, out);
  out->stats.seconds_to_best = budget.improved_seconds - start;
  return Status::ok();
}

}  // namespace

Status place(const std::vector<PlaceBuffer>& buffers, const PlaceOptions& options, Placement* out) {
  const double start = placement_detail::now_seconds();
  TP_RETURN_IF_ERROR(check_place_buffers(buffers));
  if (options.capacity < 0 || options.capacity > kMaxExactInteger) {
    return Status::invalid("options.capacity = " + std::to_string(options.capacity) + ": must be in [0, 2^53]");
  }
  *out = Placement();
  out->lower_bound = placement_lower_bound(buffers);
  out->proved_lower_bound = out->lower_bound;
  switch (options.algorithm) {
    case PlaceAlgorithm::kAuto:
    case PlaceAlgorithm::kOurs:
      TP_RETURN_IF_ERROR(solve_ours(buffers, options, start, out));
      break;
    case PlaceAlgorithm::kGreedySize:
      out->offsets = place_greedy_by_size(buffers);
      out->stats.method = PlaceMethod::kGreedySize;
      break;
    case PlaceAlgorithm::kXlaBest: {
      out->offsets = place_xla_by_size(buffers);
      out->stats.method = PlaceMethod::kXlaSize;
      std::vector<int64_t> other = place_best_fit_by_lifetime(buffers);
      if (placement_height(buffers, other) < placement_height(buffers, out->offsets)) {
        out->offsets = std::move(other);
        out->stats.method = PlaceMethod::kXlaLifetime;
      }
      break;
    }
    case PlaceAlgorithm::kFirstFit:
      out->offsets = place_first_fit(buffers);
      out->stats.method = PlaceMethod::kFirstFit;
      break;
    default:
      return Status::invalid("options.algorithm = " + std::to_string(static_cast<int32_t>(options.algorithm)) +
                             ": unknown (0 auto, 1 ours, 2 greedy-size, 3 xla-best, 4 first-fit)");
  }
  out->height = placement_height(buffers, out->offsets);
  if (out->height == out->lower_bound) out->proved_lower_bound = out->height;
  out->proved_optimal = out->height == out->proved_lower_bound;
  if (options.capacity > 0) {
    out->feasible = out->height <= options.capacity;
    if (options.capacity < out->lower_bound) out->proved_infeasible = true;
  }
  // Cheap independent check before anything leaves the core.
  Status valid = validate_placement(buffers, out->offsets, 0);
  if (!valid.is_ok()) return Status::internal("placement bug: " + valid.message());
  out->stats.seconds = placement_detail::now_seconds() - start;
  return Status::ok();
}

}  // namespace tp
