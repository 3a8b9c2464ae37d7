#include "schedule/schedule_exact.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "liveness/liveness.h"
#include "schedule/down_set_memo.h"
#include "schedule/four_ary_heap.h"
#include "schedule/schedule_state.h"
#include "schedule/segment_graph.h"
#include "schedule/valley_runs.h"

namespace tp {

namespace {

using exact_search::Mask;
using exact_search::MaskHash;
using exact_search::SegmentGraph;
using exact_search::segment_graph;

// What the memo keeps per set: only what depends on the path to it. What
// depends on the set alone (its bytes alive and its bound) travels in the
// queue entries, which are few next to the memoised sets (on the moe-layer
// proof, at most 0.6M queued against 4.3M memoised).
struct DownSet {
  int64_t peak;    // best peak over the segment's steps so far
  int32_t via_op;  // last local op run to reach this set on the best path
};

// A set waiting in the queue, keyed by f = max(peak, bound) when pushed.
template <int W>
struct OpenSet {
  int64_t f;
  int64_t live;   // bytes alive after the set's last step's frees
  int64_t bound;  // set_bound of the set: no completion of it peaks lower
  int32_t depth;  // ops in the set
  Mask<W> mask;
};

// Best-first over the segment's down-sets, keyed by the lower bound on any
// completion, deeper sets first among equals. Returns the best peak (the
// incumbent when nothing beats it) and, when one does, its local order.
// stats->bound is what the search proved: no order of the segment peaks
// lower. Every order not yet ruled out passes through a set in the open
// queue or through one dropped at the state limit, so when the search stops
// early the bound is the least key among those (the queue is a min-heap, and
// the entry just popped was its least), capped by the incumbent.
template <int W>
int64_t search_segment(const SegmentGraph<W>& g, int64_t incumbent, Deadline deadline, int64_t max_states,
                       int64_t pop_mask, bool* proved, ExactStats* stats, std::vector<int32_t>* found_order) {
  using Key = Mask<W>;
  DownSetMemo<Key, DownSet, MaskHash<W>> seen;
  max_states = std::min<int64_t>(max_states, static_cast<int64_t>(decltype(seen)::kMaxEntries));
  using Entry = OpenSet<W>;
  // Least f first, then the deeper set, then the lower mask.
  auto sooner = [](const Entry& a, const Entry& b) {
    if (a.f != b.f) return a.f < b.f;
    if (a.depth != b.depth) return a.depth > b.depth;
    return a.mask < b.mask;
  };
  FourAryHeap<Entry, decltype(sooner)> open(sooner);
  const Key empty{};
  const int64_t empty_bound = g.set_bound(empty);
  seen.insert(empty, DownSet{0, -1});
  open.push(Entry{empty_bound, g.start_live, empty_bound, 0, empty});
  bool complete = true;
  bool found_better = false;
  int64_t pops = 0;
  int64_t dropped = INT64_MAX;  // least key of a set dropped at the state limit
  int64_t bound = INT64_MAX;    // least key of what is left when the search stops early
  struct Child {
    int32_t op;
    int64_t born, freed;
    Key next;     // the set with the op run (its canonical copy)
    int32_t via;  // the op in that copy's terms
  };
  std::vector<Child> ready;
  std::vector<int32_t> firsts;
  const bool symmetric = !g.symmetry.empty();
  BranchSymmetry symmetry = g.symmetry;  // its scratch changes as it works
  // The queue holds up to one entry per child pushed, more than the memoised
  // sets: it is held to a few times the state limit too (memory, and the
  // time a reallocation of a huge queue takes past the deadline).
  const size_t max_open = static_cast<size_t>(4 * std::max<int64_t>(max_states, 1024));
  while (!open.empty()) {
    const Entry entry = open.top();
    open.pop();
    const Key mask = entry.mask;
    const int64_t key = entry.f;
    const DownSet state = *seen.find(mask);
    if (key >= incumbent) break;  // nothing left can beat the incumbent
    if (mask == g.full) {
      incumbent = state.peak;
      found_better = true;
      break;  // best-first: the first complete set popped is optimal
    }
    // Stale: a lower peak reached the set after this entry was pushed.
    if (std::max(state.peak, entry.bound) != key) continue;
    // Work (what a work-bounded search counts): with pop_mask 0, one unit
    // per pop and one per 4 children it may make (a child is a few hundred
    // ns of work); else one unit per pop_mask + 1 pops. And a look at the
    // clock every 64 pops, so a timed search stops within milliseconds.
    ++pops;
    const bool out_of_work = pop_mask == 0 ? deadline.spend(1 + (g.m - mask.count()) / 4)
                                           : ((pops & pop_mask) == 0 && deadline.passed());
    if (out_of_work || ((pops & 63) == 0 && deadline.clock_passed()) || open.size() >= max_open) {
      complete = false;
      bound = key;
      break;
    }
    // The ready ops, each with what it brings to life and what dies after it.
    // Of interchangeable branches at the same point, only the first is
    // expanded: the others give copies of its child.
    ready.clear();
    for (int32_t v = 0; v < g.m; ++v) {
      if (mask.test(v) || g.pred_mask[v].meets_outside(mask)) continue;
      if (symmetric && symmetry.redundant(mask.w, v)) continue;
      Child child{v, 0, 0, Key{}, v};
      g.op_effect(mask, v, &child.born, &child.freed);
      ready.push_back(child);
    }
    // An op that frees at least what it brings to life, at a step no higher
    // than the set's key, runs next in some optimal completion: moved to the
    // front of any completion, it raises no later step (the bytes it adds
    // minus those it frees can only fall as more ops run: a storage it would
    // bring to life may be born by then, one it frees stays its to free), and
    // its own step is within the key, itself a bound on every completion. So
    // it is the set's only child (the search keeps an optimal order and every
    // bound it reports).
    bool forced = false;
    for (size_t i = 0; i < ready.size() && !forced; ++i) {
      const Child child = ready[i];
      if (child.born <= child.freed && entry.live + child.born + g.workspace[child.op] <= key) {
        ready.assign(1, child);
        forced = true;
      }
    }
    // The same holds for a run of several ops (a valley run): ops that can
    // run one after another from this set, each step within the key, after
    // which no more bytes are alive than after any part of the run that an
    // order could run first (any subset closed under the run's own
    // dependencies, the set itself included). Moved to the front of any
    // completion, the run's steps stay within the key, and every later step
    // holds at most what it held before: the run's ops bring to life only
    // what they would have (or less: another op may have born it by then),
    // and what they free stays freed. So its first op is the only child (at
    // that child the rest of the run, or another, is found again). A branch
    // that climbs for a few ops and then falls below where it started, like
    // an expert's backward pass, is not interleaved with the others.
    if (!forced && ready.size() > 1 && !(mask == empty)) {
      firsts.clear();
      for (const Child& child : ready) firsts.push_back(child.op);
      const int32_t first = exact_search::valley_first(g, mask, entry.live, key, firsts);
      if (first >= 0) {
        const Child chosen = *std::find_if(ready.begin(), ready.end(), [&](const Child& c) { return c.op == first; });
        ready.assign(1, chosen);
        ++stats->valley_runs;
      }
    }
    // The children's sets first, each looked up in the memo's index ahead
    // (a cache miss each, overlapped rather than one after another). The
    // memo holds the canonical copy, and the op that reached it in that
    // copy's terms (its bytes and completions are the same).
    for (Child& child : ready) {
      child.next = mask;
      child.next.set(child.op);
      child.via = child.op;
      if (symmetric) {
        symmetry.canonicalise_added(child.next.w, child.op);
        child.via = symmetry.moved(child.op);
      }
      seen.prefetch(child.next);
    }
    for (const Child& child : ready) {
      const int32_t v = child.op, via = child.via;
      const int64_t born = child.born, freed = child.freed;
      const Key& next = child.next;
      const int64_t step = entry.live + born + g.workspace[v];
      const int64_t peak = std::max(state.peak, step);
      if (peak >= incumbent) continue;
      const int64_t live = entry.live + born - freed - (mask == empty ? g.unused_inputs : 0);
      DownSet* known = seen.find(next);
      if (known != nullptr && known->peak <= peak) continue;
      // A set reached again with a lower peak gets its bound again too (it
      // is not memoised: that is rare, and the memo stays small).
      const int64_t set_bound = g.set_bound(next);
      if (known == nullptr) {
        if (static_cast<int64_t>(seen.size()) >= max_states) {
          complete = false;
          stats->hit_state_limit = true;
          dropped = std::min(dropped, std::max(peak, set_bound));
          continue;
        }
        seen.insert(next, DownSet{peak, via});
      } else {
        *known = DownSet{peak, via};
      }
      const int64_t f = std::max(peak, set_bound);
      if (f < incumbent) open.push(Entry{f, live, set_bound, entry.depth + 1, next});
    }
  }
  stats->states += static_cast<int64_t>(seen.size());
  stats->bound = complete ? incumbent : std::min(incumbent, std::min(bound, dropped));
  if (found_better) {
    // The order that reached the full set on the best path, read back through
    // via_op. With symmetry each memoised set is a canonical copy, and the
    // frame maps it onto the real set run so far.
    Key mask = g.full;
    found_order->clear();
    symmetry.reset_frame();
    while (!(mask == empty)) {
      const int32_t v = seen.find(mask)->via_op;
      found_order->push_back(symmetry.real(v));
      mask.reset(v);
      if (symmetric) {
        symmetry.canonicalise(mask.w);
        symmetry.follow_back();
      }
    }
    std::reverse(found_order->begin(), found_order->end());
  }
  *proved = complete;
  return incumbent;
}

template <int W>
int64_t exact_segment_with(const PlanningGraph& pg, std::vector<int32_t>* order, int32_t begin, int32_t end,
                           const std::vector<int64_t>& op_bound, int64_t incumbent, Deadline deadline,
                           int64_t max_states, int64_t pop_mask, bool* proved, ExactStats* stats) {
  const SegmentGraph<W> g = segment_graph<W>(pg, *order, begin, end, op_bound);
  std::vector<int32_t> local_order;
  const int64_t peak = search_segment<W>(g, incumbent, deadline, max_states, pop_mask, proved, stats, &local_order);
  if (!local_order.empty()) {
    for (int32_t i = 0; i < g.m; ++i) (*order)[begin + i] = g.ops[local_order[i]];
  }
  return peak;
}

}  // namespace

std::vector<int64_t> step_bytes(const PlanningGraph& pg, const std::vector<int32_t>& order) {
  ScheduleState state(pg);
  std::vector<int64_t> steps(order.size());
  std::vector<int32_t> ready, changed;
  for (size_t i = 0; i < order.size(); ++i) {
    const int32_t v = order[i];
    steps[i] = state.live() + state.new_bytes(v) + pg.op_workspace[v];
    ready.clear();
    changed.clear();
    state.run(v, &ready, &changed);
  }
  return steps;
}

std::vector<int64_t> forced_live_per_op(const PlanningGraph& pg) {
  std::vector<int64_t> bounds(pg.op_count());
  ForcedLiveBound bound_at(pg);
  for (int32_t v = 0; v < pg.op_count(); ++v) bounds[v] = bound_at.at(v);
  return bounds;
}

std::vector<int64_t> touched_bytes_per_op(const PlanningGraph& pg) {
  const std::vector<Storage>& storages = pg.storage.storages;
  int64_t always_live = 0;
  for (const Storage& st : storages) {
    if (st.graph_input && st.graph_output) always_live += st.arena_bytes();
  }
  std::vector<int64_t> bounds(pg.op_count());
  for (int32_t v = 0; v < pg.op_count(); ++v) {
    bounds[v] = always_live + pg.op_workspace[v];
    for (int32_t k = pg.touch_offsets[v]; k < pg.touch_offsets[v + 1]; ++k) {
      const Storage& st = storages[pg.touches[k]];
      if (!(st.graph_input && st.graph_output)) bounds[v] += st.arena_bytes();
    }
  }
  return bounds;
}

int64_t exact_segment(const PlanningGraph& pg, std::vector<int32_t>* order, int32_t begin, int32_t end,
                      const std::vector<int64_t>& op_bound, Deadline deadline, int64_t max_states, bool* proved,
                      ExactStats* stats) {
  const std::vector<int64_t> steps = step_bytes(pg, *order);
  int64_t incumbent = 0, bound = 0;
  for (int32_t i = begin; i < end; ++i) {
    incumbent = std::max(incumbent, steps[i]);
    bound = std::max(bound, op_bound[(*order)[i]]);
  }
  *proved = incumbent <= bound;
  stats->bound = bound;
  const int32_t m = end - begin;
  if (*proved || m > kExactSegmentMaxOps) return incumbent;
  if (m <= 64) return exact_segment_with<1>(pg, order, begin, end, op_bound, incumbent, deadline, max_states, 0, proved, stats);
  if (m <= 128) return exact_segment_with<2>(pg, order, begin, end, op_bound, incumbent, deadline, max_states, 0, proved, stats);
  // Wider masks make every memoised set and queue entry larger: the state
  // limit shrinks with the width so that the memory stays what 128 ops take.
  if (m <= 256) return exact_segment_with<4>(pg, order, begin, end, op_bound, incumbent, deadline, max_states / 2, 0, proved, stats);
  if (m <= 512) return exact_segment_with<8>(pg, order, begin, end, op_bound, incumbent, deadline, max_states / 4, 0, proved, stats);
  if (m <= 1024) return exact_segment_with<16>(pg, order, begin, end, op_bound, incumbent, deadline, max_states / 8, 0, proved, stats);
  return exact_segment_with<32>(pg, order, begin, end, op_bound, incumbent, deadline, max_states / 16, 0, proved, stats);
}

int64_t exact_schedule(const PlanningGraph& pg, std::vector<int32_t>* order, Deadline deadline,
                       int64_t max_states, bool* proved, ExactStats* stats) {
  const int32_t n = pg.op_count();
  const int64_t incumbent = schedule_peak(pg, *order);
  *proved = false;
  if (n == 0 || incumbent <= schedule_lower_bound(pg)) {
    *proved = true;
    return incumbent;
  }
  if (n > kExactMaxOps) return incumbent;
  // The whole graph is one segment (no ops before or after it).
  stats->states = 0;
  // One work unit per 1024 pops (pop_mask 1023), where the segment searches charge by
  // expansions; an untimed plan's order depends on this rate.
  return exact_segment_with<1>(pg, order, 0, n, touched_bytes_per_op(pg), incumbent, deadline, max_states, 1023,
                               proved, stats);
}

}  // namespace tp
