// Choosing the op order (PLANNING.md §3). schedule_graph runs the requested
// method and, for the combined methods, every baseline it needs, and reports
// each baseline's peak next to the result so "ours / theirs" comes from one run.
//
// kScheduleOurs: the best baseline order (never worse than any baseline),
// then exact best-first search when the graph is small enough (proved optimal
// if it finishes in time), else move-based local search until the time limit
// or a local optimum; when that leaves the order unproved, the proof by
// segments (the order cut where every order must pass, schedule_cuts.h; each
// segment of up to 128 ops searched exactly, schedule_exact.h), and under a
// time limit more descents until the deadline. The order returned is always
// valid, and never worse than `given`, which always runs; the time limit
// covers the whole call, so the other baselines are cut (and dropped) when
// they would run past it.
#ifndef TENSORPLAN_SCHEDULE_H
#define TENSORPLAN_SCHEDULE_H

#include <cstdint>
#include <vector>

#include "tensorplan/c_api.h"
#include "graph/planning_graph.h"
#include "base/status.h"
#include "schedule/deadline.h"

namespace tp {

// Codes shared with the C ABI (tp_graph_schedule's `method`), expanded from
// TP_SCHEDULE_METHOD_LIST (c_api.h): kScheduleGiven = TP_SCHEDULE_GIVEN, ...
// kScheduleInductorBest is the best of given, LPMF, BFS, DFS; kScheduleXlaBest
// the best of list, DFS, post-order.
enum ScheduleMethod : int32_t {
#define TP_X(code, c, cpp, name) kSchedule##cpp = TP_SCHEDULE_##c,
  TP_SCHEDULE_METHOD_LIST(TP_X)
#undef TP_X
};
constexpr int32_t kBaselineCount = 7;  // codes 0..6
// The public name (TP_SCHEDULE_METHOD_LIST), e.g. "inductor-lpmf"; "unknown" otherwise.
const char* schedule_method_name(int32_t method);

struct ScheduleOptions {
  int32_t method = kScheduleOurs;
  // ours: seconds the whole of schedule_graph may take (baselines, search and
  // the final checks, which are kept back from the search); <= 0 means the
  // baselines only, unbounded (they are O((V + E) log V)).
  double time_limit_s = 1.0;
  // ours: > 0 bounds the search by this many work units instead of wall time,
  // so the result is the same on every machine and backend (time_limit_s is
  // then ignored).
  int64_t work_limit = 0;
  // About 46 bytes per memoised two-word set natively (down_set_memo.h), so
  // about 115 MB at most; less on WASM. The moe-layer example is proved
  // after about 1.4M sets.
  int64_t exact_max_states = 2500000;
  uint64_t seed = 1;
  // Where time_limit_s counts from: the ABI sets it before decoding the
  // graph, which is part of the call's cost; unset, schedule_graph's start.
  Deadline::Clock::time_point started{};
};

struct ScheduleResult {
  std::vector<int32_t> order;
  int64_t peak = 0;
  int64_t lower_bound = 0;      // equals peak when proved_optimal
  bool proved_optimal = false;  // the peak equals the optimum over all topological orders
  int32_t chosen_baseline = -1; // ours: which baseline it started from
  // Peak and seconds of each of the 7 baselines; -1 where not run.
  std::vector<int64_t> baseline_peaks;
  std::vector<double> baseline_seconds;
  double search_seconds = 0;    // ours: time after the baselines
  int64_t exact_states = 0;
  // ours: segments between forced cuts when the proof by segments ran
  // (schedule_cuts.h); 0 when it did not.
  int32_t segment_count = 0;
};

Status schedule_graph(const PlanningGraph& pg, const ScheduleOptions& options, ScheduleResult* out);

// Order of one baseline method code (0..6); empty for other codes, and when
// `deadline` cuts the baseline (given never is).
std::vector<int32_t> run_baseline(const PlanningGraph& pg, int32_t method, const Deadline& deadline = Deadline::none());

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_H
