#include "schedule/schedule_exact.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "liveness/liveness.h"
#include "schedule/down_set_memo.h"
#include "schedule/four_ary_heap.h"
#include "schedule/schedule_state.h"
#include "schedule/segment_symmetry.h"

namespace tp {

namespace {

// A set of at most 64 * W segment ops.
template <int W>
struct Mask {
  uint64_t w[W] = {};
  void set(int32_t i) { w[i >> 6] |= uint64_t{1} << (i & 63); }
  void reset(int32_t i) { w[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool test(int32_t i) const { return (w[i >> 6] >> (i & 63)) & 1; }
  // Whether this set and `other` share an op.
  bool meets(const Mask& other) const {
    for (int k = 0; k < W; ++k) if (w[k] & other.w[k]) return true;
    return false;
  }
  // Whether this set has an op, other than `op`, that `other` lacks.
  bool user_left_after(const Mask& other, int32_t op) const {
    for (int k = 0; k < W; ++k) {
      uint64_t left = w[k] & ~other.w[k];
      if (k == (op >> 6)) left &= ~(uint64_t{1} << (op & 63));
      if (left) return true;
    }
    return false;
  }
  // Whether this set has an op that `other` lacks.
  bool meets_outside(const Mask& other) const {
    for (int k = 0; k < W; ++k) if (w[k] & ~other.w[k]) return true;
    return false;
  }
  Mask operator|(const Mask& o) const {
    Mask r;
    for (int k = 0; k < W; ++k) r.w[k] = w[k] | o.w[k];
    return r;
  }
  int32_t count() const {
    int32_t c = 0;
    for (int k = 0; k < W; ++k) c += __builtin_popcountll(w[k]);
    return c;
  }
  bool operator==(const Mask& o) const {
    for (int k = 0; k < W; ++k) if (w[k] != o.w[k]) return false;
    return true;
  }
  // Numeric order (highest word first): for W = 1 the order of the plain
  // uint64_t masks the search used before segments, so ties break the same way.
  bool operator<(const Mask& o) const {
    for (int k = W - 1; k >= 0; --k) if (w[k] != o.w[k]) return w[k] < o.w[k];
    return false;
  }
  bool operator>(const Mask& o) const { return o < *this; }
};

template <int W>
struct MaskHash {
  // splitmix64's finalizer per word; the high half is folded in, as size_t
  // has 32 bits on WASM (the low half of a product alone would only depend
  // on the low 32 ops of the set, and sets differing above would collide).
  size_t operator()(const Mask<W>& m) const {
    uint64_t h = 0;
    for (int k = 0; k < W; ++k) {
      uint64_t x = h ^ m.w[k];
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
      h = x ^ (x >> 31);
    }
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

// The set-dependent bound is computed on segments with at most this many
// local storages (a 1088-op Llama layer graph has 1378), as bit masks of
// (storages + 63) / 64 words.
constexpr int32_t kDynamicBoundMaxStorages = 2048;

// The longest valley run the search looks for (SegmentGraph::valley_first).
constexpr int32_t kValleyMaxOps = 8;

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

  // Bytes alive after `mask` plus the ops run[0, count) (none in `mask`, a
  // down-set with it), less those alive after `mask`.
  int64_t added_live(const Mask<W>& mask, const int32_t* run, int32_t count) const {
    Mask<W> all = mask;
    for (int32_t i = 0; i < count; ++i) all.set(run[i]);
    int64_t added = 0;
    std::vector<int32_t> counted;  // each storage once, however many run ops touch it
    counted.reserve(64);
    for (int32_t i = 0; i < count; ++i) {
      for (int32_t k = touch_offsets[run[i]]; k < touch_offsets[run[i] + 1]; ++k) {
        const int32_t s = touches[k];
        if (std::find(counted.begin(), counted.end(), s) != counted.end()) continue;
        counted.push_back(s);
        if (!(before[s] || user_mask[s].meets(mask))) added += bytes[s];
        if (!after[s] && !user_mask[s].meets_outside(all)) added -= bytes[s];
      }
    }
    return added;
  }

  // A valley run from the set `mask` (`live` bytes alive after it): ops
  // run[0, count) (count >= 2, from kValleyMaxOps at most) leaving `end`
  // bytes alive. It must leave no more alive than any down-set of it does
  // (the prefixes the caller checked; here every other subset closed under
  // the run's own dependencies, as another order may run those first).
  bool valley_holds(const Mask<W>& mask, int64_t live, const int32_t* run, int32_t count, int64_t end) const {
    for (uint32_t subset = 1; subset + 1 < (1u << count); ++subset) {
      int32_t part[kValleyMaxOps];
      int32_t size = 0;
      bool closed = true;
      for (int32_t i = 0; i < count && closed; ++i) {
        if (!((subset >> i) & 1)) continue;
        for (int32_t j = 0; j < count; ++j) {
          if (!((subset >> j) & 1) && pred_mask[run[i]].test(run[j])) closed = false;
        }
        part[size++] = run[i];
      }
      if (closed && live + added_live(mask, part, size) < end) return false;
    }
    return true;
  }

  // Looks for a valley run from `mask` (`live` bytes alive after it, `key`
  // a bound on every completion's peak) that starts with one of `firsts`;
  // returns that first op, or -1. Each run is grown greedily: next the ready
  // op, among the successors of the run and the users of what it touched,
  // that adds the fewest bytes net.
  int32_t valley_first(const Mask<W>& mask, int64_t live, int64_t key, const std::vector<int32_t>& firsts) const {
    for (const int32_t first : firsts) {
      Mask<W> done = mask, near;
      int32_t run[kValleyMaxOps];
      int32_t count = 0;
      int64_t alive = live, lowest = live;
      int32_t next = first;
      while (next >= 0 && count < kValleyMaxOps) {
        int64_t born, freed;
        op_effect(done, next, &born, &freed);
        if (alive + born + workspace[next] > key) break;
        alive += born - freed;
        done.set(next);
        run[count++] = next;
        if (count >= 2 && alive <= lowest && valley_holds(mask, live, run, count, alive)) return first;
        lowest = std::min(lowest, alive);
        near = near | succ_mask[next];
        for (int32_t k = touch_offsets[next]; k < touch_offsets[next + 1]; ++k) near = near | user_mask[touches[k]];
        next = -1;
        int64_t best = std::numeric_limits<int64_t>::max();
        for (int32_t k = 0; k < W; ++k) {
          for (uint64_t bits = near.w[k] & ~done.w[k]; bits; bits &= bits - 1) {
            const int32_t v = 64 * k + __builtin_ctzll(bits);
            if (pred_mask[v].meets_outside(done)) continue;
            op_effect(done, v, &born, &freed);
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
      const int32_t first = g.valley_first(mask, entry.live, key, firsts);
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
  // One work unit per 1024 pops, as before segments (plans depend on it).
  return exact_segment_with<1>(pg, order, 0, n, touched_bytes_per_op(pg), incumbent, deadline, max_states, 1023,
                               proved, stats);
}

}  // namespace tp
