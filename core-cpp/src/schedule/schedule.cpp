#include "schedule/schedule.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "base/noinline.h"
#include "liveness/liveness.h"
#include "schedule/schedule_baselines.h"
#include "schedule/schedule_cuts.h"
#include "schedule/schedule_exact.h"
#include "schedule/schedule_search.h"

namespace tp {

const char* schedule_method_name(int32_t method) {
  switch (method) {
#define TP_X(code, c, cpp, name) \
  case kSchedule##cpp:           \
    return name;
    TP_SCHEDULE_METHOD_LIST(TP_X)
#undef TP_X
    default: return "unknown";
  }
}

std::vector<int32_t> run_baseline(const PlanningGraph& pg, int32_t method, const Deadline& deadline) {
  switch (method) {
    case kScheduleGiven: return schedule_given(pg);
    case kScheduleInductorLpmf: return schedule_inductor_lpmf(pg, deadline);
    case kScheduleInductorBfs: return schedule_inductor_bfs(pg, deadline);
    case kScheduleInductorDfs: return schedule_inductor_dfs(pg, deadline);
    case kScheduleXlaList: return schedule_xla_list(pg, deadline);
    case kScheduleXlaDfs: return schedule_xla_dfs(pg, deadline);
    case kScheduleXlaPostOrder: return schedule_xla_post_order(pg, deadline);
    default: return {};
  }
}

namespace {

// The forced-live bound at the ops where `order` peaks (all ops on small
// graphs); when it meets the peak, the order is proved optimal.
int64_t bound_at_peaks(const PlanningGraph& pg, const std::vector<int32_t>& order) {
  if (pg.op_count() == 0) return 0;
  std::vector<int32_t> at_ops;
  if (pg.op_count() <= 2000) {
    at_ops = order;
  } else {
    Liveness live;
    if (!compute_liveness(pg, order, &live).is_ok()) return 0;
    std::vector<int32_t> steps(live.live_bytes.size());
    for (size_t i = 0; i < steps.size(); ++i) steps[i] = static_cast<int32_t>(i);
    const size_t keep = std::min<size_t>(32, steps.size());
    std::partial_sort(steps.begin(), steps.begin() + keep, steps.end(),
                      // Ties broken by step so that every standard library picks the same steps.
                      [&](int32_t a, int32_t b) { return live.live_bytes[a] > live.live_bytes[b] || (live.live_bytes[a] == live.live_bytes[b] && a < b); });
    for (size_t i = 0; i < keep; ++i) at_ops.push_back(order[steps[i]]);
  }
  return forced_live_bound(pg, at_ops);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The baselines a method runs: itself, a family's members, or all of them
// (kScheduleOurs starts from the best of all seven).
std::vector<int32_t> baselines_for(int32_t method) {
  if (method < kBaselineCount) return {method};
  if (method == kScheduleInductorBest) return {0, 1, 2, 3};
  if (method == kScheduleXlaBest) return {4, 5, 6};
  return {0, 1, 2, 3, 4, 5, 6};
}

// Runs the baselines in `wanted`, recording each one's peak and time; the
// lowest peak (ties to the earlier baseline) becomes the result's order.
// With keep_orders, every baseline's order is kept in `orders` (the search's
// starting points). Only `ours` passes a deadline, and its list starts with
// `given`, which always runs in full: a later baseline that the deadline
// cuts, or that would start after it, is dropped (its peak stays -1).
TP_NOINLINE Status run_baselines(const PlanningGraph& pg, const std::vector<int32_t>& wanted, bool keep_orders,
                                 const Deadline& deadline, ScheduleResult* result,
                                 std::vector<std::vector<int32_t>>* orders) {
  bool have = false;
  for (int32_t m : wanted) {
    if (have && deadline.clock_passed()) break;
    const auto start = std::chrono::steady_clock::now();
    std::vector<int32_t> order = run_baseline(pg, m, have ? deadline : Deadline::none());
    if (have && order.empty() && pg.op_count() > 0) break;  // cut by the deadline
    const int64_t peak = schedule_peak(pg, order);
    result->baseline_seconds[m] = seconds_since(start);
    result->baseline_peaks[m] = peak;
    if (static_cast<int32_t>(order.size()) != pg.op_count()) {
      return Status::internal(std::string(schedule_method_name(m)) + " returned an incomplete order");
    }
    if (!have || peak < result->peak) {
      have = true;
      result->peak = peak;
      result->order = order;
      result->chosen_baseline = m;
    }
    if (keep_orders) (*orders)[m] = std::move(order);
  }
  return Status::ok();
}

// Multi-start: the best baseline may use all the time; when its descent
// stalls, the next baselines (by peak) share what is left. The best result
// wins, ties to the earlier start.
TP_NOINLINE void improve_from_best_baselines(const PlanningGraph& pg, const ScheduleOptions& options,
                                             const std::vector<std::vector<int32_t>>& orders, const Deadline& deadline,
                                             ScheduleResult* result) {
  std::vector<std::pair<int64_t, int32_t>> ranked;
  for (int32_t m = 0; m < kBaselineCount; ++m) {
    if (!orders[m].empty()) ranked.push_back({result->baseline_peaks[m], m});  // a cut baseline has no order
  }
  std::sort(ranked.begin(), ranked.end());
  const int32_t starts = std::min<int32_t>(3, static_cast<int32_t>(ranked.size()));
  for (int32_t k = 0; k < starts; ++k) {
    if (deadline.passed()) break;
    const Deadline share = (k == 0 || k + 1 == starts) ? deadline : deadline.share(0.5);
    std::vector<int32_t> order = orders[ranked[k].second];
    ImproveStats improve;
    const int64_t peak = improve_schedule(pg, &order, share, options.seed + static_cast<uint64_t>(k), &improve);
    if (peak < result->peak) {
      result->peak = peak;
      result->order = std::move(order);
    }
  }
}

// When the search must stop. With a work limit, after that many units
// (deterministic). Otherwise the time limit counts from `call_start` and
// covers what follows the search too (checking the order, its peak and the
// bound at its peaks, about one more pass of `given` and of the bound just
// computed: `pass_seconds`): twice that is kept back, at most half the limit.
Deadline search_deadline(const ScheduleOptions& options, Deadline::Clock::time_point call_start, double pass_seconds,
                         int64_t* work_done) {
  if (options.work_limit > 0) return Deadline::after_work(work_done, options.work_limit);
  const double reserve = std::min(2 * pass_seconds, 0.5 * options.time_limit_s);
  return Deadline::after(call_start, options.time_limit_s - reserve);
}

// Proof by segments (schedule_cuts.h says why it is exact): the order is cut
// at its forced cuts, and the segments are searched exactly, the one with the
// highest peak first (the whole peak is the largest segment peak, so only
// that one can lower it), until the highest peak meets the lower bound (the
// whole is proved), a segment cannot be proved (too large, the deadline, or
// the state limit: nothing below it can lower the peak), or time runs out.
// The lower bound it leaves is the largest of: the bound on entry, each
// segment's per-op bound, each proved segment's optimum, and what the search
// of an unproved segment ruled out (ExactStats::bound).
TP_NOINLINE void prove_by_segments(const PlanningGraph& pg, const ScheduleOptions& options, const Deadline& deadline,
                                   ScheduleResult* result) {
  const int32_t n = pg.op_count();
  if (n == 0) return;
  const std::vector<int32_t> cuts = forced_cuts(pg, result->order);
  // Per-op bounds: the touched bytes, raised to the forced-live bound (a
  // graph walk per op) only for the ops of a segment about to be searched,
  // so the cost follows the search, not the graph's size.
  std::vector<int64_t> op_bound = touched_bytes_per_op(pg);
  const std::vector<int64_t> steps = step_bytes(pg, result->order);
  struct Segment {
    int32_t begin, end;
    int64_t peak = 0, bound = 0;
    bool tried = false;
  };
  std::vector<Segment> segments;
  int64_t lower = result->lower_bound;
  for (size_t c = 0; c + 1 < cuts.size(); ++c) {
    Segment seg{cuts[c], cuts[c + 1]};
    for (int32_t i = seg.begin; i < seg.end; ++i) {
      seg.peak = std::max(seg.peak, steps[i]);
      seg.bound = std::max(seg.bound, op_bound[result->order[i]]);
    }
    lower = std::max(lower, seg.bound);
    segments.push_back(seg);
  }
  result->segment_count = static_cast<int32_t>(segments.size());
  ForcedLiveBound bound_at(pg);
  while (!deadline.clock_passed()) {
    Segment* top = &segments[0];
    for (Segment& seg : segments) {
      if (seg.peak > top->peak) top = &seg;
    }
    if (top->peak <= lower || top->tried) break;
    top->tried = true;
    // Under a work limit (plan()'s fast mode) segments beyond 1024 ops are
    // left unsearched: their wider sets make each unit of work slower, and
    // the searches that fit such a limit did not prove them (Llama-3 BF16
    // TP=8+SP: a 1088-op segment took its plan from 0.27 s to 0.83 s with
    // the same peak and no proof).
    const int32_t max_ops = options.work_limit > 0 ? kWorkBoundedSegmentMaxOps : kExactSegmentMaxOps;
    if (top->end - top->begin > max_ops) break;
    for (int32_t i = top->begin; i < top->end && !deadline.clock_passed(); ++i) {
      const int32_t v = result->order[i];
      op_bound[v] = std::max(op_bound[v], bound_at.at(v));
    }
    bool proved = false;
    ExactStats exact;
    top->peak = exact_segment(pg, &result->order, top->begin, top->end, op_bound, deadline, options.exact_max_states,
                              &proved, &exact);
    result->exact_states += exact.states;
    lower = std::max(lower, exact.bound);
    if (!proved) break;
    lower = std::max(lower, top->peak);
  }
  result->peak = schedule_peak(pg, result->order);
  result->lower_bound = std::max(result->lower_bound, lower);
}

// With a time limit, the time left after the descents and the segment proof
// goes to more descents from the best order (new kicks each round), each
// improvement followed by another segment proof (a lower incumbent prunes
// more), until the deadline or a proof. Only a strictly lower peak replaces
// the order.
TP_NOINLINE void keep_improving(const PlanningGraph& pg, const ScheduleOptions& options, const Deadline& deadline,
                                ScheduleResult* result) {
  for (uint64_t round = 1; !deadline.passed() && result->peak > result->lower_bound; ++round) {
    std::vector<int32_t> order = result->order;
    ImproveStats improve;
    const int64_t peak = improve_schedule(pg, &order, deadline, options.seed + 1000 * round, &improve);
    if (peak >= result->peak) continue;
    result->peak = peak;
    result->order = std::move(order);
    prove_by_segments(pg, options, deadline, result);
  }
}

// tensorplan's search from the best baseline: nothing when a lower bound
// already meets its peak; the exact search on small graphs (after a quick
// descent); local descent from several baselines otherwise. Then, when not
// proved, the proof by segments, and with a time limit more descents until
// the deadline.
void search_schedule(const PlanningGraph& pg, const ScheduleOptions& options, Deadline::Clock::time_point call_start,
                     const std::vector<std::vector<int32_t>>& orders, ScheduleResult* result) {
  const auto start = std::chrono::steady_clock::now();
  // No search when the best baseline already meets a lower bound.
  result->lower_bound = std::max(result->lower_bound, bound_at_peaks(pg, result->order));
  const double pass_seconds = seconds_since(start) + std::max(0.0, result->baseline_seconds[kScheduleGiven]);
  const bool settled = result->peak <= result->lower_bound;
  int64_t work_done = 0;
  const bool searching = options.work_limit > 0 || options.time_limit_s > 0;
  const bool timed = options.work_limit <= 0 && options.time_limit_s > 0;
  const Deadline deadline = search_deadline(options, call_start, pass_seconds, &work_done);
  if (settled) {
    result->proved_optimal = true;
  } else if (pg.op_count() <= kExactMaxOps && searching) {
    // A quick descent first gives the exact search a tighter incumbent.
    ImproveStats improve;
    const Deadline quick = deadline.share(0.1);
    result->peak = improve_schedule(pg, &result->order, quick, options.seed, &improve);
    // With a time limit and forced cuts, the proof by segments below replaces
    // the whole-graph search: it is exact too (schedule_cuts.h) and searches
    // far fewer sets (mixtral-moe: proved in 0.06 s instead of hitting the
    // state limit after 1 s). A work-bounded search keeps the whole-graph
    // search, on which the recorded plans depend.
    if (!(timed && forced_cuts(pg, result->order).size() > 2)) {
      ExactStats exact;
      result->peak = exact_schedule(pg, &result->order, deadline, options.exact_max_states, &result->proved_optimal,
                                    &exact);
      result->exact_states = exact.states;
    }
  } else if (searching) {
    improve_from_best_baselines(pg, options, orders, deadline, result);
  }
  if (result->peak <= result->lower_bound) result->proved_optimal = true;
  if (!result->proved_optimal && searching) {
    // Under a time limit the first proof leaves half the time to descents
    // (each improvement is followed by another proof with the time left).
    prove_by_segments(pg, options, timed ? deadline.share(0.5) : deadline, result);
    if (timed) keep_improving(pg, options, deadline, result);
  }
  if (result->peak <= result->lower_bound) result->proved_optimal = true;
  result->search_seconds = seconds_since(start);
}

}  // namespace

Status schedule_graph(const PlanningGraph& pg, const ScheduleOptions& options, ScheduleResult* out) {
  const auto call_start = options.started == Deadline::Clock::time_point{} ? Deadline::Clock::now() : options.started;
  const int32_t method = options.method;
  if (method < kScheduleGiven || method > kScheduleOurs) {
    return Status::invalid("method = " + std::to_string(method) + ": unknown schedule method (0..9)");
  }
  if (!(options.time_limit_s >= 0) || options.time_limit_s > 1e6) {
    return Status::invalid("time_limit_s = " + format_number(options.time_limit_s) + ": must be in [0, 1e6]");
  }
  ScheduleResult result;
  result.baseline_peaks.assign(kBaselineCount, -1);
  result.baseline_seconds.assign(kBaselineCount, -1);
  result.lower_bound = schedule_lower_bound(pg);

  const bool ours = method == kScheduleOurs;
  std::vector<std::vector<int32_t>> orders(kBaselineCount);
  // Only `ours` has a time limit; its baselines may use half of it (given,
  // first, always runs in full), the search what is left.
  const bool timed = ours && options.work_limit <= 0 && options.time_limit_s > 0;
  const Deadline baseline_deadline = timed ? Deadline::after(call_start, 0.5 * options.time_limit_s) : Deadline::none();
  TP_RETURN_IF_ERROR(run_baselines(pg, baselines_for(method), ours, baseline_deadline, &result, &orders));
  if (ours) {
    search_schedule(pg, options, call_start, orders, &result);
  } else {
    result.proved_optimal = result.peak <= result.lower_bound;
  }
  // The order is what callers trust: check it.
  Status check = check_schedule(pg, result.order);
  if (!check.is_ok()) return Status::internal("scheduler produced an invalid order: " + check.message());
  result.peak = schedule_peak(pg, result.order);
  // The search already bounded the order it started from: when it found no
  // better one, that bound stands (it costs 32 graph walks on large graphs).
  if (!result.proved_optimal && !(ours && result.order == orders[result.chosen_baseline])) {
    result.lower_bound = std::max(result.lower_bound, bound_at_peaks(pg, result.order));
    result.proved_optimal = result.peak <= result.lower_bound;
  }
  // A proved optimum is itself the best lower bound.
  if (result.proved_optimal) result.lower_bound = result.peak;
  *out = std::move(result);
  return Status::ok();
}

}  // namespace tp
