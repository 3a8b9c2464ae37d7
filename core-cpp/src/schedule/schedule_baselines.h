// The published op-ordering heuristics that tensorplan compares itself with
// (PLANNING.md §3), written from their descriptions. Each returns a
// topological order of the ops of a PlanningGraph; none of them fails.
//   given          the graph's own op order (if it is not topological: Kahn's
//                  algorithm taking the lowest index first)
//   Inductor       torch/_inductor/memory.py: LPMF, BFS, DFS
//   XLA            hlo_memory_scheduler: list, DFS, post-order
// All run in O((V + E) log V) or close to it, so 10^5 ops stay fast.
#ifndef TENSORPLAN_SCHEDULE_BASELINES_H
#define TENSORPLAN_SCHEDULE_BASELINES_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"

namespace tp {

std::vector<int32_t> schedule_given(const PlanningGraph& pg);

// Least Peak Memory First: from the ready set pick the smallest key
// (size if size > gap else 0, size - freed, index), gap = max_so_far - live.
std::vector<int32_t> schedule_inductor_lpmf(const PlanningGraph& pg);

// Ready ops in FIFO order of the step their last predecessor ran (then index).
std::vector<int32_t> schedule_inductor_bfs(const PlanningGraph& pg);

// DFS over all ops by increasing (output bytes + bytes read), each op after
// its predecessors, which are visited in the same increasing order.
std::vector<int32_t> schedule_inductor_dfs(const PlanningGraph& pg);

// Greedy list scheduler: highest (bytes freed - bytes defined, user count).
std::vector<int32_t> schedule_xla_list(const PlanningGraph& pg);

// Post-order DFS from the sinks; operands by more extra users first, then
// larger accumulated size, then index.
std::vector<int32_t> schedule_xla_dfs(const PlanningGraph& pg);

// Plain post-order from the sinks, operands in index order.
std::vector<int32_t> schedule_xla_post_order(const PlanningGraph& pg);

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_BASELINES_H
