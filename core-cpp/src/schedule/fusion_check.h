// Fusion check: should a set of ops run as one fused op? PyTorch Inductor
// refuses fusions that accumulate large reads and skips fusions that can
// raise peak memory. A fused op keeps all of its inputs, outputs and
// workspace alive at once, so fusing e.g. every step of
// `total = total + x_i` makes all x_i live together. The check builds the
// fused graph, schedules both graphs with the same method, and accepts only
// if the peak does not rise and the fused op's reads stay under a limit.
#ifndef TENSORPLAN_FUSION_CHECK_H
#define TENSORPLAN_FUSION_CHECK_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"
#include "schedule/schedule.h"
#include "base/status.h"

namespace tp {

struct FusionLimits {
  int64_t max_read_bytes = 0;  // bytes the fused op may read at once; 0 = no limit
  ScheduleOptions schedule;    // how both graphs are ordered (default: ours)
};

struct FusionCheck {
  bool accepted = false;
  bool creates_cycle = false;    // some path leaves the set and re-enters it: not fusable
  bool raises_peak = false;      // peak_after > peak_before
  bool reads_too_large = false;  // read_bytes > max_read_bytes
  int64_t peak_before = 0;
  int64_t peak_after = 0;        // 0 when creates_cycle
  int64_t read_bytes = 0;        // distinct tensors the fused op reads (their bytes)
  int64_t fused_step_bytes = 0;  // aligned inputs + outputs + workspace of the fused op
  Graph fused_graph;             // the graph with the set replaced by one op (last index kept)
};

// `ops`: the op indices to fuse (at least one, no duplicates).
Status check_fusion(const PlanningGraph& pg, const std::vector<int32_t>& ops, const FusionLimits& limits,
                    FusionCheck* out);

}  // namespace tp

#endif  // TENSORPLAN_FUSION_CHECK_H
