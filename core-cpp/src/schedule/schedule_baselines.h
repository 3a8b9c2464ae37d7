// The published op-ordering heuristics that tensorplan compares itself with
// (PLANNING.md §3). Each returns a topological order of the ops of a
// PlanningGraph; none of them fails.
//   given          the graph's own op order (if it is not topological: Kahn's
//                  algorithm taking the lowest index first)
//   Inductor       torch 2.14.1 torch/_inductor/memory.py: LPMF, BFS, DFS, read
//                  from the source (schedule_inductor.cpp; the mapping of its
//                  buffers onto storages is in docs/scheduling.md)
//   XLA            hlo_memory_scheduler: list, DFS, post-order (from descriptions)
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

// memory.py topological_sort_lpmf (Least Peak Memory First): from the ready
// set pick the smallest key (size if size > gap else 0, size - freed, index),
// gap = max_so_far - live, max_so_far starting at max(live input bytes,
// graph output bytes).
std::vector<int32_t> schedule_inductor_lpmf(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

// memory.py topological_sort_bfs: ready ops by the sorted list of their
// predecessors' steps, compared lexicographically (then index).
std::vector<int32_t> schedule_inductor_bfs(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

// memory.py topological_sort_dfs: DFS over all ops by increasing (bytes of
// the storages the op makes + its workspace + bytes of the freeable storages
// it reads, then index), each op after its predecessors, which are visited in
// the same increasing order.
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
