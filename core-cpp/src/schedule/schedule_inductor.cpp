// PyTorch Inductor's three op orders, as torch 2.14.1 has them in
// torch/_inductor/memory.py (topological_sort_lpmf, topological_sort_bfs,
// topological_sort_dfs), over the memory-planning view that memory.py builds
// (prepare_planning_info). Read from the source, not copied; the mapping of
// Inductor's concepts onto a PlanningGraph is in docs/scheduling.md
// ("Inductor's baselines"):
//   SchedulerNode           an op; mpi_node.index = its position in the given
//                           order (schedule_given), which is memory.py's `nodes`
//   SchedulerBuffer         a storage that is not a graph input, charged to the
//                           op that makes it (its first user in the given
//                           order); size_alloc = size_free = arena bytes
//                           (aligned; persistent ones cost 0)
//   FreeableInputBuffer     a graph-input storage that some op touches; graph
//                           inputs nobody touches are not in memory.py at all
//   non-freeable input      a persistent storage (weights: is_nonfreeable_buffers
//                           names them primals_/arg...): 0 bytes
//   workspace               a buffer the op makes and no other op reads
//                           (outdegree 0): in mpi_node.size and freed by the op
//   in-place output, view   a mutation rename / alias: no bytes of its own; its
//                           readers are users of the storage (memory.py forwards
//                           their deps to the real buffer)
//   pred_buffers(op)        the storages the op touches but does not make
//   pred_nodes(op)          the op's predecessors (data, write-after-read and
//                           control edges: Inductor's deps incl. WeakDeps) and
//                           the makers of its pred_buffers (memory.py forwards a
//                           mutation rename's readers to the real buffer, whose
//                           maker so becomes their predecessor too)
//   unmet deps (DFS)        the op's predecessors and the makers of storages it
//                           writes into but does not make (a mutation reads the
//                           buffer it mutates)
//   graph_outputs           graph-output storages
#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <tuple>

#include "schedule/post_order.h"
#include "schedule/schedule_baselines.h"

namespace tp {
namespace {

bool cut(const Deadline& deadline, size_t steps) { return (steps & 15) == 0 && deadline.clock_passed(); }

// memory.py's planning info (MemoryPlanningInfoForNode / ForBuffer) for a PlanningGraph.
struct InductorView {
  std::vector<int32_t> index;      // mpi_node.index of each op
  std::vector<int64_t> size;       // mpi_node.size: bytes of the storages the op makes + its workspace
  std::vector<int32_t> maker;      // op that makes each storage; -1 for graph inputs, persistent and untouched ones
  std::vector<uint8_t> in_memory;  // the storage is a SchedulerBuffer or a FreeableInputBuffer
  std::vector<int64_t> bytes;      // size_free of each storage
  std::vector<std::vector<int32_t>> pred_nodes, succ_nodes;  // mpi_node.pred_nodes / succ_nodes
};

InductorView inductor_view(const PlanningGraph& pg) {
  const int32_t n = pg.op_count();
  const int32_t storage_count = pg.storage_count();
  InductorView view;
  view.index.assign(n, 0);
  const std::vector<int32_t> given = schedule_given(pg);
  for (int32_t i = 0; i < n; ++i) view.index[given[i]] = i;
  view.maker.assign(storage_count, -1);
  view.in_memory.assign(storage_count, 0);
  view.bytes.assign(storage_count, 0);
  for (int32_t s = 0; s < storage_count; ++s) {
    const Storage& storage = pg.storage.storages[s];
    view.bytes[s] = storage.arena_bytes();
    // Persistent storages are non-freeable inputs: outside memory.py's accounting, made by no node.
    view.in_memory[s] = pg.user_count(s) > 0 && !storage.persistent ? 1 : 0;
    if (storage.graph_input || storage.persistent) continue;
    for (int32_t u = pg.user_offsets[s]; u < pg.user_offsets[s + 1]; ++u) {
      const int32_t op = pg.users[u];
      if (view.maker[s] < 0 || view.index[op] < view.index[view.maker[s]]) view.maker[s] = op;
    }
  }
  view.size.assign(n, 0);
  for (int32_t v = 0; v < n; ++v) {
    view.size[v] = pg.op_workspace[v];
    for (int32_t k = pg.touch_offsets[v]; k < pg.touch_offsets[v + 1]; ++k) {
      if (view.maker[pg.touches[k]] == v) view.size[v] += view.bytes[pg.touches[k]];
    }
  }
  view.pred_nodes.assign(n, {});
  view.succ_nodes.assign(n, {});
  for (int32_t v = 0; v < n; ++v) {
    std::vector<int32_t>& preds = view.pred_nodes[v];
    preds.assign(pg.preds.begin() + pg.pred_offsets[v], pg.preds.begin() + pg.pred_offsets[v + 1]);
    for (int32_t k = pg.touch_offsets[v]; k < pg.touch_offsets[v + 1]; ++k) {
      const int32_t m = view.maker[pg.touches[k]];
      if (m >= 0 && m != v) preds.push_back(m);
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (int32_t p : preds) view.succ_nodes[p].push_back(v);
  }
  return view;
}

// Whether storage `s` is one of `op`'s pred_buffers.
bool is_pred_buffer(const InductorView& view, int32_t s, int32_t op) { return view.in_memory[s] && view.maker[s] != op; }

}  // namespace

// torch 2.14.1, torch/_inductor/memory.py, topological_sort_lpmf. Ready ops
// by the smallest (size if size > memory_gap else 0, size - memory_to_free,
// index), memory_gap = max_memory - live_memory; live_memory starts at the
// freeable input bytes and max_memory at the larger of that and the graph
// output bytes ("a lower bound for peak memory"). memory_to_free counts the
// pred buffers whose only remaining successor is the op (outdegree 1; a graph
// output has one extra, so it is never freed) and the op's buffers nobody
// else reads (outdegree 0, the workspace included).
// (config.size_threshold_for_succ_based_strategy is 0 by default: off.)
std::vector<int32_t> schedule_inductor_lpmf(const PlanningGraph& pg, const Deadline& deadline) {
  const int32_t n = pg.op_count();
  const int32_t storage_count = pg.storage_count();
  const InductorView view = inductor_view(pg);
  std::vector<int32_t> outdegree(storage_count, 0);
  int64_t live = 0, output_bytes = 0;
  for (int32_t s = 0; s < storage_count; ++s) {
    if (!view.in_memory[s]) continue;
    const Storage& storage = pg.storage.storages[s];
    outdegree[s] = pg.user_count(s) - (view.maker[s] >= 0 ? 1 : 0) + (storage.graph_output ? 1 : 0);
    if (storage.graph_input) live += view.bytes[s];
    if (storage.graph_output) output_bytes += view.bytes[s];
  }
  int64_t max_memory = std::max(live, output_bytes);
  std::vector<int64_t> to_free(n, 0);
  for (int32_t v = 0; v < n; ++v) {
    to_free[v] = pg.op_workspace[v];
    for (int32_t k = pg.touch_offsets[v]; k < pg.touch_offsets[v + 1]; ++k) {
      const int32_t s = pg.touches[k];
      if (!view.in_memory[s]) continue;
      const bool pred = view.maker[s] != v;
      if ((pred && outdegree[s] == 1) || (!pred && outdegree[s] == 0)) to_free[v] += view.bytes[s];
    }
  }
  // The ready set twice: by (size, net, index) for when every ready op
  // raises the maximum, by (net, index) for when some fit under it.
  using BySize = std::tuple<int64_t, int64_t, int32_t>;
  std::set<BySize> by_size;
  std::set<std::pair<int64_t, int32_t>> by_net;  // (net, index)
  std::vector<int32_t> op_at(n), missing(n);
  std::vector<uint8_t> ready(n, 0);
  for (int32_t v = 0; v < n; ++v) op_at[view.index[v]] = v;
  auto add = [&](int32_t v) {
    ready[v] = 1;
    by_size.insert(BySize(view.size[v], view.size[v] - to_free[v], view.index[v]));
    by_net.insert({view.size[v] - to_free[v], view.index[v]});
  };
  auto remove = [&](int32_t v) {
    ready[v] = 0;
    by_size.erase(BySize(view.size[v], view.size[v] - to_free[v], view.index[v]));
    by_net.erase({view.size[v] - to_free[v], view.index[v]});
  };
  for (int32_t v = 0; v < n; ++v) {
    missing[v] = static_cast<int32_t>(view.pred_nodes[v].size());
    if (missing[v] == 0) add(v);
  }
  std::vector<int32_t> order;
  order.reserve(n);
  while (!by_size.empty()) {
    if (cut(deadline, order.size())) return {};
    const int64_t gap = max_memory - live;
    int32_t pick = -1;
    if (std::get<0>(*by_size.begin()) > gap) {
      pick = op_at[std::get<2>(*by_size.begin())];
    } else {
      // Ops that fit under the maximum all have key (0, net, index).
      for (auto it = by_net.begin(); it != by_net.end() && pick < 0; ++it) {
        if (view.size[op_at[it->second]] <= gap) pick = op_at[it->second];
      }
    }
    remove(pick);
    order.push_back(pick);
    live += view.size[pick];
    max_memory = std::max(max_memory, live);
    live -= to_free[pick];
    for (int32_t w : view.succ_nodes[pick]) {
      if (--missing[w] == 0) add(w);
    }
    for (int32_t k = pg.touch_offsets[pick]; k < pg.touch_offsets[pick + 1]; ++k) {
      const int32_t s = pg.touches[k];
      if (!is_pred_buffer(view, s, pick) || --outdegree[s] != 1) continue;
      // Its one remaining successor frees it (memory.py adds to every successor; the others already ran).
      for (int32_t u = pg.user_offsets[s]; u < pg.user_offsets[s + 1]; ++u) {
        const int32_t w = pg.users[u];
        if (w == view.maker[s]) continue;
        if (ready[w]) {
          remove(w);
          to_free[w] += view.bytes[s];
          add(w);
        } else {
          to_free[w] += view.bytes[s];
        }
      }
    }
  }
  return order;
}

// torch 2.14.1, torch/_inductor/memory.py, topological_sort_bfs. A ready op's
// priority is the sorted list of the steps at which its predecessors ran,
// compared as lists (lexicographically: the earliest first predecessor wins,
// a prefix before its extensions, [] first); ties by index.
std::vector<int32_t> schedule_inductor_bfs(const PlanningGraph& pg, const Deadline& deadline) {
  const int32_t n = pg.op_count();
  const InductorView view = inductor_view(pg);
  struct Entry {
    std::vector<int32_t> priority;
    int32_t index;
    int32_t op;
  };
  auto later = [](const Entry& a, const Entry& b) {
    if (a.priority != b.priority) return b.priority < a.priority;
    return b.index < a.index;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(later)> ready(later);
  std::vector<int32_t> missing(n), step(n, -1), order;
  auto push = [&](int32_t v) {
    Entry e{{}, view.index[v], v};
    for (int32_t p : view.pred_nodes[v]) e.priority.push_back(step[p]);
    std::sort(e.priority.begin(), e.priority.end());  // preds are distinct, so are their steps
    ready.push(std::move(e));
  };
  // Ops without predecessors all have priority []: pushed in index order.
  for (int32_t v : schedule_given(pg)) {
    missing[v] = static_cast<int32_t>(view.pred_nodes[v].size());
    if (missing[v] == 0) push(v);
  }
  order.reserve(n);
  while (!ready.empty()) {
    if (cut(deadline, order.size())) return {};
    const int32_t v = ready.top().op;
    ready.pop();
    step[v] = static_cast<int32_t>(order.size());
    order.push_back(v);
    for (int32_t w : view.succ_nodes[v]) {
      if (--missing[w] == 0) push(w);
    }
  }
  return order;
}

// torch 2.14.1, torch/_inductor/memory.py, topological_sort_dfs. Every op's
// size_with_reads = mpi_node.size (the storages it makes and its workspace)
// + the bytes of its pred_buffers (storages it touches but does not make;
// persistent weights are not freeable, so 0). Ops are visited in increasing
// (size_with_reads, index); a visit first visits the op's predecessors in
// that same order, then emits the op.
std::vector<int32_t> schedule_inductor_dfs(const PlanningGraph& pg, const Deadline& deadline) {
  const int32_t n = pg.op_count();
  const InductorView view = inductor_view(pg);
  std::vector<int64_t> size_with_reads = view.size;
  for (int32_t v = 0; v < n; ++v) {
    for (int32_t k = pg.touch_offsets[v]; k < pg.touch_offsets[v + 1]; ++k) {
      if (is_pred_buffer(view, pg.touches[k], v)) size_with_reads[v] += view.bytes[pg.touches[k]];
    }
  }
  auto smaller = [&](int32_t a, int32_t b) {
    return size_with_reads[a] != size_with_reads[b] ? size_with_reads[a] < size_with_reads[b] : view.index[a] < view.index[b];
  };
  std::vector<int32_t> roots(n);
  for (int32_t v = 0; v < n; ++v) roots[v] = v;
  std::sort(roots.begin(), roots.end(), smaller);
  return post_order(n, roots, deadline, [&](int32_t v, std::vector<int32_t>* kids) {
    kids->assign(pg.preds.begin() + pg.pred_offsets[v], pg.preds.begin() + pg.pred_offsets[v + 1]);
    for (int32_t t : pg.graph.ops[v].outputs) {
      const int32_t m = view.maker[pg.storage.tensor_storage[t]];
      if (m >= 0 && m != v) kids->push_back(m);  // a write into a storage another op made
    }
    std::sort(kids->begin(), kids->end(), smaller);
  });
}

}  // namespace tp
