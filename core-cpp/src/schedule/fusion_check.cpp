#include "schedule/fusion_check.h"

#include <algorithm>
#include <string>

#include "graph/graph_validate.h"

namespace tp {
namespace {

// True if a dependency path leaves the set and comes back: running the set
// as one op would then need to run before and after that outside op.
bool path_reenters(const PlanningGraph& pg, const std::vector<uint8_t>& in_set) {
  const int32_t n = pg.op_count();
  std::vector<uint8_t> seen(n, 0);
  std::vector<int32_t> stack;
  for (int32_t v = 0; v < n; ++v) {
    if (!in_set[v]) continue;
    for (int32_t k = pg.succ_offsets[v]; k < pg.succ_offsets[v + 1]; ++k) {
      const int32_t w = pg.succs[k];
      if (!in_set[w] && !seen[w]) {
        seen[w] = 1;
        stack.push_back(w);
      }
    }
  }
  while (!stack.empty()) {
    const int32_t v = stack.back();
    stack.pop_back();
    for (int32_t k = pg.succ_offsets[v]; k < pg.succ_offsets[v + 1]; ++k) {
      const int32_t w = pg.succs[k];
      if (in_set[w]) return true;
      if (!seen[w]) {
        seen[w] = 1;
        stack.push_back(w);
      }
    }
  }
  return false;
}

void push_unique(std::vector<int32_t>* list, int32_t value) {
  if (std::find(list->begin(), list->end(), value) == list->end()) list->push_back(value);
}

// Marks the listed ops in in_set, rejecting unknown and repeated ones;
// *last_member is the highest op index in the set (where the fused op goes).
Status mark_fused_ops(const PlanningGraph& pg, const std::vector<int32_t>& ops, std::vector<uint8_t>* in_set,
                      int32_t* last_member) {
  const int32_t n = pg.op_count();
  in_set->assign(n, 0);
  *last_member = -1;
  for (size_t i = 0; i < ops.size(); ++i) {
    const int32_t op = ops[i];
    if (op < 0 || op >= n) {
      return Status::invalid("fused_ops[" + std::to_string(i) + "] = " + std::to_string(op) + ": unknown op (the graph has " +
                             std::to_string(n) + " ops)");
    }
    if ((*in_set)[op]) {
      return Status::invalid("fused_ops[" + std::to_string(i) + "] = " + op_label(pg.graph, op) + ": listed twice");
    }
    (*in_set)[op] = 1;
    *last_member = std::max(*last_member, op);
  }
  return Status::ok();
}

// The set seen from outside. Storages used only inside the set vanish: the
// fused kernel keeps them in registers. Everything else the set reads from
// outside is an input; what it writes that survives the set is an output.
class FusedSet {
 public:
  FusedSet(const PlanningGraph& pg, const std::vector<uint8_t>& in_set, int32_t last_member)
      : pg_(pg), in_set_(in_set), last_member_(last_member), internal_(pg.storage_count(), 0) {
    const std::vector<Storage>& storages = pg.storage.storages;
    for (int32_t s = 0; s < pg.storage_count(); ++s) {
      const Storage& st = storages[s];
      if (st.graph_input || st.graph_output || st.persistent || pg.user_count(s) == 0) continue;
      bool all_inside = true;
      for (int32_t k = pg.user_offsets[s]; k < pg.user_offsets[s + 1] && all_inside; ++k) all_inside = in_set[pg.users[k]] != 0;
      internal_[s] = all_inside ? 1 : 0;
    }
  }

  bool is_internal(int32_t t) const { return internal_[pg_.storage.tensor_storage[t]] != 0; }
  bool made_inside(int32_t t) const { return pg_.tensor_producer[t] >= 0 && in_set_[pg_.tensor_producer[t]]; }

  // The one op that replaces the set: named after its members, with their
  // outside inputs and surviving outputs, and all their workspaces at once.
  GraphOp fused_op() const {
    const Graph& graph = pg_.graph;
    GraphOp fused;
    fused.type = "fused";
    fused.name = "fused(";
    for (int32_t v = 0; v < pg_.op_count(); ++v) {
      if (!in_set_[v]) continue;
      const GraphOp& op = graph.ops[v];
      fused.name += (fused.name.size() > 6 ? "+" : "") + (op.name.empty() ? "op" + std::to_string(v) : op.name);
      for (int32_t t : op.inputs) {
        if (!made_inside(t) && !is_internal(t)) push_unique(&fused.inputs, t);
      }
      for (int32_t t : op.outputs) {
        if (!is_internal(t)) push_unique(&fused.outputs, t);
      }
      fused.workspace += op.workspace;  // all alive at once
    }
    fused.name += ")";
    return fused;
  }

  // The graph with the set replaced by fused_op() at the last member's place;
  // *fused_index is that op's index in it. Internal tensors stay in the
  // tensor table (unused); aliases and groups among them are dropped.
  Graph fused_graph(int32_t* fused_index) const {
    const Graph& graph = pg_.graph;
    const int32_t n = pg_.op_count();
    Graph g;
    g.tensors = graph.tensors;
    g.inputs = graph.inputs;
    g.outputs = graph.outputs;
    g.persistent = graph.persistent;
    g.default_alignment = graph.default_alignment;
    std::vector<int32_t> new_index(n, -1);
    int32_t next = 0;
    for (int32_t v = 0; v < n; ++v) {
      if (!in_set_[v]) new_index[v] = next++;
      else if (v == last_member_) new_index[v] = next++;
    }
    for (int32_t v = 0; v < n; ++v) {
      if (in_set_[v]) new_index[v] = new_index[last_member_];
    }
    const GraphOp fused = fused_op();
    for (int32_t v = 0; v < n; ++v) {
      if (in_set_[v] && v != last_member_) continue;
      GraphOp op = in_set_[v] ? fused : graph.ops[v];
      std::vector<int32_t> deps;
      const std::vector<int32_t>& old_deps = graph.ops[v].control_deps;
      if (in_set_[v]) {
        for (int32_t u = 0; u < n; ++u) {
          if (!in_set_[u]) continue;
          for (int32_t d : graph.ops[u].control_deps) {
            if (!in_set_[d]) push_unique(&deps, new_index[d]);
          }
        }
      } else {
        for (int32_t d : old_deps) push_unique(&deps, new_index[d]);
      }
      op.control_deps = deps;
      g.ops.push_back(std::move(op));
    }
    for (const ViewAlias& view : graph.views) {
      if (!is_internal(view.tensor)) g.views.push_back(view);
    }
    for (const InPlaceAlias& alias : graph.in_place) {
      if (is_internal(alias.output)) continue;
      if (made_inside(alias.output) && made_inside(alias.input)) {
        // Both ends are written by the fused op: the output is simply the same bytes.
        g.views.push_back(ViewAlias{alias.output, alias.input, 0});
      } else {
        g.in_place.push_back(alias);
      }
    }
    for (const TensorGroup& group : graph.groups) {
      if (!is_internal(group.members[0])) g.groups.push_back(group);
    }
    *fused_index = new_index[last_member_];
    return g;
  }

 private:
  const PlanningGraph& pg_;
  const std::vector<uint8_t>& in_set_;
  int32_t last_member_;
  std::vector<uint8_t> internal_;
};

}  // namespace

Status check_fusion(const PlanningGraph& pg, const std::vector<int32_t>& ops, const FusionLimits& limits,
                    FusionCheck* out) {
  const Graph& graph = pg.graph;
  if (ops.empty()) return Status::invalid("fused ops: the set is empty");
  if (limits.max_read_bytes < 0) {
    return Status::invalid("max_read_bytes = " + std::to_string(limits.max_read_bytes) + ": must be >= 0");
  }
  std::vector<uint8_t> in_set;
  int32_t last_member = -1;
  TP_RETURN_IF_ERROR(mark_fused_ops(pg, ops, &in_set, &last_member));
  FusionCheck check;
  ScheduleResult before;
  TP_RETURN_IF_ERROR(schedule_graph(pg, limits.schedule, &before));
  check.peak_before = before.peak;
  if (path_reenters(pg, in_set)) {
    check.creates_cycle = true;
    *out = std::move(check);
    return Status::ok();
  }

  const FusedSet set(pg, in_set, last_member);
  int32_t f = -1;
  check.fused_graph = set.fused_graph(&f);
  PlanningGraph fused_pg;
  Status status = build_planning_graph(check.fused_graph, &fused_pg);
  if (!status.is_ok()) return Status(status.code(), "fused graph: " + status.message());
  ScheduleResult after;
  TP_RETURN_IF_ERROR(schedule_graph(fused_pg, limits.schedule, &after));
  check.peak_after = after.peak;

  // What the fused step reads, and what it holds at once (its workspace and
  // every storage it touches).
  for (int32_t t : fused_pg.graph.ops[f].inputs) check.read_bytes += graph.tensors[t].bytes;
  check.fused_step_bytes = fused_pg.op_workspace[f];
  for (int32_t k = fused_pg.touch_offsets[f]; k < fused_pg.touch_offsets[f + 1]; ++k) {
    check.fused_step_bytes += fused_pg.storage.storages[fused_pg.touches[k]].arena_bytes();
  }
  check.raises_peak = check.peak_after > check.peak_before;
  check.reads_too_large = limits.max_read_bytes > 0 && check.read_bytes > limits.max_read_bytes;
  check.accepted = !check.raises_peak && !check.reads_too_large;
  *out = std::move(check);
  return Status::ok();
}

}  // namespace tp
