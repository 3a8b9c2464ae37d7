// Checks a Graph (graph.h) and resolves it into a PlanningGraph
// (planning_graph.h), so a graph is checked once and bad graphs never reach
// liveness, the schedulers, the fusion check or the lifecycle verifier.
#ifndef TENSORPLAN_GRAPH_VALIDATE_H
#define TENSORPLAN_GRAPH_VALIDATE_H

#include "base/status.h"
#include "graph/graph.h"
#include "graph/planning_graph.h"

namespace tp {

// Validates `graph` and builds the PlanningGraph. Every failure is a Status
// naming the tensor/op/field: unknown indices, bad sizes or alignments, a
// tensor written by two ops, reads of tensors nobody writes, view/in-place
// problems, alias loops, and dependency cycles (the message lists the op
// names around the cycle). An empty graph is valid.
Status build_planning_graph(const Graph& graph, PlanningGraph* out);

}  // namespace tp

#endif  // TENSORPLAN_GRAPH_VALIDATE_H
