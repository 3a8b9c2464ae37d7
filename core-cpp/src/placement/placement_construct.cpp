// The solver's constructive phase: first fit, skyline dives in fixed and
// randomised orders, and the baselines, each piece keeping its best.
#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "placement/placement_pieces.h"

namespace tp {
namespace placement_detail {

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
      const double unit = unit_interval(rng());
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

}  // namespace placement_detail
}  // namespace tp
