#include "schedule/schedule_baselines.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <tuple>

#include "schedule/post_order.h"
#include "schedule/schedule_state.h"

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

// A greedy that keeps the ready set in a std::set ordered by `key` and picks
// its first element; keys are refreshed when the simulation says an op's
// figures changed. Used by the list schedulers.
template <typename Key, typename MakeKey>
std::vector<int32_t> greedy_by_key(const PlanningGraph& pg, const Deadline& deadline, MakeKey make_key) {
  const int32_t n = pg.op_count();
  ScheduleState state(pg);
  std::set<Key> ready;
  std::vector<Key> key_of(n);
  std::vector<int32_t> newly, changed, order;
  order.reserve(n);
  for (int32_t v : state.initial_ready()) {
    key_of[v] = make_key(state, v);
    ready.insert(key_of[v]);
  }
  while (!ready.empty()) {
    if (cut(deadline, order.size())) return {};
    const int32_t v = std::get<std::tuple_size<Key>::value - 1>(*ready.begin());
    ready.erase(ready.begin());
    newly.clear();
    changed.clear();
    state.run(v, &newly, &changed);
    order.push_back(v);
    for (int32_t w : changed) {
      ready.erase(key_of[w]);
      key_of[w] = make_key(state, w);
      ready.insert(key_of[w]);
    }
    for (int32_t w : newly) {
      key_of[w] = make_key(state, w);
      ready.insert(key_of[w]);
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

std::vector<int32_t> schedule_xla_list(const PlanningGraph& pg, const Deadline& deadline) {
  using Key = std::tuple<int64_t, int32_t, int32_t>;  // (defined - freed, -user count, index)
  return greedy_by_key<Key>(pg, deadline, [&pg](const ScheduleState& state, int32_t v) {
    const int32_t users = pg.succ_offsets[v + 1] - pg.succ_offsets[v];
    return Key(state.new_bytes(v) - state.freed_bytes(v), -users, v);
  });
}

std::vector<int32_t> schedule_xla_dfs(const PlanningGraph& pg, const Deadline& deadline) {
  const int32_t n = pg.op_count();
  // Accumulated over all predecessors in topological order; diamonds count
  // twice, as in XLA, so doubles keep large graphs from overflowing.
  std::vector<double> extra_users(n, 0), total_size(n, 0);
  const std::vector<int32_t> topological = lowest_index_topological(pg, deadline);
  if (topological.size() != static_cast<size_t>(n)) return {};
  for (int32_t v : topological) {
    const int32_t users = pg.succ_offsets[v + 1] - pg.succ_offsets[v];
    extra_users[v] = users > 0 ? users - 1 : 0;
    for (int32_t t : pg.graph.ops[v].outputs) {
      const Storage& s = pg.storage.storages[pg.storage.tensor_storage[t]];
      if (s.root_tensor == t) total_size[v] += static_cast<double>(s.arena_bytes());
    }
    for (int32_t k = pg.pred_offsets[v]; k < pg.pred_offsets[v + 1]; ++k) {
      extra_users[v] += extra_users[pg.preds[k]];
      total_size[v] += total_size[pg.preds[k]];
    }
  }
  auto first = [&](int32_t a, int32_t b) {
    if (extra_users[a] != extra_users[b]) return extra_users[a] > extra_users[b];
    if (total_size[a] != total_size[b]) return total_size[a] > total_size[b];
    return a < b;
  };
  std::vector<int32_t> sinks;
  for (int32_t v = 0; v < n; ++v) {
    if (pg.succ_offsets[v + 1] == pg.succ_offsets[v]) sinks.push_back(v);
  }
  std::stable_sort(sinks.begin(), sinks.end(), first);
  return post_order(n, sinks, deadline, [&](int32_t v, std::vector<int32_t>* kids) {
    kids->assign(pg.preds.begin() + pg.pred_offsets[v], pg.preds.begin() + pg.pred_offsets[v + 1]);
    std::stable_sort(kids->begin(), kids->end(), first);
  });
}

std::vector<int32_t> schedule_xla_post_order(const PlanningGraph& pg, const Deadline& deadline) {
  const int32_t n = pg.op_count();
  std::vector<int32_t> sinks;
  for (int32_t v = 0; v < n; ++v) {
    if (pg.succ_offsets[v + 1] == pg.succ_offsets[v]) sinks.push_back(v);
  }
  return post_order(n, sinks, deadline, [&](int32_t v, std::vector<int32_t>* kids) {
    kids->assign(pg.preds.begin() + pg.pred_offsets[v], pg.preds.begin() + pg.pred_offsets[v + 1]);
  });
}

}  // namespace tp
