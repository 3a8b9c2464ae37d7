// Choosing the op order (PLANNING.md §3). schedule_graph runs the requested
// method and, for the combined methods, every baseline it needs, and reports
// each baseline's peak next to the result so "ours / theirs" comes from one run.
//
// kScheduleOurs: the best baseline order (never worse than any baseline),
// then exact best-first search when the graph is small enough (proved optimal
// if it finishes in time), else move-based local search until the time limit
// or a local optimum. The order returned is always valid.
#ifndef TENSORPLAN_SCHEDULE_H
#define TENSORPLAN_SCHEDULE_H

#include <cstdint>
#include <vector>

#include "tensorplan/graph_validate.h"
#include "tensorplan/status.h"

namespace tp {

// Codes shared with the C ABI (tp_graph_schedule's `method`).
enum ScheduleMethod : int32_t {
  kScheduleGiven = 0,
  kScheduleInductorLpmf = 1,
  kScheduleInductorBfs = 2,
  kScheduleInductorDfs = 3,
  kScheduleXlaList = 4,
  kScheduleXlaDfs = 5,
  kScheduleXlaPostOrder = 6,
  kScheduleInductorBest = 7,  // best of given, LPMF, BFS, DFS
  kScheduleXlaBest = 8,       // best of list, DFS, post-order
  kScheduleOurs = 9,
};
constexpr int32_t kBaselineCount = 7;  // codes 0..6
const char* schedule_method_name(int32_t method);

struct ScheduleOptions {
  int32_t method = kScheduleOurs;
  double time_limit_s = 1.0;        // ours: total budget for search; <= 0 means baselines only
  int64_t exact_max_states = 1000000;  // about 100 MB at most: fits the WASM heap
  uint64_t seed = 1;
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
};

Status schedule_graph(const PlanningGraph& pg, const ScheduleOptions& options, ScheduleResult* out);

// Order of one baseline method code (0..6); empty for other codes.
std::vector<int32_t> run_baseline(const PlanningGraph& pg, int32_t method);

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_H
