#include "graph/graph_validate.h"

#include <algorithm>
#include <string>

#include "base/noinline.h"

namespace tp {
namespace {

Status check_tensor_index(const Graph& graph, int32_t tensor, const std::string& field) {
  if (tensor < 0 || tensor >= static_cast<int32_t>(graph.tensors.size())) {
    return Status::invalid(field + " = " + std::to_string(tensor) + ": unknown tensor (the graph has " +
                           std::to_string(graph.tensors.size()) + " tensors)");
  }
  return Status::ok();
}

Status check_op_index(const Graph& graph, int32_t op, const std::string& field) {
  if (op < 0 || op >= static_cast<int32_t>(graph.ops.size())) {
    return Status::invalid(field + " = " + std::to_string(op) + ": unknown op (the graph has " +
                           std::to_string(graph.ops.size()) + " ops)");
  }
  return Status::ok();
}

Status check_bytes(int64_t bytes, const std::string& field) {
  if (bytes < 0) return Status::invalid(field + " = " + std::to_string(bytes) + ": must be >= 0");
  if (bytes > kMaxExactInteger) return Status::out_of_range(field + " = " + std::to_string(bytes) + ": exceeds 2^53");
  return Status::ok();
}

TP_NOINLINE Status check_indices(const Graph& graph) {
  if (!is_power_of_two(graph.default_alignment)) {
    return Status::invalid("default_alignment = " + std::to_string(graph.default_alignment) +
                           ": must be a power of two >= 1");
  }
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const std::string field = "tensors[" + std::to_string(t) + "]";
    TP_RETURN_IF_ERROR(check_bytes(graph.tensors[t].bytes, field + ".bytes"));
    const int64_t a = graph.tensors[t].alignment;
    if (a != 0 && !is_power_of_two(a)) {
      return Status::invalid(field + ".alignment = " + std::to_string(a) + ": must be a power of two (or 0 = default)");
    }
  }
  for (size_t o = 0; o < graph.ops.size(); ++o) {
    const GraphOp& op = graph.ops[o];
    const std::string field = "ops[" + std::to_string(o) + "]";
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      TP_RETURN_IF_ERROR(check_tensor_index(graph, op.inputs[i], field + ".inputs[" + std::to_string(i) + "]"));
    }
    for (size_t i = 0; i < op.outputs.size(); ++i) {
      TP_RETURN_IF_ERROR(check_tensor_index(graph, op.outputs[i], field + ".outputs[" + std::to_string(i) + "]"));
    }
    for (size_t i = 0; i < op.control_deps.size(); ++i) {
      TP_RETURN_IF_ERROR(check_op_index(graph, op.control_deps[i], field + ".control_deps[" + std::to_string(i) + "]"));
    }
    TP_RETURN_IF_ERROR(check_bytes(op.workspace, field + ".workspace"));
  }
  const std::pair<const std::vector<int32_t>*, const char*> lists[] = {
      {&graph.inputs, "inputs"}, {&graph.outputs, "outputs"}, {&graph.persistent, "persistent"}};
  for (const auto& list : lists) {
    for (size_t i = 0; i < list.first->size(); ++i) {
      TP_RETURN_IF_ERROR(check_tensor_index(graph, (*list.first)[i], std::string(list.second) + "[" + std::to_string(i) + "]"));
    }
  }
  for (size_t k = 0; k < graph.views.size(); ++k) {
    const std::string field = "views[" + std::to_string(k) + "]";
    TP_RETURN_IF_ERROR(check_tensor_index(graph, graph.views[k].tensor, field + ".tensor"));
    TP_RETURN_IF_ERROR(check_tensor_index(graph, graph.views[k].base, field + ".base"));
  }
  for (size_t k = 0; k < graph.in_place.size(); ++k) {
    const std::string field = "in_place[" + std::to_string(k) + "]";
    TP_RETURN_IF_ERROR(check_tensor_index(graph, graph.in_place[k].output, field + ".output"));
    TP_RETURN_IF_ERROR(check_tensor_index(graph, graph.in_place[k].input, field + ".input"));
  }
  for (size_t g = 0; g < graph.groups.size(); ++g) {
    for (size_t m = 0; m < graph.groups[g].members.size(); ++m) {
      TP_RETURN_IF_ERROR(check_tensor_index(graph, graph.groups[g].members[m],
                                            "groups[" + std::to_string(g) + "].members[" + std::to_string(m) + "]"));
    }
  }
  return Status::ok();
}

// Each tensor has one writer. A mutation is expressed as an in-place alias
// (a new output tensor naming the same storage), never as a second writer.
TP_NOINLINE Status find_producers(const Graph& graph, std::vector<int32_t>* producer) {
  producer->assign(graph.tensors.size(), -1);
  std::vector<uint8_t> is_input(graph.tensors.size(), 0);
  for (int32_t t : graph.inputs) is_input[t] = 1;
  for (size_t o = 0; o < graph.ops.size(); ++o) {
    for (int32_t t : graph.ops[o].outputs) {
      const int32_t op = static_cast<int32_t>(o);
      if ((*producer)[t] >= 0) {
        return Status::invalid("tensor " + tensor_label(graph, t) + " is written by " +
                               op_label(graph, (*producer)[t]) +
                               ((*producer)[t] == op ? " twice" : " and by " + op_label(graph, op)) +
                               " (a mutation needs an in-place alias with a new output tensor)");
      }
      if (is_input[t]) {
        return Status::invalid("graph input " + tensor_label(graph, t) + " is written by " + op_label(graph, op) +
                               " (a mutation needs an in-place alias with a new output tensor)");
      }
      (*producer)[t] = op;
    }
  }
  return Status::ok();
}

TP_NOINLINE Status check_in_place(const Graph& graph, const std::vector<int32_t>& producer) {
  std::vector<int32_t> mutated_by(graph.tensors.size(), -1);
  for (size_t k = 0; k < graph.in_place.size(); ++k) {
    const InPlaceAlias& alias = graph.in_place[k];
    const std::string field = "in_place[" + std::to_string(k) + "]";
    const int32_t op = producer[alias.output];
    if (op < 0) {
      return Status::invalid(field + ": in-place output " + tensor_label(graph, alias.output) + " is written by no op");
    }
    const std::vector<int32_t>& reads = graph.ops[op].inputs;
    if (std::find(reads.begin(), reads.end(), alias.input) == reads.end()) {
      return Status::invalid(field + ": " + op_label(graph, op) + " writes " + tensor_label(graph, alias.output) +
                             " in place of " + tensor_label(graph, alias.input) + " but does not read it");
    }
    // Two mutations of the same tensor would both claim its bytes; chain them instead.
    if (mutated_by[alias.input] >= 0) {
      return Status::invalid(field + ": tensor " + tensor_label(graph, alias.input) + " is mutated in place twice (in_place[" +
                             std::to_string(mutated_by[alias.input]) + "] and in_place[" + std::to_string(k) +
                             "]); chain the mutations through the first output");
    }
    mutated_by[alias.input] = static_cast<int32_t>(k);
  }
  return Status::ok();
}

// The op whose run makes tensor t exist: its writer, else (for a view that
// no op writes) whatever makes its base exist. -1 means it exists from the
// start (graph input, persistent) or never.
int32_t effective_producer(const PlanningGraph& pg, int32_t t) {
  while (t >= 0) {
    if (pg.tensor_producer[t] >= 0) return pg.tensor_producer[t];
    t = pg.storage.alias_parent[t];
  }
  return -1;
}

void build_csr(int32_t count, std::vector<std::vector<int32_t>>* lists, std::vector<int32_t>* offsets,
               std::vector<int32_t>* values) {
  offsets->assign(count + 1, 0);
  values->clear();
  for (int32_t i = 0; i < count; ++i) {
    std::vector<int32_t>& list = (*lists)[i];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    values->insert(values->end(), list.begin(), list.end());
    (*offsets)[i + 1] = static_cast<int32_t>(values->size());
  }
}

Status check_acyclic(const PlanningGraph& pg) {
  const int32_t n = pg.op_count();
  std::vector<int32_t> indegree(n), queue;
  for (int32_t v = 0; v < n; ++v) {
    indegree[v] = pg.pred_offsets[v + 1] - pg.pred_offsets[v];
    if (indegree[v] == 0) queue.push_back(v);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const int32_t v = queue[head];
    for (int32_t k = pg.succ_offsets[v]; k < pg.succ_offsets[v + 1]; ++k) {
      if (--indegree[pg.succs[k]] == 0) queue.push_back(pg.succs[k]);
    }
  }
  if (static_cast<int32_t>(queue.size()) == n) return Status::ok();
  // Every op left over has a predecessor that is also left over, so walking
  // back through left-over predecessors must revisit an op: that is a cycle.
  int32_t v = 0;
  while (indegree[v] == 0) ++v;
  std::vector<int32_t> seen_at(n, -1), walk;
  while (seen_at[v] < 0) {
    seen_at[v] = static_cast<int32_t>(walk.size());
    walk.push_back(v);
    int32_t next = -1;
    for (int32_t k = pg.pred_offsets[v]; k < pg.pred_offsets[v + 1] && next < 0; ++k) {
      if (indegree[pg.preds[k]] > 0) next = pg.preds[k];
    }
    v = next;
  }
  // walk[seen_at[v]..] runs backwards along the edges; print it forwards.
  std::string names;
  for (size_t i = walk.size(); i-- > static_cast<size_t>(seen_at[v]);) names += op_label(pg.graph, walk[i]) + " -> ";
  return Status::invalid("dependency cycle: " + names + op_label(pg.graph, walk.back()));
}

// A tensor that is read (or must survive as an output) must come from
// somewhere: an op, a graph input, or persistent state.
TP_NOINLINE Status check_reads_have_source(const PlanningGraph& pg) {
  const Graph& graph = pg.graph;
  const int32_t n = static_cast<int32_t>(graph.ops.size());
  const int32_t tensor_count = static_cast<int32_t>(graph.tensors.size());
  std::vector<uint8_t> exists_at_start(tensor_count, 0);
  for (int32_t t = 0; t < tensor_count; ++t) {
    const Storage& s = pg.storage.storages[pg.storage.tensor_storage[t]];
    exists_at_start[t] = (s.graph_input || s.persistent) ? 1 : 0;
  }
  for (int32_t o = 0; o < n; ++o) {
    for (int32_t t : graph.ops[o].inputs) {
      if (!exists_at_start[t] && effective_producer(pg, t) < 0) {
        return Status::invalid(op_label(graph, o) + " reads " + tensor_label(graph, t) +
                               ", which no op writes and which is not a graph input or persistent");
      }
    }
  }
  for (int32_t t : graph.outputs) {
    if (!exists_at_start[t] && effective_producer(pg, t) < 0) {
      return Status::invalid("graph output " + tensor_label(graph, t) + " is written by no op and is not a graph input");
    }
  }
  return Status::ok();
}

// The dependencies the graph states: producers of what an op reads, of what
// an op writes into an alias of, and its control dependencies (unsorted,
// with repeats; build_csr sorts them).
TP_NOINLINE std::vector<std::vector<int32_t>> stated_dependencies(const PlanningGraph& pg) {
  const Graph& graph = pg.graph;
  const int32_t n = static_cast<int32_t>(graph.ops.size());
  std::vector<std::vector<int32_t>> preds(n);
  for (int32_t o = 0; o < n; ++o) {
    const GraphOp& op = graph.ops[o];
    for (int32_t t : op.inputs) {
      const int32_t p = effective_producer(pg, t);
      if (p >= 0) preds[o].push_back(p);
    }
    // Writing into an alias needs the aliased bytes to exist first.
    for (int32_t t : op.outputs) {
      const int32_t parent = pg.storage.alias_parent[t];
      const int32_t p = parent >= 0 ? effective_producer(pg, parent) : -1;
      if (p >= 0 && p != o) preds[o].push_back(p);  // an op may write a base and its view
    }
    for (int32_t d : op.control_deps) preds[o].push_back(d);
  }
  return preds;
}

// A mutation overwrites its input: every other reader of the old value
// must run before it (write-after-read). The old value is read through the
// input itself and through every tensor aliased inside it (its views, their
// views, earlier in-place versions of those), but not through the
// mutation's own output and what aliases that: those hold the new value.
TP_NOINLINE void add_write_after_read_edges(const PlanningGraph& pg, std::vector<std::vector<int32_t>>* preds) {
  const Graph& graph = pg.graph;
  if (graph.in_place.empty()) return;
  const int32_t n = static_cast<int32_t>(graph.ops.size());
  const int32_t tensor_count = static_cast<int32_t>(graph.tensors.size());
  std::vector<std::vector<int32_t>> readers(tensor_count), aliased_inside(tensor_count);
  for (int32_t o = 0; o < n; ++o) {
    for (int32_t t : graph.ops[o].inputs) readers[t].push_back(o);
  }
  for (int32_t t = 0; t < tensor_count; ++t) {
    if (pg.storage.alias_parent[t] >= 0) aliased_inside[pg.storage.alias_parent[t]].push_back(t);
  }
  std::vector<int32_t> stack;
  for (const InPlaceAlias& alias : graph.in_place) {
    const int32_t writer = pg.tensor_producer[alias.output];
    stack.assign(1, alias.input);
    while (!stack.empty()) {
      const int32_t t = stack.back();
      stack.pop_back();
      for (int32_t o : readers[t]) {
        if (o != writer) (*preds)[writer].push_back(o);
      }
      for (int32_t inner : aliased_inside[t]) {
        if (inner != alias.output) stack.push_back(inner);
      }
    }
  }
}

// Stores the dependencies both ways (preds and succs) and rejects any cycle,
// the one-op cycle first (its message names the op once).
TP_NOINLINE Status link_dependencies(std::vector<std::vector<int32_t>>* preds, PlanningGraph* pg) {
  const Graph& graph = pg->graph;
  const int32_t n = static_cast<int32_t>(graph.ops.size());
  for (int32_t o = 0; o < n; ++o) {
    for (int32_t p : (*preds)[o]) {
      if (p == o) {
        return Status::invalid("dependency cycle: " + op_label(graph, o) + " -> " + op_label(graph, o) +
                               " (the op depends on itself)");
      }
    }
  }
  build_csr(n, preds, &pg->pred_offsets, &pg->preds);
  std::vector<std::vector<int32_t>> succs(n);
  for (int32_t o = 0; o < n; ++o) {
    for (int32_t k = pg->pred_offsets[o]; k < pg->pred_offsets[o + 1]; ++k) succs[pg->preds[k]].push_back(o);
  }
  build_csr(n, &succs, &pg->succ_offsets, &pg->succs);
  const Status acyclic = check_acyclic(*pg);
  if (!acyclic.is_ok() && !graph.in_place.empty()) {
    // The write-after-read edges are the ones a user does not see in the graph.
    return Status::invalid(acyclic.message() +
                           " (an in-place mutation runs after every other reader of the value it overwrites, "
                           "including readers of views of its input; read the mutation's output instead to see the new value)");
  }
  return acyclic;
}

// The storages each op touches (inputs then outputs) and the ops that use
// each storage: what liveness and the schedulers walk.
TP_NOINLINE void link_storage_users(PlanningGraph* pg) {
  const Graph& graph = pg->graph;
  const int32_t n = static_cast<int32_t>(graph.ops.size());
  const int32_t storage_count = pg->storage_count();
  std::vector<std::vector<int32_t>> touch(n), users(storage_count);
  for (int32_t o = 0; o < n; ++o) {
    for (int32_t t : graph.ops[o].inputs) touch[o].push_back(pg->storage.tensor_storage[t]);
    for (int32_t t : graph.ops[o].outputs) touch[o].push_back(pg->storage.tensor_storage[t]);
  }
  build_csr(n, &touch, &pg->touch_offsets, &pg->touches);
  for (int32_t o = 0; o < n; ++o) {
    for (int32_t k = pg->touch_offsets[o]; k < pg->touch_offsets[o + 1]; ++k) users[pg->touches[k]].push_back(o);
  }
  build_csr(storage_count, &users, &pg->user_offsets, &pg->users);
}

// Each op's workspace rounded up to the graph's default alignment.
TP_NOINLINE Status align_workspaces(PlanningGraph* pg) {
  const Graph& graph = pg->graph;
  const int32_t n = static_cast<int32_t>(graph.ops.size());
  pg->op_workspace.assign(n, 0);
  for (int32_t o = 0; o < n; ++o) {
    TP_RETURN_IF_ERROR(checked_round_up(graph.ops[o].workspace, graph.default_alignment,
                                        "workspace of " + op_label(graph, o), &pg->op_workspace[o]));
  }
  return Status::ok();
}

}  // namespace

Status build_planning_graph(const Graph& graph, PlanningGraph* out) {
  TP_RETURN_IF_ERROR(check_indices(graph));
  PlanningGraph pg;
  pg.graph = graph;
  TP_RETURN_IF_ERROR(find_producers(graph, &pg.tensor_producer));
  TP_RETURN_IF_ERROR(check_in_place(graph, pg.tensor_producer));
  TP_RETURN_IF_ERROR(resolve_storages(graph, &pg.storage));
  TP_RETURN_IF_ERROR(check_reads_have_source(pg));
  std::vector<std::vector<int32_t>> preds = stated_dependencies(pg);
  add_write_after_read_edges(pg, &preds);
  TP_RETURN_IF_ERROR(link_dependencies(&preds, &pg));
  link_storage_users(&pg);
  TP_RETURN_IF_ERROR(align_workspaces(&pg));
  *out = std::move(pg);
  return Status::ok();
}

}  // namespace tp
