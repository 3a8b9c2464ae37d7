#include "schedule/schedule_search.h"

#include <algorithm>
#include <random>

#include "base/noinline.h"
#include "liveness/liveness.h"

namespace tp {

int64_t schedule_lower_bound(const PlanningGraph& pg) {
  const int32_t n = pg.op_count();
  if (n == 0) return 0;
  const std::vector<Storage>& storages = pg.storage.storages;
  int64_t always_live = 0;
  // Graph outputs are never freed, so at the last step every one of them is
  // live, whatever the order: their sum bounds the peak too. It is what
  // settles a graph of independent ops at once (one op per output), where the
  // per-op bound below is far too weak and an exact search of the 2^n down-sets
  // would run into its state limit.
  int64_t outputs_at_end = 0;
  for (const Storage& s : storages) {
    if (s.graph_input && s.graph_output) always_live += s.arena_bytes();
    else if (s.graph_output) outputs_at_end += s.arena_bytes();
  }
  int64_t worst_step = 0;
  for (int32_t v = 0; v < n; ++v) {
    int64_t step = pg.op_workspace[v];
    for (int32_t k = pg.touch_offsets[v]; k < pg.touch_offsets[v + 1]; ++k) {
      const Storage& s = storages[pg.touches[k]];
      if (!(s.graph_input && s.graph_output)) step += s.arena_bytes();
    }
    worst_step = std::max(worst_step, step);
  }
  // The last op is one without successors, and what it reads and its
  // workspace are live at that step too: the least of those over such ops.
  int64_t last_op_extra = -1;
  for (int32_t v = 0; v < n; ++v) {
    if (pg.succ_offsets[v + 1] != pg.succ_offsets[v]) continue;
    int64_t extra = pg.op_workspace[v];
    for (int32_t k = pg.touch_offsets[v]; k < pg.touch_offsets[v + 1]; ++k) {
      const Storage& s = storages[pg.touches[k]];
      if (!s.graph_output) extra += s.arena_bytes();
    }
    if (last_op_extra < 0 || extra < last_op_extra) last_op_extra = extra;
  }
  const int64_t at_end = outputs_at_end + std::max<int64_t>(last_op_extra, 0);
  return always_live + std::max(worst_step, at_end);
}

ForcedLiveBound::ForcedLiveBound(const PlanningGraph& pg)
    : pg_(pg), mark_(static_cast<size_t>(pg.op_count()), 0), if_before_(static_cast<size_t>(pg.op_count()), 0),
      if_after_(static_cast<size_t>(pg.op_count()), 0) {}

int64_t ForcedLiveBound::at(int32_t v) {
  const std::vector<Storage>& storages = pg_.storage.storages;
  std::fill(mark_.begin(), mark_.end(), 0);
  // Walk predecessors (bit 1) and successors (bit 2) from v.
  for (int32_t dir = 0; dir < 2; ++dir) {
    const uint8_t bit = dir == 0 ? 1 : 2;
    const std::vector<int32_t>& offsets = dir == 0 ? pg_.pred_offsets : pg_.succ_offsets;
    const std::vector<int32_t>& edges = dir == 0 ? pg_.preds : pg_.succs;
    mark_[v] |= bit;
    stack_.assign(1, v);
    while (!stack_.empty()) {
      const int32_t u = stack_.back();
      stack_.pop_back();
      for (int32_t k = offsets[u]; k < offsets[u + 1]; ++k) {
        const int32_t w = edges[k];
        if (!(mark_[w] & bit)) {
          mark_[w] |= bit;
          stack_.push_back(w);
        }
      }
    }
  }
  int64_t live = pg_.op_workspace[v];
  for (int32_t s = 0; s < pg_.storage_count(); ++s) {
    const Storage& st = storages[s];
    if (st.arena_bytes() == 0) continue;
    bool before = st.graph_input, after = st.graph_output && (st.graph_input || pg_.user_count(s) > 0);
    int32_t chooser = -1;  // a user neither before nor after v in every order
    for (int32_t k = pg_.user_offsets[s]; k < pg_.user_offsets[s + 1]; ++k) {
      const uint8_t m = mark_[pg_.users[k]];
      before = before || (m & 1);
      after = after || (m & 2);
      if (m == 0) chooser = pg_.users[k];
    }
    if (before && after) {
      live += st.arena_bytes();
    } else if (chooser >= 0 && (before || after)) {
      // Alive at v's step when that unordered user runs after v (it exists
      // before v and that user needs it), or when it runs before v (it
      // brings it to life and an op at or after v needs it).
      if (if_before_[chooser] == 0 && if_after_[chooser] == 0) choosers_.push_back(chooser);
      (before ? if_after_ : if_before_)[chooser] += st.arena_bytes();
    }
  }
  // Each unordered op runs before v or after it: the lesser of its two sums
  // is alive at v's step in every order (a storage counts for one op at
  // most, the unordered user it was given to). The SP re-gather of a saved
  // input for a weight gradient is such an op: it may run any time after
  // the forward, so at a backward op either the saved shard or the gathered
  // input it makes is alive.
  for (int32_t w : choosers_) {
    live += std::min(if_before_[w], if_after_[w]);
    if_before_[w] = if_after_[w] = 0;
  }
  choosers_.clear();
  return live;
}

int64_t forced_live_bound(const PlanningGraph& pg, const std::vector<int32_t>& at_ops) {
  ForcedLiveBound bound_at(pg);
  int64_t bound = 0;
  for (int32_t v : at_ops) bound = std::max(bound, bound_at.at(v));
  return bound;
}

// ---------------------------------------------------------------------------
// Local search
// ---------------------------------------------------------------------------
namespace {

class MoveEvaluator {
 public:
  explicit MoveEvaluator(const PlanningGraph& pg) : pg_(pg), n_(pg.op_count()) {
    const int32_t storage_count = pg.storage_count();
    birth_.resize(storage_count);
    death_.resize(storage_count);
    pos_.resize(n_);
    live_.resize(n_);
    prefix_max_.resize(n_);
    suffix_max_.resize(n_ + 1);
    prefix_count_.resize(n_ + 1);
    new_first_.assign(storage_count, -1);
    new_last_.assign(storage_count, -1);
    stamp_.assign(storage_count, 0);
  }

  // Recomputes positions, lifetimes and the live profile of `order`.
  void reset(const std::vector<int32_t>& order) {
    order_ = order;
    const std::vector<Storage>& storages = pg_.storage.storages;
    for (int32_t i = 0; i < n_; ++i) pos_[order_[i]] = i;
    std::fill(birth_.begin(), birth_.end(), -1);
    std::fill(death_.begin(), death_.end(), -1);
    for (int32_t i = 0; i < n_; ++i) {
      const int32_t op = order_[i];
      for (int32_t k = pg_.touch_offsets[op]; k < pg_.touch_offsets[op + 1]; ++k) {
        const int32_t s = pg_.touches[k];
        if (birth_[s] < 0) birth_[s] = i;
        death_[s] = i;
      }
    }
    std::vector<int64_t> delta(n_ + 1, 0);
    for (size_t s = 0; s < storages.size(); ++s) {
      if (storages[s].graph_input) {
        birth_[s] = 0;
        if (death_[s] < 0) death_[s] = 0;
      }
      if (storages[s].graph_output && birth_[s] >= 0) death_[s] = n_ - 1;
      if (birth_[s] < 0 || storages[s].arena_bytes() == 0) continue;
      delta[birth_[s]] += storages[s].arena_bytes();
      delta[death_[s] + 1] -= storages[s].arena_bytes();
    }
    int64_t running = 0;
    peak_ = 0;
    for (int32_t i = 0; i < n_; ++i) {
      running += delta[i];
      live_[i] = running + pg_.op_workspace[order_[i]];
      peak_ = std::max(peak_, live_[i]);
      prefix_max_[i] = i == 0 ? live_[i] : std::max(prefix_max_[i - 1], live_[i]);
    }
    suffix_max_[n_] = 0;
    for (int32_t i = n_ - 1; i >= 0; --i) suffix_max_[i] = std::max(suffix_max_[i + 1], live_[i]);
    prefix_count_[0] = 0;
    for (int32_t i = 0; i < n_; ++i) prefix_count_[i + 1] = prefix_count_[i] + (live_[i] == peak_ ? 1 : 0);
  }

  int64_t peak() const { return peak_; }
  int32_t peak_count() const { return prefix_count_[n_]; }
  int32_t first_peak_step() const {
    for (int32_t i = 0; i < n_; ++i) if (live_[i] == peak_) return i;
    return -1;
  }
  const std::vector<int32_t>& order() const { return order_; }
  int32_t pos(int32_t op) const { return pos_[op]; }
  int32_t birth(int32_t s) const { return birth_[s]; }
  int32_t death(int32_t s) const { return death_[s]; }

  // Earliest and latest index `op` may move to.
  int32_t earliest(int32_t op) const {
    int32_t e = 0;
    for (int32_t k = pg_.pred_offsets[op]; k < pg_.pred_offsets[op + 1]; ++k) e = std::max(e, pos_[pg_.preds[k]] + 1);
    return e;
  }
  int32_t latest(int32_t op) const {
    int32_t l = n_ - 1;
    for (int32_t k = pg_.succ_offsets[op]; k < pg_.succ_offsets[op + 1]; ++k) l = std::min(l, pos_[pg_.succs[k]] - 1);
    return l;
  }

  // (peak, steps at that peak) after moving the op at index i to index j,
  // recomputing only the window between them.
  std::pair<int64_t, int32_t> evaluate(int32_t i, int32_t j) {
    const int32_t lo = std::min(i, j), hi = std::max(i, j);
    // New occupant of each window index.
    std::vector<int32_t>& window = move_window_;
    window.resize(hi - lo + 1);
    for (int32_t k = lo; k <= hi; ++k) {
      int32_t from = k;
      if (j < i) from = k == j ? i : k - 1;
      else if (j > i) from = k == j ? i : k + 1;
      window[k - lo] = order_[from];
    }
    return evaluate_window(lo, window);
  }

  // (peak, steps at that peak) after replacing order[lo .. lo + size) by
  // `window`, a reordering of the same ops. Only storages touched inside the
  // window can change their lifetimes, and only inside it.
  std::pair<int64_t, int32_t> evaluate_window(int32_t lo, const std::vector<int32_t>& window) {
    const std::vector<Storage>& storages = pg_.storage.storages;
    const int32_t width = static_cast<int32_t>(window.size());
    const int32_t hi = lo + width - 1;
    ++epoch_;
    touched_.clear();
    window_ = window;
    for (int32_t k = lo; k <= hi; ++k) {
      const int32_t op = window_[k - lo];
      for (int32_t t = pg_.touch_offsets[op]; t < pg_.touch_offsets[op + 1]; ++t) {
        const int32_t s = pg_.touches[t];
        if (stamp_[s] != epoch_) {
          stamp_[s] = epoch_;
          touched_.push_back(s);
          new_first_[s] = k;
        }
        new_last_[s] = k;
      }
    }
    // Bytes alive throughout the window that no window op touches.
    int64_t untouched = live_[lo] - pg_.op_workspace[order_[lo]];
    for (int32_t s : touched_) {
      if (birth_[s] <= lo && lo <= death_[s]) untouched -= storages[s].arena_bytes();
    }
    delta_.assign(width + 1, 0);
    for (int32_t s : touched_) {
      const int64_t bytes = storages[s].arena_bytes();
      if (bytes == 0) continue;
      int32_t b = birth_[s] < lo ? birth_[s] : new_first_[s];
      int32_t d = death_[s] > hi ? death_[s] : new_last_[s];
      if (storages[s].graph_input) b = 0;
      if (storages[s].graph_output) d = n_ - 1;
      d = std::max(d, b);
      const int32_t from = std::max(b, lo), to = std::min(d, hi);
      if (from > to) continue;
      delta_[from - lo] += bytes;
      delta_[to - lo + 1] -= bytes;
    }
    int64_t running = untouched, window_peak = 0;
    int32_t window_count = 0;
    std::vector<int64_t>& values = window_live_;
    values.resize(width);
    for (int32_t k = 0; k < width; ++k) {
      running += delta_[k];
      values[k] = running + pg_.op_workspace[window_[k]];
      window_peak = std::max(window_peak, values[k]);
    }
    const int64_t outside = std::max(lo > 0 ? prefix_max_[lo - 1] : 0, suffix_max_[hi + 1]);
    const int64_t new_peak = std::max(outside, window_peak);
    if (new_peak != peak_) return {new_peak, 0};
    for (int32_t k = 0; k < width; ++k) window_count += values[k] == peak_ ? 1 : 0;
    const int32_t outside_count = prefix_count_[lo] + (prefix_count_[n_] - prefix_count_[hi + 1]);
    return {new_peak, outside_count + window_count};
  }

  void apply_window(int32_t lo, const std::vector<int32_t>& window) {
    std::vector<int32_t> order = order_;
    std::copy(window.begin(), window.end(), order.begin() + lo);
    reset(order);
  }

  // Reorders order[lo..hi] so that the ops with keep_first[op] set come first
  // (each group keeps its relative order). Returns false if nothing moves.
  bool partition_window(int32_t lo, int32_t hi, const std::vector<uint8_t>& first, std::vector<int32_t>* out) const {
    out->clear();
    for (int32_t k = lo; k <= hi; ++k) if (first[order_[k]]) out->push_back(order_[k]);
    const size_t head = out->size();
    for (int32_t k = lo; k <= hi; ++k) if (!first[order_[k]]) out->push_back(order_[k]);
    if (head == 0 || head == out->size()) return false;
    for (int32_t k = lo; k <= hi; ++k) if ((*out)[k - lo] != order_[k]) return true;
    return false;
  }

  void apply(int32_t i, int32_t j) {
    std::vector<int32_t> order = order_;
    const int32_t op = order[i];
    order.erase(order.begin() + i);
    order.insert(order.begin() + j, op);
    reset(order);
  }

 private:
  const PlanningGraph& pg_;
  int32_t n_;
  std::vector<int32_t> order_, pos_, birth_, death_;
  std::vector<int64_t> live_, prefix_max_, suffix_max_;
  std::vector<int32_t> prefix_count_;
  int64_t peak_ = 0;
  // Scratch for evaluate().
  std::vector<int32_t> new_first_, new_last_, stamp_, touched_, window_, move_window_;
  std::vector<int64_t> delta_, window_live_;
  int32_t epoch_ = 0;
};

bool better(std::pair<int64_t, int32_t> a, std::pair<int64_t, int32_t> b) {
  return a.first != b.first ? a.first < b.first : a.second < b.second;
}

// Storages alive at step p with arena bytes, largest first (ties: the higher
// storage id first), at most 24: the ones whose lifetimes the moves try to cut.
std::vector<std::pair<int64_t, int32_t>> storages_alive_at(const PlanningGraph& pg, const MoveEvaluator& eval,
                                                           int32_t p) {
  const std::vector<Storage>& storages = pg.storage.storages;
  std::vector<std::pair<int64_t, int32_t>> alive;
  for (int32_t s = 0; s < pg.storage_count(); ++s) {
    if (eval.birth(s) >= 0 && eval.birth(s) <= p && p <= eval.death(s) && storages[s].arena_bytes() > 0) {
      alive.push_back({storages[s].arena_bytes(), s});
    }
  }
  std::sort(alive.begin(), alive.end(), std::greater<std::pair<int64_t, int32_t>>());
  if (alive.size() > 24) alive.resize(24);
  return alive;
}

// The ops worth moving, ascending and without repeats: those within a few
// steps of the peak, and the producers (delay them) and last users (hurry
// them) of the storages alive at the peak.
std::vector<int32_t> single_move_candidates(const PlanningGraph& pg, const MoveEvaluator& eval, int32_t p,
                                            const std::vector<std::pair<int64_t, int32_t>>& alive) {
  const int32_t n = pg.op_count();
  const std::vector<Storage>& storages = pg.storage.storages;
  std::vector<int32_t> candidates;
  const int32_t radius = 6;
  for (int32_t k = std::max(0, p - radius); k <= std::min(n - 1, p + radius); ++k) candidates.push_back(eval.order()[k]);
  for (const auto& entry : alive) {
    const int32_t s = entry.second;
    if (!storages[s].graph_input) candidates.push_back(eval.order()[eval.birth(s)]);
    if (!storages[s].graph_output) candidates.push_back(eval.order()[eval.death(s)]);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  return candidates;
}

// The best move seen so far in one pass: either a single op moved from step
// i to step j, or (window_lo >= 0) a reordered window starting at window_lo.
struct BestMove {
  std::pair<int64_t, int32_t> score;  // (peak, steps at the peak) after the move
  int32_t i = -1, j = -1;
  int32_t window_lo = -1;
  std::vector<int32_t> window;
};

// Single moves: each candidate op to the peak step, the end of its legal
// range, or next to the peak, on the side of the peak it is not on yet.
void try_single_moves(const std::vector<int32_t>& candidates, int32_t p, MoveEvaluator* eval, Deadline deadline,
                      ImproveStats* stats, BestMove* best) {
  int32_t checked = 0;
  for (int32_t op : candidates) {
    const int32_t i = eval->pos(op);
    const int32_t e = eval->earliest(op), l = eval->latest(op);
    int32_t targets[6] = {-1, -1, -1, -1, -1, -1};
    if (i <= p) {
      targets[0] = std::min(p, l);
      targets[1] = l;
      targets[2] = std::min(p + 1, l);
    }
    if (i >= p) {
      targets[3] = std::max(p, e);
      targets[4] = e;
      targets[5] = std::max(p - 1, e);
    }
    for (int32_t j : targets) {
      if (j < 0 || j == i || j < e || j > l) continue;
      ++stats->moves_tried;
      const std::pair<int64_t, int32_t> result = eval->evaluate(i, j);
      if (better(result, best->score)) {
        best->score = result;
        best->i = i;
        best->j = j;
      }
    }
    // The work count (what a work-bounded search sees) stays one unit per 8
    // candidates; a timed one also reads the clock after every candidate,
    // whose moves can each recompute a window as wide as the graph.
    if ((++checked & 7) == 0 && deadline.passed()) break;
    if (deadline.clock_passed()) break;
  }
}

// Builds the reordered window of one compound move for storage s. kind 0
// hoists the last user (after the peak) with its ancestors inside the window
// [p, death]; kind 1 sinks the producer (before the peak) with its
// descendants inside [birth, p] (the rest of the window goes first). Returns
// the window's first step, or -1 when the move does not apply, is too wide,
// or moves nothing. `mark` is all zero on entry and on return; `stack` is
// scratch.
int32_t compound_window(const PlanningGraph& pg, const MoveEvaluator& eval, int32_t s, int32_t kind, int32_t p,
                        std::vector<uint8_t>* marks, std::vector<int32_t>* stack, std::vector<int32_t>* window) {
  const std::vector<Storage>& storages = pg.storage.storages;
  const int32_t max_width = 4096;
  std::vector<uint8_t>& mark = *marks;
  int32_t lo = 0, hi = 0, seed = -1;
  if (kind == 0 && !storages[s].graph_output && eval.death(s) > p) {
    lo = p;
    hi = eval.death(s);
    seed = eval.order()[hi];
  } else if (kind == 1 && !storages[s].graph_input && eval.birth(s) < p) {
    lo = eval.birth(s);
    hi = p;
    seed = eval.order()[lo];
  }
  if (seed < 0 || hi - lo + 1 > max_width) return -1;
  // kind 0: ancestors of seed inside [lo, hi] go first.
  // kind 1: descendants of seed inside [lo, hi] go last (the rest first).
  std::vector<int32_t> members;
  mark[seed] = 1;
  members.push_back(seed);
  stack->assign(1, seed);
  const std::vector<int32_t>& offsets = kind == 0 ? pg.pred_offsets : pg.succ_offsets;
  const std::vector<int32_t>& edges = kind == 0 ? pg.preds : pg.succs;
  while (!stack->empty()) {
    const int32_t u = stack->back();
    stack->pop_back();
    for (int32_t k = offsets[u]; k < offsets[u + 1]; ++k) {
      const int32_t w = edges[k];
      const int32_t at = eval.pos(w);
      if (mark[w] || at < lo || at > hi) continue;
      mark[w] = 1;
      members.push_back(w);
      stack->push_back(w);
    }
  }
  if (kind == 1) {
    for (int32_t k = lo; k <= hi; ++k) mark[eval.order()[k]] ^= 1;  // the rest go first
  }
  const bool moved = eval.partition_window(lo, hi, mark, window);
  if (kind == 1) {
    for (int32_t k = lo; k <= hi; ++k) mark[eval.order()[k]] = 0;
  } else {
    for (int32_t m : members) mark[m] = 0;
  }
  return moved ? lo : -1;
}

// Compound moves, for what single moves cannot reach: hoist the last user
// of a storage alive at the peak, with its ancestors that run between the
// peak and it, to just before the peak (the storage then dies earlier); or
// sink the producer of one, with its descendants that run between it and
// the peak, to just after the peak (the storage is then born later).
void try_compound_moves(const PlanningGraph& pg, const std::vector<std::pair<int64_t, int32_t>>& alive, int32_t p,
                        MoveEvaluator* eval, Deadline deadline, ImproveStats* stats, BestMove* best) {
  std::vector<int32_t> window, stack;
  std::vector<uint8_t> mark(pg.op_count(), 0);
  for (const auto& entry : alive) {
    if (deadline.passed()) break;
    const int32_t s = entry.second;
    for (int32_t kind = 0; kind < 2; ++kind) {
      const int32_t lo = compound_window(pg, *eval, s, kind, p, &mark, &stack, &window);
      if (lo < 0) continue;
      ++stats->moves_tried;
      const std::pair<int64_t, int32_t> result = eval->evaluate_window(lo, window);
      if (better(result, best->score)) {
        best->score = result;
        best->window_lo = lo;
        best->window = window;
        best->i = -1;
      }
    }
  }
}

// One best-improvement pass around the first peak step. Returns false when no
// candidate move improves (a local optimum) or the deadline passed.
// Not inlined into improve_schedule: V8 runs a long WASM call in the
// baseline (Liftoff) code it entered with and swaps in optimised code only at
// the next call, so the descent's hot body must be a function of its own that
// each pass calls anew; inlined, the first plan() runs it unoptimised to the end.
TP_NOINLINE bool improve_once(const PlanningGraph& pg, MoveEvaluator* eval, Deadline deadline, ImproveStats* stats) {
  const int32_t p = eval->first_peak_step();
  if (p < 0) return false;
  const std::vector<std::pair<int64_t, int32_t>> alive = storages_alive_at(pg, *eval, p);
  const std::vector<int32_t> candidates = single_move_candidates(pg, *eval, p, alive);

  BestMove best;
  best.score = {eval->peak(), eval->peak_count()};  // a move must beat the current order
  try_single_moves(candidates, p, eval, deadline, stats, &best);
  try_compound_moves(pg, alive, p, eval, deadline, stats, &best);
  if (best.window_lo >= 0) {
    eval->apply_window(best.window_lo, best.window);
    ++stats->moves_accepted;
    return true;
  }
  if (best.i < 0) return false;
  eval->apply(best.i, best.j);
  ++stats->moves_accepted;
  return true;
}

}  // namespace

int64_t improve_schedule(const PlanningGraph& pg, std::vector<int32_t>* order, Deadline deadline,
                         uint64_t seed, ImproveStats* stats) {
  const int32_t n = pg.op_count();
  if (n < 2) return schedule_peak(pg, *order);
  MoveEvaluator eval(pg);
  eval.reset(*order);
  const int64_t lower = schedule_lower_bound(pg);
  std::vector<int32_t> best = *order;
  std::pair<int64_t, int32_t> best_score(eval.peak(), eval.peak_count());
  std::mt19937_64 rng(seed);
  int32_t stale_rounds = 0;
  // Iterated local search: descend, then kick the best order with a few
  // random legal moves and descend again, until the deadline or until many
  // kicks in a row found nothing better.
  while (!deadline.passed() && best_score.first > lower) {
    while (improve_once(pg, &eval, deadline, stats)) {
      if (eval.peak() <= lower || deadline.passed()) break;
    }
    const std::pair<int64_t, int32_t> score(eval.peak(), eval.peak_count());
    if (better(score, best_score)) {
      best_score = score;
      best = eval.order();
      stale_rounds = 0;
    } else if (++stale_rounds >= 200) {
      break;
    }
    eval.reset(best);
    const int32_t kicks = 1 + static_cast<int32_t>(rng() % 4);
    for (int32_t k = 0; k < kicks; ++k) {
      const int32_t i = static_cast<int32_t>(rng() % static_cast<uint64_t>(n));
      const int32_t op = eval.order()[i];
      const int32_t e = eval.earliest(op), l = eval.latest(op);
      if (l <= e) continue;
      const int32_t j = e + static_cast<int32_t>(rng() % static_cast<uint64_t>(l - e + 1));
      if (j != i) eval.apply(i, j);
    }
  }
  *order = best;
  return best_score.first;
}

}  // namespace tp
