// Valley runs in the exact schedule search (schedule_exact.h): a
// set from which a run of up to kValleyMaxOps ops climbs no higher than the
// set's key and then leaves fewer bytes alive than any part of the run an
// order could run first gets the run's first op as its only child. Why that
// keeps an optimal order: schedule_exact.cpp, where the search uses it, and
// docs/scheduling.md, "Valley runs".
#ifndef TENSORPLAN_SCHEDULE_VALLEY_RUNS_H
#define TENSORPLAN_SCHEDULE_VALLEY_RUNS_H

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "schedule/segment_graph.h"

namespace tp::exact_search {

// The longest valley run the search looks for.
constexpr int32_t kValleyMaxOps = 8;

// Bytes alive after `mask` plus the ops run[0, count) (none in `mask`, a
// down-set with it), less those alive after `mask`.
template <int W>
int64_t added_live(const SegmentGraph<W>& g, const Mask<W>& mask, const int32_t* run, int32_t count) {
  Mask<W> all = mask;
  for (int32_t i = 0; i < count; ++i) all.set(run[i]);
  int64_t added = 0;
  std::vector<int32_t> counted;  // each storage once, however many run ops touch it
  counted.reserve(64);
  for (int32_t i = 0; i < count; ++i) {
    for (int32_t k = g.touch_offsets[run[i]]; k < g.touch_offsets[run[i] + 1]; ++k) {
      const int32_t s = g.touches[k];
      if (std::find(counted.begin(), counted.end(), s) != counted.end()) continue;
      counted.push_back(s);
      if (!(g.before[s] || g.user_mask[s].meets(mask))) added += g.bytes[s];
      if (!g.after[s] && !g.user_mask[s].meets_outside(all)) added -= g.bytes[s];
    }
  }
  return added;
}

// A valley run from the set `mask` (`live` bytes alive after it): ops
// run[0, count) (count >= 2, from kValleyMaxOps at most) leaving `end`
// bytes alive. It must leave no more alive than any down-set of it does
// (the prefixes the caller checked; here every other subset closed under
// the run's own dependencies, as another order may run those first).
template <int W>
bool valley_holds(const SegmentGraph<W>& g, const Mask<W>& mask, int64_t live, const int32_t* run, int32_t count,
                  int64_t end) {
  for (uint32_t subset = 1; subset + 1 < (1u << count); ++subset) {
    int32_t part[kValleyMaxOps];
    int32_t size = 0;
    bool closed = true;
    for (int32_t i = 0; i < count && closed; ++i) {
      if (!((subset >> i) & 1)) continue;
      for (int32_t j = 0; j < count; ++j) {
        if (!((subset >> j) & 1) && g.pred_mask[run[i]].test(run[j])) closed = false;
      }
      part[size++] = run[i];
    }
    if (closed && live + added_live(g, mask, part, size) < end) return false;
  }
  return true;
}

// Looks for a valley run from `mask` (`live` bytes alive after it, `key`
// a bound on every completion's peak) that starts with one of `firsts`;
// returns that first op, or -1. Each run is grown greedily: next the ready
// op, among the successors of the run and the users of what it touched,
// that adds the fewest bytes net.
template <int W>
int32_t valley_first(const SegmentGraph<W>& g, const Mask<W>& mask, int64_t live, int64_t key,
                     const std::vector<int32_t>& firsts) {
  for (const int32_t first : firsts) {
    Mask<W> done = mask, near;
    int32_t run[kValleyMaxOps];
    int32_t count = 0;
    int64_t alive = live, lowest = live;
    int32_t next = first;
    while (next >= 0 && count < kValleyMaxOps) {
      int64_t born, freed;
      g.op_effect(done, next, &born, &freed);
      if (alive + born + g.workspace[next] > key) break;
      alive += born - freed;
      done.set(next);
      run[count++] = next;
      if (count >= 2 && alive <= lowest && valley_holds(g, mask, live, run, count, alive)) return first;
      lowest = std::min(lowest, alive);
      near = near | g.succ_mask[next];
      for (int32_t k = g.touch_offsets[next]; k < g.touch_offsets[next + 1]; ++k) near = near | g.user_mask[g.touches[k]];
      next = -1;
      int64_t best = std::numeric_limits<int64_t>::max();
      for (int32_t k = 0; k < W; ++k) {
        for (uint64_t bits = near.w[k] & ~done.w[k]; bits; bits &= bits - 1) {
          const int32_t v = 64 * k + __builtin_ctzll(bits);
          if (g.pred_mask[v].meets_outside(done)) continue;
          g.op_effect(done, v, &born, &freed);
          if (born - freed < best) {
            best = born - freed;
            next = v;
          }
        }
      }
    }
  }
  return -1;
}

}  // namespace tp::exact_search

#endif  // TENSORPLAN_SCHEDULE_VALLEY_RUNS_H
