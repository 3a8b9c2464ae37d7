// Checks a Graph (graph.h) and resolves it into a PlanningGraph: every tensor
// mapped to a storage (storage_map.h), the ops' dependency DAG, and for each
// op the storages it touches. Liveness, the schedulers, the fusion check and
// the lifecycle verifier all work on a PlanningGraph, so a graph is checked
// once and bad graphs never reach them.
#ifndef TENSORPLAN_GRAPH_VALIDATE_H
#define TENSORPLAN_GRAPH_VALIDATE_H

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "base/status.h"
#include "graph/storage_map.h"

namespace tp {

struct PlanningGraph {
  Graph graph;
  StorageMap storage;

  // Op that writes each tensor, -1 if none (graph inputs, persistent, unused).
  std::vector<int32_t> tensor_producer;

  // Deduplicated dependency DAG over ops (data, in-place ordering, control), CSR.
  std::vector<int32_t> pred_offsets, preds;
  std::vector<int32_t> succ_offsets, succs;

  // Distinct storages each op reads or writes, CSR; and the reverse (users).
  std::vector<int32_t> touch_offsets, touches;
  std::vector<int32_t> user_offsets, users;

  // Workspace of each op rounded up to the graph's default alignment.
  std::vector<int64_t> op_workspace;

  int32_t op_count() const { return static_cast<int32_t>(graph.ops.size()); }
  int32_t storage_count() const { return static_cast<int32_t>(storage.storages.size()); }
  int32_t user_count(int32_t s) const { return user_offsets[s + 1] - user_offsets[s]; }
};

// Validates `graph` and builds the PlanningGraph. Every failure is a Status
// naming the tensor/op/field: unknown indices, bad sizes or alignments, a
// tensor written by two ops, reads of tensors nobody writes, view/in-place
// problems, alias loops, and dependency cycles (the message lists the op
// names around the cycle). An empty graph is valid.
Status build_planning_graph(const Graph& graph, PlanningGraph* out);

}  // namespace tp

#endif  // TENSORPLAN_GRAPH_VALIDATE_H
