// Lifecycle verifier (PLANNING.md §6 verify): an executor records, per step,
// which storages it allocated and freed; this compares that trace with the
// births and deaths the plan expects under the same order (liveness.h), in
// the spirit of PyTorch Inductor's track_memory_lifecycle.
//
// Expected: a birth at the birth step of every storage that is neither a
// graph input (exists before step 0) nor persistent; a death at the death
// step of every storage that is neither a graph output nor persistent.
#ifndef TENSORPLAN_LIFECYCLE_VERIFY_H
#define TENSORPLAN_LIFECYCLE_VERIFY_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"
#include "base/status.h"

namespace tp {

struct TraceEvent {
  int32_t step = 0;
  int32_t tensor = -1;  // any tensor of the storage (the executor knows tensors)
  bool birth = true;    // false: a death (free)
};

// Expanded from TP_LIFECYCLE_ISSUE_LIST (c_api.h): kMissingBirth (the plan
// expected an allocation that did not happen), kUnexpectedBirth (one the plan
// did not expect, here or at all), kMissingDeath, kUnexpectedDeath.
enum LifecycleIssueKind : int32_t {
#define TP_X(code, c, cpp, name) k##cpp = TP_ISSUE_##c,
  TP_LIFECYCLE_ISSUE_LIST(TP_X)
#undef TP_X
};

struct LifecycleIssue {
  int32_t kind = 0;
  int32_t storage = -1;
  int32_t tensor = -1;  // the storage's root tensor, for the message
  int32_t step = -1;    // expected step (missing) or traced step (unexpected)
};

// Issues sorted by step, then kind, then storage. Bad trace entries (unknown
// tensor, step out of range) and bad orders are errors, not issues.
Status verify_lifecycle(const PlanningGraph& pg, const std::vector<int32_t>& order,
                        const std::vector<TraceEvent>& trace, std::vector<LifecycleIssue>* out);

// "missing birth of \"x\" at step 3" etc., for reports.
std::string describe_issue(const PlanningGraph& pg, const LifecycleIssue& issue);

}  // namespace tp

#endif  // TENSORPLAN_LIFECYCLE_VERIFY_H
