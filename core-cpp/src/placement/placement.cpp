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
// The pieces are in placement_pieces.cpp, the constructive phase in
// placement_construct.cpp and the search phase in placement_search_phase.cpp.
#include <algorithm>
#include <string>
#include <vector>

#include "base/noinline.h"
#include "placement/placement.h"
#include "placement/placement_internal.h"
#include "placement/placement_pieces.h"

namespace tp {

using placement_detail::SearchBudget;
using placement_detail::SearchOutcome;
using placement_detail::HeightBracket;
using placement_detail::noisy_dive_work;
using placement_detail::Piece;
using placement_detail::pieces_offsets;
using placement_detail::portfolio_workers;
using placement_detail::solve_pieces;
using placement_detail::split_at_free_steps;

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


namespace placement_detail {

HeightBracket solve_pieces(const std::vector<PlaceBuffer>& buffers, const PlaceOptions& options, double start,
                           int64_t lower_bound, int32_t workers, std::vector<Piece>* pieces, SearchBudget* budget,
                           Placement* out) {
  construct_pieces(buffers, lower_bound, pieces, budget, &out->stats);
  if (!budget->dive_cut) improve_by_noisy_dives(buffers, options, start, lower_bound, pieces);
  if (!budget->dive_cut) improve_by_feedback_dives(buffers, options, start, lower_bound, pieces, budget->settled);
  budget->improved_seconds = now_seconds();
  return search_pieces_in_portfolio(buffers.size(), options, start, lower_bound, workers, pieces, budget, out,
                                    &out->stats.threads);
}

// What place() does under minimize with one worker, on `buffers`, for
// `seconds` (within the parent's deadline), ending early when the parent's
// portfolio is settled. It aims at `goal` where that is above the buffers'
// own bound: for a side of a near cut, the whole's bound is as low as the
// side needs to go, and the search at that height has the bytes between the
// two to spare. It searches as the portfolio's worker `worker` does (its
// seeds, and an odd worker's shares of the time). Adds the nodes to the
// parent's count.
std::vector<int64_t> minimize_alone(const std::vector<PlaceBuffer>& buffers, int64_t goal, double seconds,
                                    uint64_t worker, SearchBudget* parent) {
  const double start = now_seconds();
  PlaceOptions options;
  options.minimize = true;
  options.threads = 1;
  options.time_limit_seconds = seconds;
  const int64_t lower_bound = std::max(goal, placement_lower_bound(buffers));
  std::vector<Piece> pieces = split_at_free_steps(buffers);
  SearchBudget budget;
  budget.deadline_seconds = std::min(parent->deadline_seconds, start + seconds);
  budget.settled = parent->settled;
  budget.worker = worker;
  Placement scratch;
  solve_pieces(buffers, options, start, lower_bound, 1, &pieces, &budget, &scratch);
  parent->nodes += budget.nodes;
  return pieces_offsets(pieces, buffers.size());
}

}  // namespace placement_detail

namespace {

// Gathers the pieces' offsets into the whole instance's placement. The method
// reported is that of a piece reaching the best height, the search's when any
// such piece was searched.
void write_placement(const std::vector<Piece>& pieces, size_t buffer_count, const SearchBudget& budget,
                     const HeightBracket& bracket, Placement* out) {
  out->offsets = pieces_offsets(pieces, buffer_count);
  PlaceMethod method = PlaceMethod::kNone;
  for (const Piece& piece : pieces) {
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
  const HeightBracket bracket =
      solve_pieces(buffers, options, start, lower_bound, portfolio_workers(options), &pieces, &budget, out);
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
  if (options.threads < 0 || options.threads > kMaxPlaceThreads) {
    return Status::invalid("options.threads = " + std::to_string(options.threads) + ": must be in [0, " +
                           std::to_string(kMaxPlaceThreads) + "] (0: one per processor the process may use)");
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
