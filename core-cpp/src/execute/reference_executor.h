// The reference executor (docs/op-set.md, PLANNING.md §6): runs a plan's
// schedule with the reference kernels in host memory, through the one
// executor loop (execute_lifecycle.h): every storage at its planned offset
// in ONE arena buffer (persistent tensors in their own), or every storage in
// its own allocation, and the lifecycle trace that verify_lifecycle checks.
// It is the oracle of the planner: the same graph executed with every
// storage in its own allocation must give bit-identical outputs.
#ifndef TENSORPLAN_REFERENCE_EXECUTOR_H
#define TENSORPLAN_REFERENCE_EXECUTOR_H

#include "execute/execute_lifecycle.h"
#include "graph/planning_graph.h"
#include "base/status.h"

namespace tp {

// Buffers that cannot be allocated (an arena of 2^52 bytes) fail with
// TP_ERR_OUT_OF_MEMORY naming the buffer and its bytes.
Status execute_reference(const PlanningGraph& pg, const OpSemantics& semantics, const ExecRequest& request,
                         ExecResult* out);

}  // namespace tp

#endif  // TENSORPLAN_REFERENCE_EXECUTOR_H
