// The published op-ordering heuristics that tensorplan compares itself with
// (PLANNING.md §3). Each returns a topological order of the ops of a
// PlanningGraph; none of them fails.
//   given          the graph's own op order (if it is not topological: Kahn's
//                  algorithm taking the lowest index first)
//   Inductor       torch 2.14.1 torch/_inductor/memory.py: LPMF, BFS, DFS, read
//                  from the source (schedule_inductor.cpp; the mapping of its
//                  buffers onto storages is in docs/scheduling.md)
//   XLA            openxla/xla 62046af07625
//                  xla/hlo/transforms/simplifiers/hlo_memory_scheduler.cc:
//                  ListScheduler, DFSMemoryScheduler, PostOrderScheduler (=
//                  HloComputation::MakeInstructionPostOrder), read from the
//                  source (schedule_baselines.cpp; the mapping of HLO
//                  instructions and values onto ops and storages is in
//                  docs/scheduling.md)
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

// ListScheduler: the ready instruction with the highest (bytes freed - bytes
// defined, user count); ties to the most recently inserted (std::multimap).
std::vector<int32_t> schedule_xla_list(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

// DFSMemoryScheduler: post-order DFS from the unreachable roots and ROOT,
// children by more cumulative extra users, then larger cumulative size
// (capped), then name.
std::vector<int32_t> schedule_xla_dfs(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

// MakeInstructionPostOrder: DFS from each instruction without users in
// instructions() order; control predecessors last to first, then operands.
std::vector<int32_t> schedule_xla_post_order(const PlanningGraph& pg, const Deadline& deadline = Deadline::none());

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_BASELINES_H
