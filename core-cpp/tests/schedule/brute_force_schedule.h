// The optimum peak of a small graph by brute force over every topological
// order: the independent definition the exact search and the segment proofs
// are checked against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "liveness/liveness.h"
#include "graph/planning_graph.h"

// Calls visit(order) for every topological order of the graph's ops.
inline void for_each_topological_order(const tp::PlanningGraph& pg,
                                       const std::function<void(const std::vector<int32_t>&)>& visit) {
  const int32_t n = pg.op_count();
  std::vector<int32_t> order, missing(n);
  for (int32_t v = 0; v < n; ++v) missing[v] = pg.pred_offsets[v + 1] - pg.pred_offsets[v];
  std::vector<uint8_t> used(n, 0);
  std::function<void()> recurse = [&]() {
    if (static_cast<int32_t>(order.size()) == n) {
      visit(order);
      return;
    }
    for (int32_t v = 0; v < n; ++v) {
      if (used[v] || missing[v] != 0) continue;
      used[v] = 1;
      order.push_back(v);
      for (int32_t k = pg.succ_offsets[v]; k < pg.succ_offsets[v + 1]; ++k) --missing[pg.succs[k]];
      recurse();
      for (int32_t k = pg.succ_offsets[v]; k < pg.succ_offsets[v + 1]; ++k) ++missing[pg.succs[k]];
      order.pop_back();
      used[v] = 0;
    }
  };
  recurse();
}

inline int64_t brute_force_optimum(const tp::PlanningGraph& pg) {
  int64_t best = INT64_MAX;
  for_each_topological_order(pg, [&](const std::vector<int32_t>& order) { best = std::min(best, tp::schedule_peak(pg, order)); });
  return pg.op_count() == 0 ? 0 : best;
}
