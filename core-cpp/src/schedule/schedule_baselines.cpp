#include "schedule/schedule_baselines.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <queue>
#include <tuple>

#include "schedule/post_order.h"
#include "graph/graph.h"

namespace tp {
namespace {

// Whether a baseline that has emitted `steps` ops should stop: the clock is
// read every 16 steps (a step of a list scheduler can scan its ready set).
bool cut(const Deadline& deadline, size_t steps) { return (steps & 15) == 0 && deadline.clock_passed(); }

// Kahn's algorithm taking the smallest index first.
std::vector<int32_t> lowest_index_topological(const PlanningGraph& pg, const Deadline& deadline) {
  const int32_t n = pg.op_count();
  std::vector<int32_t> missing(n), order;
  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<int32_t>> ready;
  for (int32_t v = 0; v < n; ++v) {
    missing[v] = pg.pred_offsets[v + 1] - pg.pred_offsets[v];
    if (missing[v] == 0) ready.push(v);
  }
  order.reserve(n);
  while (!ready.empty()) {
    if (cut(deadline, order.size())) return {};
    const int32_t v = ready.top();
    ready.pop();
    order.push_back(v);
    for (int32_t k = pg.succ_offsets[v]; k < pg.succ_offsets[v + 1]; ++k) {
      if (--missing[pg.succs[k]] == 0) ready.push(pg.succs[k]);
    }
  }
  return order;
}

}  // namespace

std::vector<int32_t> schedule_given(const PlanningGraph& pg) {
  const int32_t n = pg.op_count();
  bool in_order = true;
  for (int32_t v = 0; v < n && in_order; ++v) {
    for (int32_t k = pg.pred_offsets[v]; k < pg.pred_offsets[v + 1]; ++k) {
      if (pg.preds[k] > v) in_order = false;
    }
  }
  if (!in_order) return lowest_index_topological(pg, Deadline::none());
  std::vector<int32_t> order(n);
  for (int32_t v = 0; v < n; ++v) order[v] = v;
  return order;
}

// Declared in post_order.h.
std::vector<int32_t> post_order(int32_t n, const std::vector<int32_t>& roots, const Deadline& deadline,
                                const std::function<void(int32_t, std::vector<int32_t>*)>& children) {
  std::vector<uint8_t> seen(n, 0);
  std::vector<int32_t> order;
  order.reserve(n);
  struct Frame {
    int32_t op;
    std::vector<int32_t> kids;
    size_t next;
  };
  std::vector<Frame> stack;
  for (int32_t root : roots) {
    if (seen[root]) continue;
    seen[root] = 1;
    stack.push_back({root, {}, 0});
    children(root, &stack.back().kids);
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.kids.size()) {
        const int32_t w = top.kids[top.next++];
        if (seen[w]) continue;
        seen[w] = 1;
        stack.push_back({w, {}, 0});
        children(w, &stack.back().kids);
      } else {
        if (cut(deadline, order.size())) return {};
        order.push_back(top.op);
        stack.pop_back();
      }
    }
  }
  return order;
}

namespace {

// XLA's view of a PlanningGraph: the HLO instructions, values and uses that
// openxla/xla's memory schedulers read (commit 62046af07625,
// xla/hlo/transforms/simplifiers/hlo_memory_scheduler.cc; post-order from
// xla/hlo/ir/hlo_computation.cc at b75ac6f3c2c0). The mapping is in
// docs/scheduling.md ("XLA's baselines"):
//   instruction      an op, a parameter per graph-input or persistent tensor
//                    that no op writes (kParameter / kConstant: their values
//                    are ignored by the heuristics), and a ROOT tuple whose
//                    operands make the graph outputs
//   instructions()   parameters (graph inputs, then persistent), the ops in
//                    the given order, the ROOT tuple last
//   HloValue         a storage, defined by the op that makes it (its first
//                    user in the given order) at its aligned bytes; the op's
//                    workspace is a value it defines and nobody uses
//   operands         the instructions that write the tensors an op reads (a
//                    view reads what writes its base), deduplicated, in order
//   control preds    the op's other predecessors (control, write-after-read)
//   uses(op)         the storages it touches but does not make
//   live out         graph-output storages (one implicit extra use)
struct XlaView {
  int32_t ops = 0, nodes = 0, root = -1;
  std::vector<int32_t> instructions;                 // instructions() order
  std::vector<std::vector<int32_t>> operands, users, control_preds, control_succs;
  std::vector<int64_t> defined;                      // bytes of the values a node defines
  std::vector<uint8_t> ignored;                      // kParameter / kConstant
  std::vector<std::vector<int32_t>> uses;            // storages (values) a node uses
  std::vector<std::string> names;
};

XlaView xla_view(const PlanningGraph& pg) {
  const Graph& g = pg.graph;
  const int32_t n = pg.op_count();
  XlaView x;
  x.ops = n;
  std::vector<int32_t> param_of(g.tensors.size(), -1);
  int32_t next = n;
  auto add_param = [&](int32_t t) {
    if (pg.tensor_producer[t] < 0 && param_of[t] < 0) param_of[t] = next++;
  };
  for (int32_t t : g.inputs) add_param(t);
  for (int32_t t : g.persistent) add_param(t);
  const int32_t params = next - n;
  const bool tuple = !g.outputs.empty();
  x.root = tuple ? next++ : -1;
  x.nodes = next;
  x.operands.assign(x.nodes, {});
  x.users.assign(x.nodes, {});
  x.control_preds.assign(x.nodes, {});
  x.control_succs.assign(x.nodes, {});
  x.defined.assign(x.nodes, 0);
  x.ignored.assign(x.nodes, 0);
  x.uses.assign(x.nodes, {});
  x.names.assign(x.nodes, {});
  for (int32_t v = 0; v < n; ++v) x.names[v] = op_label(g, v);
  for (int32_t p = n; p < n + params; ++p) x.ignored[p] = 1;
  // The instruction that writes tensor t: its producer, or what writes the
  // tensor it is a view / in-place alias of; a parameter; -1 for none.
  auto writer = [&](int32_t t) {
    for (int32_t u = t; u >= 0; u = pg.storage.alias_parent[u]) {
      if (pg.tensor_producer[u] >= 0) return pg.tensor_producer[u];
      if (param_of[u] >= 0) return param_of[u];
    }
    return -1;
  };
  auto add_unique = [](std::vector<int32_t>* list, int32_t value) {
    if (std::find(list->begin(), list->end(), value) == list->end()) list->push_back(value);
  };
  const std::vector<int32_t> given = schedule_given(pg);
  std::vector<int32_t> position(n);
  for (int32_t i = 0; i < n; ++i) position[given[i]] = i;
  std::vector<int32_t> maker(pg.storage_count(), -1);
  for (int32_t s = 0; s < pg.storage_count(); ++s) {
    const Storage& storage = pg.storage.storages[s];
    if (storage.graph_input || storage.persistent) continue;
    for (int32_t k = pg.user_offsets[s]; k < pg.user_offsets[s + 1]; ++k) {
      const int32_t op = pg.users[k];
      if (maker[s] < 0 || position[op] < position[maker[s]]) maker[s] = op;
    }
  }
  for (int32_t v = 0; v < n; ++v) {
    for (int32_t t : g.ops[v].inputs) {
      const int32_t w = writer(t);
      if (w >= 0 && w != v) add_unique(&x.operands[v], w);
    }
    for (int32_t k = pg.pred_offsets[v]; k < pg.pred_offsets[v + 1]; ++k) {
      const int32_t p = pg.preds[k];
      if (std::find(x.operands[v].begin(), x.operands[v].end(), p) == x.operands[v].end()) {
        x.control_preds[v].push_back(p);
        x.control_succs[p].push_back(v);
      }
    }
    x.defined[v] = pg.op_workspace[v];
    for (int32_t k = pg.touch_offsets[v]; k < pg.touch_offsets[v + 1]; ++k) {
      const int32_t s = pg.touches[k];
      if (maker[s] == v) {
        x.defined[v] += pg.storage.storages[s].arena_bytes();
      } else {
        x.uses[v].push_back(s);
      }
    }
  }
  if (tuple) {
    x.names[x.root] = "ROOT";
    // Marks instead of add_unique's scan: a graph may have 10^5 outputs
    // (the scans took 1.8 s of a 1 s limit on a 10^5-op fan-out).
    std::vector<uint8_t> operand_seen(static_cast<size_t>(x.nodes), 0), use_seen(static_cast<size_t>(pg.storage_count()), 0);
    for (int32_t t : g.outputs) {
      const int32_t w = writer(t);
      if (w >= 0 && !operand_seen[static_cast<size_t>(w)]) {
        operand_seen[static_cast<size_t>(w)] = 1;
        x.operands[x.root].push_back(w);
      }
      const int32_t s = pg.storage.tensor_storage[t];
      if (!use_seen[static_cast<size_t>(s)]) {
        use_seen[static_cast<size_t>(s)] = 1;
        x.uses[x.root].push_back(s);
      }
    }
    // A tuple's own value is its table of pointers (ShapeUtil::ByteSizeOf
    // with 8-byte pointers).
    x.defined[x.root] = 8 * static_cast<int64_t>(g.outputs.size());
  }
  // users() in the order the users were made: ops in index order, ROOT last.
  for (int32_t v = 0; v < x.nodes; ++v) {
    for (int32_t w : x.operands[v]) x.users[w].push_back(v);
  }
  for (int32_t p = n; p < n + params; ++p) x.instructions.push_back(p);
  for (int32_t v : given) x.instructions.push_back(v);
  if (tuple) x.instructions.push_back(x.root);
  return x;
}

// Keeps only the ops of a sequence of instructions.
std::vector<int32_t> ops_only(const XlaView& x, const std::vector<int32_t>& sequence) {
  std::vector<int32_t> order;
  order.reserve(x.ops);
  for (int32_t v : sequence) {
    if (v < x.ops) order.push_back(v);
  }
  return order;
}

// HloComputation::MakeInstructionPostOrder over XlaView nodes.
std::vector<int32_t> xla_post_order_nodes(const XlaView& x, const Deadline& deadline) {
  std::vector<int32_t> roots;
  for (int32_t v : x.instructions) {
    if (x.users[v].empty()) roots.push_back(v);
  }
  return post_order(x.nodes, roots, deadline, [&](int32_t v, std::vector<int32_t>* kids) {
    kids->assign(x.control_preds[v].rbegin(), x.control_preds[v].rend());
    kids->insert(kids->end(), x.operands[v].begin(), x.operands[v].end());
  });
}

}  // namespace

// ListScheduler::CreateSchedule (hlo_memory_scheduler.cc, openxla/xla
// 62046af07625). Priority = (bytes freed - bytes defined, user count), the
// highest first; the ready queue is a std::multimap and the pick is its last
// element, so among equal priorities the most recently inserted wins (an
// entry whose priority changed is re-inserted). bytes freed: the used values
// whose unscheduled use count is 1 (live-out values start with one extra
// use; parameter and constant values are ignored). Priorities are refreshed
// only when a count drops to 1, and only for ready users of the scheduled
// instruction's operands. Not modelled: the scalar rule (IsEffectiveScalar:
// tensorplan has no shapes), infeed/outfeed and subcomputations.
std::vector<int32_t> schedule_xla_list(const PlanningGraph& pg, const Deadline& deadline) {
  const XlaView x = xla_view(pg);
  std::vector<int64_t> use_count(pg.storage_count(), 0);
  std::vector<uint8_t> ignored_value(pg.storage_count(), 0);
  for (int32_t s = 0; s < pg.storage_count(); ++s) {
    const Storage& storage = pg.storage.storages[s];
    use_count[s] = storage.graph_output ? 1 : 0;
    ignored_value[s] = storage.graph_input || storage.persistent ? 1 : 0;
  }
  for (int32_t v = 0; v < x.nodes; ++v) {
    for (int32_t s : x.uses[v]) ++use_count[s];
  }
  using Priority = std::tuple<int64_t, int64_t, int64_t>;  // (freed - defined, users, insertion)
  int64_t inserted = 0;
  auto priority = [&](int32_t v) {
    int64_t freed = 0;
    for (int32_t s : x.uses[v]) {
      if (!ignored_value[s] && use_count[s] == 1) freed += pg.storage.storages[s].arena_bytes();
    }
    const int64_t defined = x.ignored[v] ? 0 : x.defined[v];
    return Priority(freed - defined, static_cast<int64_t>(x.users[v].size()), inserted++);
  };
  std::vector<int32_t> missing(x.nodes, 0);
  for (int32_t v = 0; v < x.nodes; ++v) {
    missing[v] = static_cast<int32_t>(x.operands[v].size() + x.control_preds[v].size());
  }
  std::map<Priority, int32_t> ready;
  std::vector<Priority> key_of(x.nodes);
  std::vector<uint8_t> is_ready(x.nodes, 0);
  auto add = [&](int32_t v) {
    key_of[v] = priority(v);
    ready.emplace(key_of[v], v);
    is_ready[v] = 1;
  };
  for (int32_t v : x.instructions) {
    if (missing[v] == 0) add(v);
  }
  std::vector<int32_t> sequence;
  sequence.reserve(x.nodes);
  while (!ready.empty()) {
    if (cut(deadline, sequence.size())) return {};
    const auto best_it = std::prev(ready.end());
    const int32_t best = best_it->second;
    ready.erase(best_it);
    is_ready[best] = 0;
    sequence.push_back(best);
    bool adjust = false;
    for (int32_t s : x.uses[best]) {
      if (--use_count[s] == 1) adjust = true;
    }
    for (int32_t w : x.users[best]) {
      if (--missing[w] == 0) add(w);
    }
    for (int32_t w : x.control_succs[best]) {
      if (--missing[w] == 0) add(w);
    }
    if (!adjust) continue;
    for (int32_t operand : x.operands[best]) {
      for (int32_t w : x.users[operand]) {
        if (!is_ready[w]) continue;
        Priority fresh = priority(w);
        if (std::get<0>(fresh) == std::get<0>(key_of[w]) && std::get<1>(fresh) == std::get<1>(key_of[w])) continue;
        ready.erase(key_of[w]);
        key_of[w] = fresh;
        ready.emplace(fresh, w);
      }
    }
  }
  return ops_only(x, sequence);
}

// DFSMemoryScheduler::Run (hlo_memory_scheduler.cc, openxla/xla
// 62046af07625). Stats in MakeInstructionPostOrder order: extra_users =
// users - 1 (0 without users) plus the operands' extra_users; total_sizes =
// the bytes the instruction defines plus the operands' total_sizes (unique
// operands; diamonds count twice), capped at the bytes defined so far in that
// order (extra_users at the instruction count); parameters and constants stay
// at 0. Then HloComputation::AcceptWithOperandOrder: the unreachable roots
// (no users, no control successors) in instructions() order, then ROOT, each
// a post-order DFS whose children (operands and control predecessors) are
// visited by more extra_users, then larger total_sizes, then name.
std::vector<int32_t> schedule_xla_dfs(const PlanningGraph& pg, const Deadline& deadline) {
  const XlaView x = xla_view(pg);
  std::vector<int64_t> extra_users(x.nodes, 0), total_sizes(x.nodes, 0);
  const std::vector<int32_t> post = xla_post_order_nodes(x, deadline);
  if (post.size() != static_cast<size_t>(x.nodes)) return {};
  int64_t cumulative = 0;
  for (int32_t v : post) {
    if (x.ignored[v]) continue;
    extra_users[v] = x.users[v].empty() ? 0 : static_cast<int64_t>(x.users[v].size()) - 1;
    total_sizes[v] = x.defined[v];
    cumulative += x.defined[v];
    for (int32_t w : x.operands[v]) {
      extra_users[v] += extra_users[w];
      total_sizes[v] += total_sizes[w];
    }
    total_sizes[v] = std::min(total_sizes[v], cumulative);
    extra_users[v] = std::min<int64_t>(extra_users[v], x.nodes);
  }
  auto first = [&](int32_t a, int32_t b) {
    if (extra_users[a] != extra_users[b]) return extra_users[a] > extra_users[b];
    if (total_sizes[a] != total_sizes[b]) return total_sizes[a] > total_sizes[b];
    return x.names[a] < x.names[b];
  };
  std::vector<int32_t> roots;
  for (int32_t v : x.instructions) {
    if (v != x.root && x.users[v].empty() && x.control_succs[v].empty()) roots.push_back(v);
  }
  if (x.root >= 0) roots.push_back(x.root);
  const std::vector<int32_t> sequence = post_order(x.nodes, roots, deadline, [&](int32_t v, std::vector<int32_t>* kids) {
    kids->assign(x.operands[v].begin(), x.operands[v].end());
    kids->insert(kids->end(), x.control_preds[v].begin(), x.control_preds[v].end());
    std::sort(kids->begin(), kids->end(), first);
  });
  if (sequence.size() != static_cast<size_t>(x.nodes)) return {};
  return ops_only(x, sequence);
}

// PostOrderScheduler::Run = HloComputation::MakeInstructionPostOrder
// (hlo_computation.cc, openxla/xla b75ac6f3c2c0): from every instruction
// without users, in instructions() order, a DFS whose stack gets the operands
// in reverse and then the control predecessors, so it visits the control
// predecessors last to first, then the operands first to last.
std::vector<int32_t> schedule_xla_post_order(const PlanningGraph& pg, const Deadline& deadline) {
  const XlaView x = xla_view(pg);
  const std::vector<int32_t> sequence = xla_post_order_nodes(x, deadline);
  if (sequence.size() != static_cast<size_t>(x.nodes)) return {};
  return ops_only(x, sequence);
}

}  // namespace tp
