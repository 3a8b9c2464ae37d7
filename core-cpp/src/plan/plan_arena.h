// From a schedule to an arena (PLANNING.md §5): the storages alive in the
// arena and each op's workspace become buffers over step intervals, and
// placement gives every one an offset. Persistent storages live outside the
// arena and storages no step touches need no memory; both get offset -1.
#ifndef TENSORPLAN_PLAN_ARENA_H
#define TENSORPLAN_PLAN_ARENA_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"
#include "liveness/liveness.h"
#include "placement/placement.h"
#include "base/status.h"

namespace tp {

struct ArenaPlan {
  Liveness liveness;
  std::vector<int64_t> storage_offsets;    // per storage; -1 when not in the arena
  std::vector<int64_t> workspace_offsets;  // per op; -1 when the op needs none
  // Per storage, for attribution: the op that made it (-1: a graph input or
  // never touched) and the last op that reads or writes it (-1: none).
  std::vector<int32_t> producer_op, last_op;
  Placement placement;                     // height, lower bound, proofs, stats
  // Heights of the placement baselines on the same buffers, when asked for:
  // greedy by size, XLA best of two, first fit in schedule order.
  std::vector<int64_t> baseline_heights;
};

// The arena's buffers for `order`, in a fixed order: the arena storages by
// storage index, then the workspaces by op index. `owner` says which storage
// (>= 0) or which op (-1 - op) each buffer stands for.
void arena_buffers(const PlanningGraph& pg, const Liveness& liveness, std::vector<PlaceBuffer>* buffers,
                   std::vector<int32_t>* owner);

// Liveness under `order` (which must be a valid schedule: check_schedule),
// then placement of the arena buffers with `options`.
Status plan_arena(const PlanningGraph& pg, const std::vector<int32_t>& order, const PlaceOptions& options,
                  bool with_baselines, ArenaPlan* out);

}  // namespace tp

#endif  // TENSORPLAN_PLAN_ARENA_H
