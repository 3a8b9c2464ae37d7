#include "schedule/schedule_cuts.h"

namespace tp {

namespace {

// A set of op ids with O(1) insert, erase and membership.
class OpSet {
 public:
  explicit OpSet(int32_t n) : where_(n, -1) {}
  void insert(int32_t v) {
    if (where_[v] >= 0) return;
    where_[v] = static_cast<int32_t>(items_.size());
    items_.push_back(v);
  }
  void erase(int32_t v) {
    const int32_t at = where_[v];
    if (at < 0) return;
    const int32_t last = items_.back();
    items_[at] = last;
    where_[last] = at;
    items_.pop_back();
    where_[v] = -1;
  }
  bool has(int32_t v) const { return where_[v] >= 0; }
  const std::vector<int32_t>& items() const { return items_; }

 private:
  std::vector<int32_t> where_;
  std::vector<int32_t> items_;
};

}  // namespace

std::vector<int32_t> forced_cuts(const PlanningGraph& pg, const std::vector<int32_t>& order, int64_t max_pairs) {
  const int32_t n = pg.op_count();
  std::vector<int32_t> cuts = {0};
  if (n == 0) return cuts;
  std::vector<int32_t> missing(n), succs_in_prefix(n, 0), seen(n, -1);
  OpSet sinks(n), sources(n);
  for (int32_t v = 0; v < n; ++v) {
    missing[v] = pg.pred_offsets[v + 1] - pg.pred_offsets[v];
    if (missing[v] == 0) sources.insert(v);
  }
  int32_t epoch = 0;
  for (int32_t k = 0; k + 1 < n; ++k) {
    const int32_t v = order[k];
    // v leaves the rest (it was a source there) and joins the prefix as a sink.
    sources.erase(v);
    sinks.insert(v);
    for (int32_t e = pg.pred_offsets[v]; e < pg.pred_offsets[v + 1]; ++e) {
      const int32_t u = pg.preds[e];
      if (++succs_in_prefix[u] == 1) sinks.erase(u);
    }
    for (int32_t e = pg.succ_offsets[v]; e < pg.succ_offsets[v + 1]; ++e) {
      const int32_t w = pg.succs[e];
      if (--missing[w] == 0) sources.insert(w);
    }
    const int64_t pairs = static_cast<int64_t>(sinks.items().size()) * static_cast<int64_t>(sources.items().size());
    if (pairs > max_pairs) continue;
    // Count, for each sink, the distinct sources it has an edge to.
    int64_t linked = 0;
    for (int32_t s : sinks.items()) {
      ++epoch;
      for (int32_t e = pg.succ_offsets[s]; e < pg.succ_offsets[s + 1]; ++e) {
        const int32_t w = pg.succs[e];
        if (sources.has(w) && seen[w] != epoch) {
          seen[w] = epoch;
          ++linked;
        }
      }
    }
    if (linked == pairs) cuts.push_back(k + 1);
  }
  cuts.push_back(n);
  return cuts;
}

}  // namespace tp
