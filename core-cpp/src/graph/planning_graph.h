// A Graph (graph.h) checked and resolved: every tensor mapped to a storage
// (storage_map.h), the ops' dependency DAG, and for each op the storages it
// touches. Liveness, the schedulers, the fusion check, the lifecycle verifier,
// placement and the executors all work on a PlanningGraph, which only
// build_planning_graph (graph_validate.h) makes, so bad graphs never reach them.
#ifndef TENSORPLAN_PLANNING_GRAPH_H
#define TENSORPLAN_PLANNING_GRAPH_H

#include <cstdint>
#include <vector>

#include "graph/graph.h"
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

}  // namespace tp

#endif  // TENSORPLAN_PLANNING_GRAPH_H
