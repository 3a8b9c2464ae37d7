// One segment of an order as the exact schedule search sees it
// (schedule_exact.h): its ops as bit masks, the storages they touch, what the
// ops around it fix (storages alive before it, needed after it), and the
// bounds on every completion of a set of its ops.
#ifndef TENSORPLAN_SCHEDULE_SEGMENT_GRAPH_H
#define TENSORPLAN_SCHEDULE_SEGMENT_GRAPH_H

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "graph/planning_graph.h"
#include "schedule/op_mask.h"
#include "schedule/schedule_state.h"
#include "schedule/segment_symmetry.h"

namespace tp::exact_search {

// The set-dependent bound is computed on segments with at most this many
// local storages (a 1088-op Llama layer graph has 1378), as bit masks of
// (storages + 63) / 64 words.
constexpr int32_t kDynamicBoundMaxStorages = 2048;

// One segment as bit masks over its ops (local ids: the segment's ops in
// ascending global id), with what the ops around it fix: which storages are
// alive before it and which are still needed after it.
template <int W>
struct SegmentGraph {
  int32_t m = 0;
  std::vector<int32_t> ops;                  // local -> global op
  std::vector<Mask<W>> pred_mask;            // per local op: its predecessors inside the segment
  std::vector<Mask<W>> succ_mask;            // per local op: its successors inside the segment
  std::vector<int32_t> touch_offsets, touches;  // per local op: local storages, CSR
  std::vector<Mask<W>> user_mask;            // per local storage: the segment ops touching it
  std::vector<uint8_t> before, after;        // per local storage: alive before / needed after the segment
  std::vector<int64_t> bytes;                // per local storage
  std::vector<int64_t> workspace, op_bound;  // per local op
  int64_t start_live = 0;                    // bytes alive before the segment's first step
  int64_t unused_inputs = 0;                 // graph inputs no op touches: freed after the graph's step 0
  Mask<W> full;
  // The set-dependent bound (set_bound), on segments with at most
  // kDynamicBoundMaxStorages local storages: per local op, the bytes alive
  // at its step in every order (the storages forced there, the storages no
  // segment op touches that stay alive through the segment, its workspace),
  // and which storages are also alive at its step whenever they are alive
  // after a set without it (a user of theirs is the op or runs after it, or
  // they are needed after the segment).
  bool dynamic = false;
  int32_t storage_words = 0;                   // words of a local storage mask
  std::vector<int64_t> forced_bytes;           // per local op
  std::vector<uint64_t> extra_if_alive;        // per local op, storage_words words
  std::vector<int64_t> extra_total;            // per local op: bytes of its extra_if_alive storages
  // The same at the step where a storage with several users in the segment
  // is born, for each user that may run first (then every other user runs
  // at or after it): per such storage its users' range in the birth_ arrays.
  std::vector<int32_t> birth_storage, birth_begin;
  std::vector<int64_t> birth_forced;           // per (storage, first user)
  std::vector<uint64_t> birth_extra;           // per (storage, first user), storage_words words
  // Interchangeable branches (segment_symmetry.h): the search memoises one
  // copy of the sets that differ only in which branch is which.
  BranchSymmetry symmetry;

  // Bytes op `v` brings to life, and bytes that die after it, when it runs
  // after the set `run`.
  void op_effect(const Mask<W>& run, int32_t v, int64_t* born, int64_t* freed) const {
    *born = 0;
    *freed = 0;
    for (int32_t k = touch_offsets[v]; k < touch_offsets[v + 1]; ++k) {
      const int32_t s = touches[k];
      if (!(before[s] || user_mask[s].meets(run))) *born += bytes[s];
      if (!after[s] && !user_mask[s].user_left_after(run, v)) *freed += bytes[s];
    }
  }

  // No completion of `mask` has a lower peak than the largest per-op bound
  // of the ops it has yet to run.
  int64_t remaining_bound(const Mask<W>& mask) const {
    int64_t bound = 0;
    for (int32_t v = 0; v < m; ++v) {
      if (!mask.test(v)) bound = std::max(bound, op_bound[v]);
    }
    return bound;
  }

  // Local storages alive after the ops of `mask` ran: born (alive before the
  // segment or touched by an op of the set) and not dead (needed after the
  // segment or touched by an op not in the set).
  void alive_after(const Mask<W>& mask, uint64_t* alive) const {
    std::fill(alive, alive + storage_words, 0);
    for (int32_t s = 0; s < static_cast<int32_t>(bytes.size()); ++s) {
      if ((before[s] || user_mask[s].meets(mask)) && (after[s] || user_mask[s].meets_outside(mask))) {
        alive[s >> 6] |= uint64_t{1} << (s & 63);
      }
    }
  }

  // remaining_bound raised by what the set fixes: a storage alive after it
  // stays alive through the step of every op not in it that it must outlive
  // (PLANNING.md §2: a storage dies after its last user). Depends on the set
  // only, so it is computed once per memoised set.
  int64_t set_bound(const Mask<W>& mask) const {
    int64_t bound = remaining_bound(mask);
    if (!dynamic) return bound;
    uint64_t alive[kDynamicBoundMaxStorages / 64];
    alive_after(mask, alive);
    auto alive_bytes = [&](const uint64_t* extra) {
      int64_t sum = 0;
      for (int32_t k = 0; k < storage_words; ++k) {
        uint64_t bits = alive[k] & extra[k];
        while (bits) {
          sum += bytes[64 * k + __builtin_ctzll(bits)];
          bits &= bits - 1;
        }
      }
      return sum;
    };
    for (int32_t v = 0; v < m; ++v) {
      if (mask.test(v) || forced_bytes[v] + extra_total[v] <= bound) continue;  // cannot raise it
      bound = std::max(bound, forced_bytes[v] + alive_bytes(&extra_if_alive[static_cast<size_t>(v) * storage_words]));
    }
    // A storage not yet born is born at the step of whichever of its users
    // runs first: the least bound over those steps.
    for (size_t i = 0; i < birth_storage.size(); ++i) {
      if (user_mask[birth_storage[i]].meets(mask)) continue;
      int64_t least = std::numeric_limits<int64_t>::max();
      for (int32_t j = birth_begin[i]; j < birth_begin[i + 1] && least > bound; ++j) {
        least = std::min(least, birth_forced[j] + alive_bytes(&birth_extra[static_cast<size_t>(j) * storage_words]));
      }
      bound = std::max(bound, least);
    }
    return bound;
  }
};

// The segment order[begin, end) of `order`, with order[0, begin) run first.
template <int W>
SegmentGraph<W> segment_graph(const PlanningGraph& pg, const std::vector<int32_t>& order, int32_t begin, int32_t end,
                              const std::vector<int64_t>& op_bound) {
  const std::vector<Storage>& storages = pg.storage.storages;
  const int32_t n = pg.op_count();
  SegmentGraph<W> g;
  g.ops.assign(order.begin() + begin, order.begin() + end);
  std::sort(g.ops.begin(), g.ops.end());
  g.m = static_cast<int32_t>(g.ops.size());
  std::vector<int32_t> local(n, -1), place(n, 0);  // place: 0 before, 1 inside, 2 after
  for (int32_t i = 0; i < n; ++i) place[order[i]] = i < begin ? 0 : (i < end ? 1 : 2);
  for (int32_t i = 0; i < g.m; ++i) local[g.ops[i]] = i;
  g.pred_mask.assign(g.m, Mask<W>{});
  g.succ_mask.assign(g.m, Mask<W>{});
  g.workspace.resize(g.m);
  g.op_bound.resize(g.m);
  std::vector<int32_t> local_storage(pg.storage_count(), -1);
  SegmentShape shape;  // the segment as lists, for finding interchangeable branches
  shape.preds.resize(g.m);
  g.touch_offsets.push_back(0);
  for (int32_t i = 0; i < g.m; ++i) {
    const int32_t v = g.ops[i];
    g.workspace[i] = pg.op_workspace[v];
    g.op_bound[i] = op_bound[v];
    for (int32_t k = pg.pred_offsets[v]; k < pg.pred_offsets[v + 1]; ++k) {
      if (local[pg.preds[k]] < 0) continue;
      g.pred_mask[i].set(local[pg.preds[k]]);
      g.succ_mask[local[pg.preds[k]]].set(i);
      shape.preds[i].push_back(local[pg.preds[k]]);
    }
    for (int32_t k = pg.touch_offsets[v]; k < pg.touch_offsets[v + 1]; ++k) {
      const int32_t s = pg.touches[k];
      if (local_storage[s] < 0) {
        local_storage[s] = static_cast<int32_t>(g.bytes.size());
        const Storage& st = storages[s];
        bool before = st.graph_input, after = st.graph_output;
        Mask<W> users;
        std::vector<int32_t> user_list;
        for (int32_t u = pg.user_offsets[s]; u < pg.user_offsets[s + 1]; ++u) {
          const int32_t w = pg.users[u];
          if (place[w] == 0) before = true;
          if (place[w] == 2) after = true;
          if (place[w] != 1) continue;
          users.set(local[w]);
          user_list.push_back(local[w]);
        }
        g.bytes.push_back(st.arena_bytes());
        g.before.push_back(before ? 1 : 0);
        g.after.push_back(after ? 1 : 0);
        g.user_mask.push_back(users);
        std::sort(user_list.begin(), user_list.end());
        shape.users.push_back(std::move(user_list));
      }
      g.touches.push_back(local_storage[s]);
    }
    g.touch_offsets.push_back(static_cast<int32_t>(g.touches.size()));
  }
  for (int32_t i = 0; i < g.m; ++i) g.full.set(i);
  ScheduleState state(pg);
  std::vector<int32_t> scratch_ready, scratch_changed;
  for (int32_t i = 0; i < begin; ++i) {
    scratch_ready.clear();
    scratch_changed.clear();
    state.run(order[i], &scratch_ready, &scratch_changed);
  }
  g.start_live = state.live();
  if (begin == 0) {
    for (int32_t s = 0; s < pg.storage_count(); ++s) {
      const Storage& st = storages[s];
      if (st.graph_input && !st.graph_output && pg.user_count(s) == 0) g.unused_inputs += st.arena_bytes();
    }
  }
  const int32_t local_storages = static_cast<int32_t>(g.bytes.size());
  shape.op_count = g.m;
  shape.workspace = g.workspace;
  shape.bytes = g.bytes;
  shape.before = g.before;
  shape.after = g.after;
  g.symmetry = BranchSymmetry(interchangeable_branches(shape), g.m);
  g.dynamic = local_storages <= kDynamicBoundMaxStorages;
  if (!g.dynamic) return g;
  // Ancestors and descendants (each op included) inside the segment, from
  // its order (a topological order of the segment's ops).
  std::vector<Mask<W>> ancestors(g.m), descendants(g.m);
  for (int32_t i = begin; i < end; ++i) {
    const int32_t v = local[order[i]];
    ancestors[v].set(v);
    for (int32_t p = 0; p < g.m; ++p) {
      if (g.pred_mask[v].test(p)) ancestors[v] = ancestors[v] | ancestors[p];
    }
  }
  for (int32_t i = end - 1; i >= begin; --i) {
    const int32_t v = local[order[i]];
    descendants[v].set(v);
    for (int32_t p = 0; p < g.m; ++p) {
      if (g.pred_mask[v].test(p)) descendants[p] = descendants[p] | descendants[v];
    }
  }
  // Bytes alive through the whole segment that no segment op touches: alive
  // before it (less the unused graph inputs freed after step 0) and not local.
  int64_t through = g.start_live - g.unused_inputs;
  for (int32_t s = 0; s < local_storages; ++s) {
    if (g.before[s]) through -= g.bytes[s];
  }
  through = std::max<int64_t>(through, 0);
  g.storage_words = (local_storages + 63) / 64;
  g.forced_bytes.assign(g.m, 0);
  g.extra_total.assign(g.m, 0);
  g.extra_if_alive.assign(static_cast<size_t>(g.m) * g.storage_words, 0);
  for (int32_t v = 0; v < g.m; ++v) {
    g.forced_bytes[v] = through + g.workspace[v];
    for (int32_t s = 0; s < local_storages; ++s) {
      if (!(g.after[s] || g.user_mask[s].meets(descendants[v]))) continue;
      if (g.before[s] || g.user_mask[s].meets(ancestors[v])) {
        g.forced_bytes[v] += g.bytes[s];
      } else {
        g.extra_if_alive[static_cast<size_t>(v) * g.storage_words + (s >> 6)] |= uint64_t{1} << (s & 63);
        g.extra_total[v] += g.bytes[s];
      }
    }
  }
  // Births: a storage born inside the segment with two or more users there.
  // When user u runs first, a storage t is alive at its step if it exists by
  // then (alive before the segment, or a user of t is u or its ancestor) and
  // is still needed (after the segment, or a user of t is one of the
  // storage's users or a descendant of one: they all run at or after u).
  g.birth_begin.push_back(0);
  for (int32_t s = 0; s < local_storages; ++s) {
    if (g.before[s] || g.user_mask[s].count() < 2) continue;
    Mask<W> later;
    for (int32_t u = 0; u < g.m; ++u) {
      if (g.user_mask[s].test(u)) later = later | descendants[u];
    }
    g.birth_storage.push_back(s);
    for (int32_t u = 0; u < g.m; ++u) {
      if (!g.user_mask[s].test(u)) continue;
      const size_t j = g.birth_forced.size();
      g.birth_forced.push_back(through + g.workspace[u]);
      g.birth_extra.resize((j + 1) * static_cast<size_t>(g.storage_words), 0);
      for (int32_t t = 0; t < local_storages; ++t) {
        if (!(g.after[t] || g.user_mask[t].meets(later))) continue;
        if (g.before[t] || g.user_mask[t].meets(ancestors[u])) g.birth_forced[j] += g.bytes[t];
        else g.birth_extra[j * static_cast<size_t>(g.storage_words) + (t >> 6)] |= uint64_t{1} << (t & 63);
      }
    }
    g.birth_begin.push_back(static_cast<int32_t>(g.birth_forced.size()));
  }
  return g;
}

}  // namespace tp::exact_search

#endif  // TENSORPLAN_SCHEDULE_SEGMENT_GRAPH_H
