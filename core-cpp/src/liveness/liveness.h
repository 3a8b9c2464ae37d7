// Liveness and peak under a schedule (PLANNING.md §2). A storage is born at
// the step of the first op that touches any of its aliases (step 0 for graph
// inputs) and dies after the last step that touches any of them (never, for
// graph outputs). Within a step: allocate the op's new storages and its
// workspace, run, then free what died. Every figure counts a storage as
// roundup(bytes, alignment); persistent storages live outside the arena and
// are reported on their own.
#ifndef TENSORPLAN_LIVENESS_H
#define TENSORPLAN_LIVENESS_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"
#include "base/status.h"

namespace tp {

// One storage alive at the peak step, for attribution.
struct LiveEntry {
  int32_t storage = -1;
  int64_t bytes = 0;         // aligned
  int32_t producer_op = -1;  // op that made it (-1: a graph input)
  int32_t last_op = -1;      // last op that reads or writes it (-1: none)
};

struct Liveness {
  int32_t step_count = 0;
  // Per storage. birth = -1: never born (no op touches it and it is not a
  // graph input). death = step_count: survives the last step (graph output).
  std::vector<int32_t> birth, death;
  std::vector<int64_t> live_bytes;  // per step, arena storages plus the op's workspace
  int64_t peak = 0;
  int32_t peak_step = -1;           // first step reaching the peak; -1 if no steps
  std::vector<LiveEntry> peak_live; // arena storages live at the peak step, largest first
  int64_t peak_workspace = 0;       // workspace of the op at the peak step
  int64_t persistent_bytes = 0;     // sum of persistent storages (outside the arena)
};

// Checks that `order` is a permutation of the ops that respects every
// dependency; the error names the op and the dependency it breaks.
Status check_schedule(const PlanningGraph& pg, const std::vector<int32_t>& order);

// Full liveness report for a checked schedule.
Status compute_liveness(const PlanningGraph& pg, const std::vector<int32_t>& order, Liveness* out);

// Peak live bytes of a schedule that is known to be valid. The hot path of
// the schedulers: one pass, no allocation beyond two scratch arrays.
int64_t schedule_peak(const PlanningGraph& pg, const std::vector<int32_t>& order);

// What an executor does at each step of a schedule: allocate the `born`
// storages before the op runs and free the `dying` ones after it. Graph
// inputs exist before step 0, graph outputs survive the last step, and
// persistent storages live outside the arena, so none of those appear. Every
// executor walks this one list, so they all emit the same lifecycle trace.
struct StepLifecycle {
  std::vector<std::vector<int32_t>> born, dying;  // per step, storage indices
};
StepLifecycle step_lifecycle(const PlanningGraph& pg, const Liveness& live);

}  // namespace tp

#endif  // TENSORPLAN_LIVENESS_H
