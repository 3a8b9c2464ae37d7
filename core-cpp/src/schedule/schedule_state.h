// Forward simulation shared by the greedy schedulers: which ops are ready,
// which storages are born, how many users each storage still waits for, and
// the live and peak bytes so far (PLANNING.md §2 step rule). It also tells a
// scheduler which ready ops' figures changed after a step, so priority
// queues can be kept up to date without rescanning the ready set.
#ifndef TENSORPLAN_SCHEDULE_STATE_H
#define TENSORPLAN_SCHEDULE_STATE_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"

namespace tp {

class ScheduleState {
 public:
  explicit ScheduleState(const PlanningGraph& pg);

  // Ops with no predecessors, in index order.
  std::vector<int32_t> initial_ready() const;

  // Bytes of storages `op` would bring to life (not counting workspace).
  int64_t new_bytes(int32_t op) const;
  // Bytes of storages that die right after `op` if it runs now.
  int64_t freed_bytes(int32_t op) const;

  // Runs `op`. Appends to `newly_ready` the ops it made ready, and to
  // `changed` ready ops (not yet run) whose new_bytes/freed_bytes changed.
  void run(int32_t op, std::vector<int32_t>* newly_ready, std::vector<int32_t>* changed);

  int64_t live() const { return live_; }
  int64_t peak() const { return peak_; }
  int32_t steps() const { return steps_; }
  bool is_ready(int32_t op) const { return missing_preds_[op] == 0 && !done_[op]; }

 private:
  const PlanningGraph& pg_;
  std::vector<int32_t> missing_preds_;
  std::vector<int32_t> remaining_;
  std::vector<uint8_t> born_;
  std::vector<uint8_t> done_;
  int64_t live_ = 0;
  int64_t peak_ = 0;
  int64_t unused_inputs_ = 0;
  int32_t steps_ = 0;
};

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_STATE_H
