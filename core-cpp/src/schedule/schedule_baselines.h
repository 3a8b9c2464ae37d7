// The published op-ordering heuristics that tensorplan compares itself with
// (PLANNING.md §3), written from their descriptions. Each returns a
// topological order of the ops of a PlanningGraph; none of them fails.
//   given          the graph's own op order (if it is not topological: Kahn's
//                  algorithm taking the lowest index first)
//   Inductor       torch/_inductor/memory.py: LPMF, BFS, DFS
//   XLA            hlo_memory_scheduler: list, DFS, post-order
// All run in O((V + E) log V) or close to it, so 10^5 ops stay fast. All but
// `given` (the order every caller can fall back on) take a deadline and
// check its clock as they go: one it cuts returns an empty order, which the
// caller drops (completing it would cost as much as the baseline itself).
#ifndef TENSORPLAN_SCHEDULE_BASELINES_H
#define TENSORPLAN_SCHEDULE_BASELINES_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"
#include "schedule/deadline.h"

namespace tp {

std::vector<int32_t> schedule_given(const PlanningGraph& pg);

// Least Peak Memory First: from the ready set pick the smallest key
// (size if size > gap else 0, size - freed, index), gap = max_so_far - live.
std::vector<int32_t> schedule_inductor_lpmf(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

// Ready ops in FIFO order of the step their last predecessor ran (then index).
std::vector<int32_t> schedule_inductor_bfs(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

// DFS over all ops by increasing (output bytes + bytes read), each op after
// its predecessors, which are visited in the same increasing order.
std::vector<int32_t> schedule_inductor_dfs(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

// Greedy list scheduler: highest (bytes freed - bytes defined, user count).
std::vector<int32_t> schedule_xla_list(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

// Post-order DFS from the sinks; operands by more extra users first, then
// larger accumulated size, then index.
std::vector<int32_t> schedule_xla_dfs(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

// Plain post-order from the sinks, operands in index order.
std::vector<int32_t> schedule_xla_post_order(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_BASELINES_H
