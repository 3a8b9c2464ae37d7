#include "graph/in_place_rule.h"

#include <algorithm>
#include <string>

namespace tp {
namespace {

bool contains(const std::vector<int32_t>& list, int32_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

Status check_request(const PlanningGraph& pg, const InPlaceRequest& request) {
  const size_t tensors = pg.graph.tensors.size();
  if (request.candidate.size() != pg.graph.ops.size()) {
    return Status::invalid("candidates: " + std::to_string(request.candidate.size()) + " values for " +
                           std::to_string(pg.graph.ops.size()) + " ops");
  }
  if (request.dtype.size() != tensors || request.elements.size() != tensors) {
    return Status::invalid("tensor sizes: " + std::to_string(request.dtype.size()) + " dtypes and " +
                           std::to_string(request.elements.size()) + " element counts for " + std::to_string(tensors) +
                           " tensors");
  }
  for (size_t k = 0; k < request.pinned.size(); ++k) {
    const int32_t t = request.pinned[k];
    if (t < 0 || static_cast<size_t>(t) >= tensors) {
      return Status::invalid("pinned[" + std::to_string(k) + "] = " + std::to_string(t) + ": unknown tensor (the graph has " +
                             std::to_string(tensors) + " tensors)");
    }
  }
  return Status::ok();
}

}  // namespace

Status decide_in_place(const PlanningGraph& pg, const InPlaceRequest& request, InPlaceDecision* out) {
  TP_RETURN_IF_ERROR(check_request(pg, request));
  const Graph& graph = pg.graph;
  const int32_t tensor_count = static_cast<int32_t>(graph.tensors.size());
  const int32_t op_count = pg.op_count();
  const int32_t storage_count = pg.storage_count();

  // The storages as the decisions so far leave them: tensor -> storage, the
  // members of each storage (tensor order, then tensors that joined later),
  // the last op touching each, and whether its bytes must be kept.
  std::vector<int32_t> storage_of = pg.storage.tensor_storage;
  std::vector<std::vector<int32_t>> members(storage_count);
  for (int32_t t = 0; t < tensor_count; ++t) members[storage_of[t]].push_back(t);
  std::vector<int32_t> last_use(storage_count, -1);
  std::vector<uint8_t> pinned(storage_count, 0);
  for (int32_t s = 0; s < storage_count; ++s) {
    if (pg.user_count(s) > 0) last_use[s] = pg.users[pg.user_offsets[s + 1] - 1];
    const Storage& storage = pg.storage.storages[s];
    // Group members share one bulk allocation laid out for them: never reuse it.
    pinned[s] = storage.graph_input || storage.graph_output || storage.persistent || storage.group >= 0;
  }
  for (int32_t t : request.pinned) pinned[storage_of[t]] = 1;
  // A tensor is written in place at most once (graph_validate: chain the mutations).
  std::vector<uint8_t> mutated(tensor_count, 0);
  for (const InPlaceAlias& alias : graph.in_place) mutated[alias.input] = 1;
  std::vector<std::vector<int32_t>> readers(tensor_count);
  for (int32_t o = 0; o < op_count; ++o) {
    for (int32_t t : graph.ops[o].inputs) readers[t].push_back(o);
  }
  auto same_size = [&](int32_t a, int32_t b) {
    if (request.dtype[a] != request.dtype[b]) return false;
    return request.dtype[a] < 0 ? graph.tensors[a].bytes == graph.tensors[b].bytes
                                : request.elements[a] == request.elements[b];
  };

  InPlaceDecision decision;
  decision.input.assign(op_count, -1);
  decision.after.assign(op_count, {});
  for (int32_t i = 0; i < op_count; ++i) {
    const GraphOp& op = graph.ops[i];
    if (!request.candidate[i] || op.outputs.empty()) continue;
    const int32_t output = op.outputs[0];
    // Output 0 must own its bytes: a view or an alias already names other bytes.
    const bool plain_output = pg.storage.alias_parent[output] < 0 &&
                              pg.storage.storages[storage_of[output]].group < 0;
    if (!plain_output) continue;
    int32_t input = -1;
    for (int32_t t : op.inputs) {
      const int32_t s = storage_of[t];
      if (!pinned[s] && !mutated[t] && last_use[s] == i && same_size(t, output)) {
        input = t;
        break;
      }
    }
    if (input < 0) continue;
    const int32_t r = storage_of[input];
    std::vector<int32_t>& after = decision.after[i];
    for (int32_t m : members[r]) {
      if (m == input) continue;
      for (int32_t j : readers[m]) {
        if (j == i || contains(graph.ops[j].inputs, input)) continue;
        if (contains(op.control_deps, j) || contains(after, j)) continue;
        after.push_back(j);
      }
    }
    decision.input[i] = input;
    decision.accepted += 1;
    mutated[input] = 1;
    // The output takes over the storage: its later uses (and its views') extend its life.
    const int32_t so = storage_of[output];
    for (int32_t m : members[so]) storage_of[m] = r;
    members[r].insert(members[r].end(), members[so].begin(), members[so].end());
    members[so].clear();
    last_use[r] = std::max(i, last_use[so]);
    if (pinned[so]) pinned[r] = 1;
  }
  *out = std::move(decision);
  return Status::ok();
}

}  // namespace tp
