// tensorplan's complete search for the decision problem "does everything fit
// below capacity K?", in the spirit of MiniMalloc (ASPLOS '23) but with
// incremental bookkeeping instead of per-node rebuilds.
//
// Canonical placements. Sort any placement by offset and push every buffer
// down: each buffer then sits at 0 or on top of a buffer alive with it that
// was placed before it. So the search only decides WHICH buffer comes next;
// its offset is forced: the top of the placed buffers alive with it (minoff).
// Offsets never decrease along a branch, ties go in preorder.
//
// Pruning, all sound:
//  - sections (maximal step ranges with a fixed set of live buffers): the
//    unplaced buffers of a section stack above max(current level, lowest
//    minoff among them), so that plus their total size must fit in K;
//  - dominance: never place a buffer at or above the top that another unplaced
//    buffer would have at its minoff (that one could be dropped into the gap);
//  - identical buffers (same lifetime, size, alignment) go in a fixed order;
//  - dynamic decomposition: once no unplaced buffer crosses a section
//    boundary, the two sides are independent and are solved one after the
//    other instead of interleaved (a product of choices becomes a sum).
// Failed subproblems are remembered by fingerprint (placed set + section
// tops), so restarts and transpositions skip what was already refuted.
// Restarts round-robin over three static orders with doubling node limits, so
// an easy instance is found quickly in whichever order suits it; a run that
// finishes within its limit without a placement is a proof of infeasibility.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool SearchBudget::expired() { return expires_within(0); }

bool SearchBudget::expires_within(double seconds) {
  if (timed_out) return true;
  if (settled != nullptr && settled->load(std::memory_order_relaxed)) return timed_out = true;
  if (deadline_seconds <= 0 && stall_seconds <= 0) return false;
  const double now = now_seconds();
  if (deadline_seconds > 0 && now + seconds > deadline_seconds) timed_out = true;
  if (stall_seconds > 0 && now > progress_seconds + stall_seconds) timed_out = stalled = true;
  return timed_out;
}

void SearchBudget::note_progress() { progress_seconds = now_seconds(); }

void SearchBudget::note_improvement() { progress_seconds = improved_seconds = now_seconds(); }

namespace {

enum class Step { kFound, kNotFound, kAborted };

// Runs 0..2 use MiniMalloc's static orders; from the second round of
// restarts on, each round adds one run in a randomised order (heuristic
// 3 + round): on tight instances a search stuck below a wrong early choice
// in every static order often finds a placement quickly in a random one
// (restarts against heavy-tailed run times, Gomes, Selman and Kautz,
// "Boosting combinatorial search through randomization", AAAI 1998).
constexpr int kStaticOrders = 3;

class CanonicalSearch {
 public:
  CanonicalSearch(const std::vector<PlaceBuffer>& buffers, int64_t capacity, SearchBudget* budget,
                  const PlacedFloor* floor = nullptr, SearchScratch* scratch = nullptr)
      : buffers_(buffers), capacity_(capacity), budget_(budget), n_(static_cast<int32_t>(buffers.size())) {
    // On thousands of long-lived buffers the tables take tens of
    // milliseconds to build: a deadline that passes meanwhile stops it.
    build_sections();
    if (!aborted_) build_overlaps();
    if (aborted_) return;
    build_base(floor);
    zobrist_.resize(static_cast<size_t>(n_));
    for (int32_t b = 0; b < n_; ++b) zobrist_[static_cast<size_t>(b)] = mix64(static_cast<uint64_t>(b) * 0x2545F4914F6CDD1Dull + 17);
    // A direct-mapped table of failed subproblems; it outlives restarts (the
    // heuristic is part of the key), so a restart skips what it proved before.
    size_t slots = 1;
    while (slots < static_cast<size_t>(n_) * 512 && slots < (size_t{1} << 18)) slots <<= 1;
    memo_mask_ = slots - 1;
    if (scratch == nullptr) {
      own_memo_.assign(slots, MemoEntry());
      memo_ = own_memo_.data();
      return;
    }
    // A table from the caller's scratch: its first `slots` entries, those of
    // earlier searches made stale by a new generation instead of cleared, so
    // it answers exactly as a cleared table of that size. A small search
    // runs a few hundred nodes, and clearing its table would cost more.
    if (scratch->memo.size() < slots) scratch->memo.resize(slots, MemoEntry());
    if (scratch->generation == INT32_MAX) {
      std::fill(scratch->memo.begin(), scratch->memo.end(), MemoEntry());
      scratch->generation = 0;
    }
    generation_ = ++scratch->generation;
    memo_ = scratch->memo.data();
  }

  // True when the deadline passed while the tables were built: the search
  // cannot run.
  bool aborted() const { return aborted_; }

  // From now on, keep the partial placement with the most buffers below the
  // capacity that any run reaches: only a caller that wants a fallback pays
  // for the copies (the neighbourhood search runs thousands of searches).
  void keep_deepest() { keep_deepest_ = true; }
  // That placement (offsets of -1 for the unplaced; the first run to reach
  // that many), or empty before a run.
  const std::vector<int64_t>& deepest_offsets() const { return deepest_offsets_; }

  bool trivially_infeasible() const {
    for (int32_t b = 0; b < n_; ++b) {
      if (buffers_[static_cast<size_t>(b)].size > capacity_) return true;
    }
    for (int32_t s = 0; s < sections_; ++s) {
      // A section no buffer of the search is alive in asks nothing of it,
      // however high the fixed floor there (a gap between freed windows).
      if (load_[static_cast<size_t>(s)] == 0) continue;
      if (base_[static_cast<size_t>(s)] + load_[static_cast<size_t>(s)] > capacity_) return true;
    }
    return false;
  }

  // One complete run in static order `heuristic` with at most `node_limit`
  // nodes (<= 0: unlimited).
  Step run(int heuristic, int64_t node_limit, std::vector<int64_t>* offsets) {
    heuristic_ = heuristic;
    preorder(heuristic);
    reset_state();
    node_limit_ = node_limit;
    run_nodes_ = 0;
    Part all;
    all.members.resize(static_cast<size_t>(n_));
    std::iota(all.members.begin(), all.members.end(), 0);
    all.unplaced = n_;
    index_part(all);
    Step step = solve_partition(all, 0, sections_);
    if (step == Step::kFound) *offsets = solution_;
    return step;
  }

 private:
  using MemoEntry = SearchMemoEntry;

  // The buffers a search() works on (all of them, or a piece split off by
  // continue_after): the unplaced ones first, in members[0, unplaced). A node
  // then looks only at those. Placing moves a buffer to the front of the
  // placed tail and unplacing (LIFO) moves the boundary back, as live_ does
  // per section. part_slot_ holds each buffer's index among the members of
  // the part being searched: the pieces of a split index their own, and the
  // part that split re-indexes its members when they return.
  struct Part {
    std::vector<int32_t> members;
    int32_t unplaced = 0;
  };

  void index_part(const Part& part) {
    for (size_t k = 0; k < part.members.size(); ++k) part_slot_[static_cast<size_t>(part.members[k])] = static_cast<int32_t>(k);
  }

  void take_from_part(Part* part, int32_t b) {
    const int32_t last = --part->unplaced;
    const int32_t slot = part_slot_[static_cast<size_t>(b)];
    const int32_t other = part->members[static_cast<size_t>(last)];
    part->members[static_cast<size_t>(slot)] = other;
    part->members[static_cast<size_t>(last)] = b;
    part_slot_[static_cast<size_t>(other)] = slot;
    part_slot_[static_cast<size_t>(b)] = last;
  }

  struct Change {
    // Built in the trail's own storage: a temporary written field by field
    // and then copied whole stalls on store forwarding, and the trail is
    // written at almost every node.
    Change(int32_t kind_in, int32_t index_in, int64_t old_value_in) : kind(kind_in), index(index_in), old_value(old_value_in) {}
    int32_t kind;  // 0 minoff, 2 floor
    int32_t index;
    int64_t old_value;
  };

  // Each section's floor: the highest top of the fixed buffers alive at some
  // step of it (all zero without a floor). A fixed buffer alive over only
  // part of a section raises all of it: conservative, never unsound.
  void build_base(const PlacedFloor* floor) {
    base_.assign(static_cast<size_t>(sections_), 0);
    if (floor == nullptr || sections_ == 0) return;
    for (size_t f = 0; f < floor->buffers.size(); ++f) {
      const PlaceBuffer& fixed = floor->buffers[f];
      if (fixed.size == 0) continue;
      const int64_t top = floor->offsets[f] + fixed.size;
      // Sections [s, e) whose step range meets [fixed.lower, fixed.upper).
      auto s = static_cast<int32_t>(std::upper_bound(times_.begin(), times_.end(), fixed.lower) - times_.begin()) - 1;
      const auto e = static_cast<int32_t>(std::lower_bound(times_.begin(), times_.end(), fixed.upper) - times_.begin());
      s = std::max(s, 0);
      for (int32_t k = s; k < std::min(e, sections_); ++k) base_[static_cast<size_t>(k)] = std::max(base_[static_cast<size_t>(k)], top);
    }
  }

  void build_sections() {
    TimeSections axis = time_sections(buffers_);
    times_ = axis.times;
    sections_ = axis.count();
    first_ = std::move(axis.first);
    end_ = std::move(axis.end);
    load_.assign(static_cast<size_t>(sections_), 0);
    std::vector<int32_t> count(static_cast<size_t>(sections_) + 1, 0);
    for (int32_t b = 0; b < n_; ++b) {
      if (expired_while_building(b)) return;
      const PlaceBuffer& buf = buffers_[static_cast<size_t>(b)];
      for (int32_t s = first_[static_cast<size_t>(b)]; s < end_[static_cast<size_t>(b)]; ++s) {
        load_[static_cast<size_t>(s)] += buf.size;
        ++count[static_cast<size_t>(s) + 1];
      }
    }
    member_start_.assign(count.begin(), count.end());
    for (size_t s = 1; s < member_start_.size(); ++s) member_start_[s] += member_start_[s - 1];
    members_.resize(static_cast<size_t>(member_start_.back()));
    std::vector<int32_t> fill(member_start_.begin(), member_start_.end() - 1);
    for (int32_t b = 0; b < n_; ++b) {
      if (expired_while_building(b)) return;
      for (int32_t s = first_[static_cast<size_t>(b)]; s < end_[static_cast<size_t>(b)]; ++s) {
        members_[static_cast<size_t>(fill[static_cast<size_t>(s)]++)] = b;
      }
    }
  }

  // Buffer c is alive with b exactly when c is alive in b's first section
  // or is born inside b's lifetime, two disjoint sets: O(pairs + slots), not
  // a scan of every section's members for every buffer (that took half a
  // second on 3000 buffers, before the search could look at its deadline).
  void build_overlaps() {
    std::vector<int32_t> born_start(static_cast<size_t>(sections_) + 1, 0);
    for (int32_t b = 0; b < n_; ++b) {
      if (first_[static_cast<size_t>(b)] < end_[static_cast<size_t>(b)]) ++born_start[static_cast<size_t>(first_[static_cast<size_t>(b)]) + 1];
    }
    for (size_t s = 1; s < born_start.size(); ++s) born_start[s] += born_start[s - 1];
    std::vector<int32_t> born(static_cast<size_t>(born_start.back()));
    std::vector<int32_t> fill(born_start.begin(), born_start.end() - 1);
    for (int32_t b = 0; b < n_; ++b) {
      if (first_[static_cast<size_t>(b)] < end_[static_cast<size_t>(b)]) born[static_cast<size_t>(fill[static_cast<size_t>(first_[static_cast<size_t>(b)])]++)] = b;
    }
    overlap_start_.assign(1, 0);
    for (int32_t b = 0; b < n_; ++b) {
      if (expired_while_building(b)) return;
      const int32_t lo = first_[static_cast<size_t>(b)], hi = end_[static_cast<size_t>(b)];
      if (lo < hi) {
        for (int32_t m = member_start_[static_cast<size_t>(lo)]; m < member_start_[static_cast<size_t>(lo) + 1]; ++m) {
          if (members_[static_cast<size_t>(m)] != b) overlaps_.push_back(members_[static_cast<size_t>(m)]);
        }
        for (int32_t i = born_start[static_cast<size_t>(lo) + 1]; i < born_start[static_cast<size_t>(hi)]; ++i) {
          overlaps_.push_back(born[static_cast<size_t>(i)]);
        }
      }
      overlap_start_.push_back(static_cast<int32_t>(overlaps_.size()));
    }
  }

  // Static orders (MiniMalloc's "WAT", "TAW", "TWA"): W = longer lifetime,
  // A = larger area, T = heavier heaviest section crossed. Earlier in the
  // order = tried first among buffers at the same offset.
  void preorder(int heuristic) {
    std::vector<int64_t> heaviest(static_cast<size_t>(n_), 0);
    for (int32_t b = 0; b < n_; ++b) {
      for (int32_t s = first_[static_cast<size_t>(b)]; s < end_[static_cast<size_t>(b)]; ++s) {
        heaviest[static_cast<size_t>(b)] = std::max(heaviest[static_cast<size_t>(b)], load_[static_cast<size_t>(s)]);
      }
    }
    const char* keys = order_keys(heuristic);
    std::vector<int32_t> order(static_cast<size_t>(n_));
    std::iota(order.begin(), order.end(), 0);
    if (heuristic >= kStaticOrders) {
      // A randomised restart: heaviest section first as in TWA, then area
      // with multiplicative noise of +-50% (raw draws of a fixed-seed engine,
      // so every build searches the same orders).
      uint64_t state = mix64(static_cast<uint64_t>(heuristic) * 0xA24BAED4963EE407ull);
      std::vector<double> noisy(static_cast<size_t>(n_));
      for (int32_t b = 0; b < n_; ++b) {
        state = mix64(state);
        const double unit = unit_interval(state);
        const PlaceBuffer& buf = buffers_[static_cast<size_t>(b)];
        noisy[static_cast<size_t>(b)] = static_cast<double>(buf.size) * static_cast<double>(buf.upper - buf.lower) * (0.5 + unit);
      }
      std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        if (heaviest[static_cast<size_t>(a)] != heaviest[static_cast<size_t>(b)]) {
          return heaviest[static_cast<size_t>(a)] > heaviest[static_cast<size_t>(b)];
        }
        return noisy[static_cast<size_t>(a)] > noisy[static_cast<size_t>(b)];
      });
    } else {
      std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        const int cmp = compare_by_keys(keys, buffers_[static_cast<size_t>(a)], buffers_[static_cast<size_t>(b)],
                                        heaviest[static_cast<size_t>(a)], heaviest[static_cast<size_t>(b)]);
        if (cmp != 0) return cmp < 0;
        return a < b;
      });
    }
    pos_.assign(static_cast<size_t>(n_), 0);
    for (int32_t i = 0; i < n_; ++i) pos_[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
    // Identical buffers are interchangeable: only the first unplaced one of a
    // group may be chosen, which removes their permutations from the search.
    twin_before_.assign(static_cast<size_t>(n_), -1);
    std::vector<int32_t> by_shape = order;
    std::stable_sort(by_shape.begin(), by_shape.end(), [&](int32_t a, int32_t b) {
      const PlaceBuffer& x = buffers_[static_cast<size_t>(a)];
      const PlaceBuffer& y = buffers_[static_cast<size_t>(b)];
      if (x.lower != y.lower) return x.lower < y.lower;
      if (x.upper != y.upper) return x.upper < y.upper;
      if (x.size != y.size) return x.size < y.size;
      return x.alignment < y.alignment;
    });
    for (size_t i = 1; i < by_shape.size(); ++i) {
      const PlaceBuffer& x = buffers_[static_cast<size_t>(by_shape[i - 1])];
      const PlaceBuffer& y = buffers_[static_cast<size_t>(by_shape[i])];
      if (x.lower == y.lower && x.upper == y.upper && x.size == y.size && x.alignment == y.alignment) {
        twin_before_[static_cast<size_t>(by_shape[i])] = by_shape[i - 1];
      }
    }
  }

  void reset_state() {
    offset_.assign(static_cast<size_t>(n_), -1);
    solution_.assign(static_cast<size_t>(n_), 0);
    saved_tops_key_.assign(static_cast<size_t>(n_), 0);
    part_slot_.assign(static_cast<size_t>(n_), 0);
    minoff_.assign(static_cast<size_t>(n_), 0);
    top_ = base_;
    floor_ = base_;
    placed_key_ = 0;
    tops_key_ = 0;
    for (int32_t s = 0; s < sections_; ++s) tops_key_ ^= top_hash(s, top_[static_cast<size_t>(s)]);
    for (int32_t b = 0; b < n_; ++b) {
      int64_t lowest = 0;
      for (int32_t s = first_[static_cast<size_t>(b)]; s < end_[static_cast<size_t>(b)]; ++s) lowest = std::max(lowest, base_[static_cast<size_t>(s)]);
      minoff_[static_cast<size_t>(b)] = align_up(lowest, buffers_[static_cast<size_t>(b)].alignment);
    }
    remaining_ = load_;
    cuts_.assign(static_cast<size_t>(std::max(0, sections_ - 1)), 0);
    for (int32_t b = 0; b < n_; ++b) {
      for (int32_t s = first_[static_cast<size_t>(b)]; s + 1 < end_[static_cast<size_t>(b)]; ++s) ++cuts_[static_cast<size_t>(s)];
    }
    // Unplaced members of each section come first in its slice of live_;
    // placing swaps a buffer to the slice's placed tail, undoing (LIFO)
    // moves the boundary back.
    live_ = members_;
    live_count_.assign(static_cast<size_t>(sections_), 0);
    slot_start_.assign(static_cast<size_t>(n_) + 1, 0);
    for (int32_t b = 0; b < n_; ++b) slot_start_[static_cast<size_t>(b) + 1] = slot_start_[static_cast<size_t>(b)] + end_[static_cast<size_t>(b)] - first_[static_cast<size_t>(b)];
    slot_.assign(static_cast<size_t>(slot_start_.back()), 0);
    saved_top_.assign(slot_.size(), 0);
    saved_floor_.assign(slot_.size(), 0);
    trail_.reserve(static_cast<size_t>(n_) * 16);
    for (int32_t sec = 0; sec < sections_; ++sec) {
      live_count_[static_cast<size_t>(sec)] = member_start_[static_cast<size_t>(sec) + 1] - member_start_[static_cast<size_t>(sec)];
      for (int32_t m = member_start_[static_cast<size_t>(sec)]; m < member_start_[static_cast<size_t>(sec) + 1]; ++m) {
        const int32_t c = live_[static_cast<size_t>(m)];
        slot_[static_cast<size_t>(slot_start_[static_cast<size_t>(c)] + sec - first_[static_cast<size_t>(c)])] = m;
      }
    }
    trail_.clear();
    candidates_.assign(static_cast<size_t>(n_) + 2, {});
    depth_ = 0;
  }

  // Copies the branch as the deepest partial placement. Called when the node
  // that last reached a new depth fails: nothing deeper was reached below
  // it and its own placements are still in place, so there is one copy per
  // new depth left behind, not one per level reached.
  void save_deepest() {
    deepest_pending_ = false;
    deepest_offsets_ = offset_;
  }

  Step solve_partition(Part& part, int32_t section_lo, int32_t section_hi) {
    return search(part, part_key_from_here(0x7A11ull, section_lo, section_hi), section_lo, section_hi, 0, -1);
  }

  // Returns false when no unplaced buffer is alive with b ("hatless").
  // Sets [changed_lo_, changed_hi_): the sections whose floor or unplaced
  // bytes it changed.
  bool place(int32_t b, int64_t offset) {
    const PlaceBuffer& buf = buffers_[static_cast<size_t>(b)];
    offset_[static_cast<size_t>(b)] = offset;
    solution_[static_cast<size_t>(b)] = offset;
    const int64_t top = offset + buf.size;
    placed_key_ ^= zobrist_[static_cast<size_t>(b)];
    saved_tops_key_[static_cast<size_t>(b)] = tops_key_;
    // A buffer is placed at most once on the current branch, so the values
    // it overwrites in its own sections are saved in its own slots.
    for (int32_t s = first_[static_cast<size_t>(b)]; s < end_[static_cast<size_t>(b)]; ++s) {
      const size_t own = static_cast<size_t>(slot_start_[static_cast<size_t>(b)] + s - first_[static_cast<size_t>(b)]);
      saved_top_[own] = top_[static_cast<size_t>(s)];
      saved_floor_[own] = floor_[static_cast<size_t>(s)];
      tops_key_ ^= top_hash(s, top_[static_cast<size_t>(s)]) ^ top_hash(s, top);
      top_[static_cast<size_t>(s)] = top;
      floor_[static_cast<size_t>(s)] = top;
      remaining_[static_cast<size_t>(s)] -= buf.size;
      int32_t& slot = slot_[own];
      const int32_t last = member_start_[static_cast<size_t>(s)] + --live_count_[static_cast<size_t>(s)];
      const int32_t other = live_[static_cast<size_t>(last)];
      live_[static_cast<size_t>(last)] = b;
      live_[static_cast<size_t>(slot)] = other;
      slot_[static_cast<size_t>(slot_start_[static_cast<size_t>(other)] + s - first_[static_cast<size_t>(other)])] = slot;
      slot = last;
    }
    int32_t touched_lo = sections_, touched_hi = 0;
    bool has_hat = false;
    for (int32_t i = overlap_start_[static_cast<size_t>(b)]; i < overlap_start_[static_cast<size_t>(b) + 1]; ++i) {
      const int32_t c = overlaps_[static_cast<size_t>(i)];
      if (offset_[static_cast<size_t>(c)] >= 0) continue;
      has_hat = true;
      if (minoff_[static_cast<size_t>(c)] >= top) continue;
      trail_.emplace_back(0, c, minoff_[static_cast<size_t>(c)]);
      minoff_[static_cast<size_t>(c)] = align_up(top, buffers_[static_cast<size_t>(c)].alignment);
      // Every raised buffer overlaps b in time, so together their sections
      // form one contiguous range.
      touched_lo = std::min(touched_lo, first_[static_cast<size_t>(c)]);
      touched_hi = std::max(touched_hi, end_[static_cast<size_t>(c)]);
    }
    // The unplaced buffers of a section cannot start below the lowest of
    // their minimum offsets: raise that section's floor accordingly. Scanning
    // a section's members is the costly part of a node, so it is done only
    // where the raised floor could fail the section test at this level (the
    // floor is a lower bound either way: skipping it only weakens pruning).
    for (int32_t s = touched_lo; s < touched_hi; ++s) {
      const int64_t rem = remaining_[static_cast<size_t>(s)];
      if (rem == 0) continue;
      const int64_t now = std::max(offset, floor_[static_cast<size_t>(s)]) + rem;
      if (now > capacity_ || top + rem <= capacity_) continue;
      // The floor is never below the section's top, so the scan can stop at
      // the first member at or below the floor: the floor then stays.
      const int64_t old_floor = floor_[static_cast<size_t>(s)];
      int64_t lowest = -1;
      const int32_t live_end = member_start_[static_cast<size_t>(s)] + live_count_[static_cast<size_t>(s)];
      for (int32_t m = member_start_[static_cast<size_t>(s)]; m < live_end; ++m) {
        const int64_t minoff = minoff_[static_cast<size_t>(live_[static_cast<size_t>(m)])];
        if (minoff <= old_floor) {
          lowest = -1;
          break;
        }
        if (lowest < 0 || minoff < lowest) lowest = minoff;
      }
      const int64_t floor = std::max(top_[static_cast<size_t>(s)], lowest);
      if (floor > floor_[static_cast<size_t>(s)]) {
        trail_.emplace_back(2, s, floor_[static_cast<size_t>(s)]);
        floor_[static_cast<size_t>(s)] = floor;
      }
    }
    changed_lo_ = std::min(first_[static_cast<size_t>(b)], touched_lo);
    changed_hi_ = std::max(end_[static_cast<size_t>(b)], touched_hi);
    return has_hat;
  }

  void unplace(int32_t b, size_t mark) {
    while (trail_.size() > mark) {
      const Change& c = trail_.back();
      if (c.kind == 0) minoff_[static_cast<size_t>(c.index)] = c.old_value;
      else floor_[static_cast<size_t>(c.index)] = c.old_value;
      trail_.pop_back();
    }
    const PlaceBuffer& buf = buffers_[static_cast<size_t>(b)];
    for (int32_t s = first_[static_cast<size_t>(b)]; s < end_[static_cast<size_t>(b)]; ++s) {
      const size_t own = static_cast<size_t>(slot_start_[static_cast<size_t>(b)] + s - first_[static_cast<size_t>(b)]);
      top_[static_cast<size_t>(s)] = saved_top_[own];
      floor_[static_cast<size_t>(s)] = saved_floor_[own];
      remaining_[static_cast<size_t>(s)] += buf.size;
      ++live_count_[static_cast<size_t>(s)];  // b is the first of the placed tail (LIFO)
    }
    offset_[static_cast<size_t>(b)] = -1;
    placed_key_ ^= zobrist_[static_cast<size_t>(b)];
    tops_key_ = saved_tops_key_[static_cast<size_t>(b)];
  }

  int64_t max_remaining(int32_t section_lo, int32_t section_hi) const {
    int64_t most = 0;
    for (int32_t s = section_lo; s < section_hi; ++s) most = std::max(most, remaining_[static_cast<size_t>(s)]);
    return most;
  }

  bool sections_fit(int32_t section_lo, int32_t section_hi, int64_t level) const {
    for (int32_t s = section_lo; s < section_hi; ++s) {
      const int64_t rem = remaining_[static_cast<size_t>(s)];
      if (rem == 0) continue;
      if (std::max(level, floor_[static_cast<size_t>(s)]) + rem > capacity_) return false;
    }
    return true;
  }

  bool expired_while_building(int32_t b) {
    if ((b & 63) == 0 && budget_->expired()) aborted_ = true;
    return aborted_;
  }

  bool out_of_budget() {
    ++budget_->nodes;
    ++run_nodes_;
    if (node_limit_ > 0 && run_nodes_ > node_limit_) return true;
    // A node costs O(overlaps + sections): on a few thousand buffers that
    // is tens of microseconds, so the clock (tens of nanoseconds) is read
    // every 16 nodes to keep the time limit tight.
    if ((run_nodes_ & 15) == 0 && budget_->expired()) return true;
    return budget_->timed_out;
  }

  static uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }

  // The hash of one section's top, a term of the fingerprint below.
  static uint64_t top_hash(int32_t section, int64_t top) {
    return mix64(static_cast<uint64_t>(top) * 0x100000001B3ull + static_cast<uint64_t>(section));
  }

  // Fingerprint of the subproblem below a node: which buffers of the piece
  // are placed and the top of every section of the piece. Offsets below the
  // tops do not matter to the rest of the search, so different branches that
  // stack the same buffers differently reach the same fingerprint.
  // placed_key_ and tops_key_ cover every buffer and section and are kept up
  // to date by place() and unplace(); a piece's search leaves the buffers and
  // sections outside it as they were, so their share is a constant that
  // part_key_from_here() folds into the piece's key once, and a node then
  // costs O(1) here instead of a pass over the piece.
  uint64_t part_key_from_here(uint64_t part_key, int32_t section_lo, int32_t section_hi) const {
    uint64_t key = part_key ^ placed_key_ ^ tops_key_;
    for (int32_t s = section_lo; s < section_hi; ++s) key ^= top_hash(s, top_[static_cast<size_t>(s)]);
    return key;
  }

  uint64_t state_key(uint64_t part_key) const {
    return part_key ^ mix64(static_cast<uint64_t>(heuristic_) + 0x51ull) ^ placed_key_ ^ tops_key_;
  }

  Step search(Part& part, uint64_t part_key, int32_t section_lo, int32_t section_hi, int64_t level,
              int32_t last_pos) {
    if (out_of_budget()) return Step::kAborted;
    // Failed before from a level at most this one (at the same level, with
    // a preorder bound at most this one): this node's canonical completions
    // are a subset of that node's, so it fails too.
    const uint64_t key = state_key(part_key);
    MemoEntry& memo = memo_[static_cast<size_t>(key & memo_mask_)];
    if (memo.key == key && memo.used == generation_ &&
        (level > memo.level || (level == memo.level && last_pos >= memo.last_pos))) {
      return Step::kNotFound;
    }
    if (part.unplaced == 0) return Step::kFound;
    // Placing any buffer at offset m raises the level to m, and every section
    // of the partition with unplaced bytes then needs m + (its unplaced
    // bytes, the buffer's own included when it covers it) <= capacity: so
    // no candidate above capacity - (largest unplaced load) can succeed.
    // The section test after placing would refute each such one a node
    // later; on tight instances (no slack at all) most of them are such.
    const int64_t highest_level = capacity_ - max_remaining(section_lo, section_hi);
    // One pass over the piece finds the lowest top an unplaced buffer can
    // have (for dominance) and the candidates that pass the other tests;
    // dominance then filters the candidates.
    std::vector<int32_t>& cands = candidates_[static_cast<size_t>(depth_)];
    cands.clear();
    int64_t lowest_top = -1;
    for (int32_t k = 0; k < part.unplaced; ++k) {
      const int32_t c = part.members[static_cast<size_t>(k)];
      const int64_t m = minoff_[static_cast<size_t>(c)];
      const int64_t t = m + buffers_[static_cast<size_t>(c)].size;
      if (lowest_top < 0 || t < lowest_top) lowest_top = t;
      if (m < level || (m == level && pos_[static_cast<size_t>(c)] < last_pos)) continue;  // canonical order
      if (t > capacity_) continue;
      if (m > highest_level) continue;                                                    // sections
      const int32_t twin = twin_before_[static_cast<size_t>(c)];
      if (twin >= 0 && offset_[static_cast<size_t>(twin)] < 0) continue;  // its twin goes first
      cands.push_back(c);
    }
    cands.erase(std::remove_if(cands.begin(), cands.end(),
                               [&](int32_t c) { return minoff_[static_cast<size_t>(c)] >= lowest_top; }),  // dominance
                cands.end());
    std::stable_sort(cands.begin(), cands.end(), [&](int32_t a, int32_t b) {
      if (minoff_[static_cast<size_t>(a)] != minoff_[static_cast<size_t>(b)]) return minoff_[static_cast<size_t>(a)] < minoff_[static_cast<size_t>(b)];
      return pos_[static_cast<size_t>(a)] < pos_[static_cast<size_t>(b)];
    });
    // Deeper levels use deeper slots of the pool, so cands stays intact.
    for (int32_t b : cands) {
      const int64_t offset = minoff_[static_cast<size_t>(b)];
      const size_t mark = trail_.size();
      const bool has_hat = place(b, offset);
      take_from_part(&part, b);
      ++depth_;
      if (keep_deepest_ && depth_ > deepest_) {
        deepest_ = depth_;
        deepest_pending_ = true;
      }
      Step step = Step::kNotFound;
      // Only the sections place() changed need the test: in every other one
      // the floor and the unplaced bytes are as at the node that chose b,
      // whose own test passed (at the root: trivially_infeasible), and the
      // new level, b's offset, is at most highest_level, so at most the
      // capacity less the unplaced bytes of any section of the piece.
      if (sections_fit(changed_lo_, changed_hi_, offset)) step = continue_after(part, part_key, section_lo, section_hi, offset, b);
      if (step != Step::kFound && deepest_pending_) save_deepest();
      --depth_;
      unplace(b, mark);
      ++part.unplaced;  // b is the first of the placed tail (LIFO)
      if (step != Step::kNotFound) return step;
      // Nothing unplaced lives alongside b, so where b sits changes nobody
      // else's options: if the rest fails with b at its lowest spot, it
      // fails with any other buffer chosen first too (MiniMalloc's hatless
      // pruning).
      if (!has_hat) break;
    }
    MemoEntry& slot = memo_[static_cast<size_t>(key & memo_mask_)];
    if (!(slot.used == generation_ && slot.key == key &&
          (slot.level < level || (slot.level == level && slot.last_pos <= last_pos)))) {
      slot.key = key;
      slot.level = level;
      slot.last_pos = last_pos;
      slot.used = generation_;
    }
    return Step::kNotFound;
  }

  // Orders two buffers by the heuristic's keys (W: longer lifetime first, A:
  // larger area first, T: larger heaviest-section load first). -1 when x goes
  // first, 1 when y does, 0 when the keys tie (callers break ties by index).
  static int compare_by_keys(const char* keys, const PlaceBuffer& x, const PlaceBuffer& y, int64_t heavy_x, int64_t heavy_y) {
    for (const char* k = keys; *k != '\0'; ++k) {
      if (*k == 'W' && x.upper - x.lower != y.upper - y.lower) return x.upper - x.lower > y.upper - y.lower ? -1 : 1;
      if (*k == 'A') {
        const double ax = static_cast<double>(x.size) * static_cast<double>(x.upper - x.lower);
        const double ay = static_cast<double>(y.size) * static_cast<double>(y.upper - y.lower);
        if (ax != ay) return ax > ay ? -1 : 1;
      }
      if (*k == 'T' && heavy_x != heavy_y) return heavy_x > heavy_y ? -1 : 1;
    }
    return 0;
  }

  static const char* order_keys(int heuristic) {
    static const char* const kOrders[] = {"TWA", "TAW", "WAT"};
    return kOrders[heuristic % kStaticOrders];
  }

  // Ranks the buffers of a piece by the run's heuristic, with T taken from
  // the bytes still unplaced in each section.
  void reorder_piece(std::vector<int32_t>* piece) {
    const char* keys = order_keys(heuristic_);
    if (heuristic_ >= kStaticOrders) {
      // A randomised run keeps its random ranks within the new piece.
      std::stable_sort(piece->begin(), piece->end(),
                       [&](int32_t a, int32_t b) { return pos_[static_cast<size_t>(a)] < pos_[static_cast<size_t>(b)]; });
      for (size_t k = 0; k < piece->size(); ++k) pos_[static_cast<size_t>((*piece)[k])] = static_cast<int32_t>(k);
      return;
    }
    heaviest_now_.resize(static_cast<size_t>(n_));
    for (int32_t b : *piece) {
      int64_t heaviest = 0;
      for (int32_t s = first_[static_cast<size_t>(b)]; s < end_[static_cast<size_t>(b)]; ++s) {
        heaviest = std::max(heaviest, remaining_[static_cast<size_t>(s)]);
      }
      heaviest_now_[static_cast<size_t>(b)] = heaviest;
    }
    std::stable_sort(piece->begin(), piece->end(), [&](int32_t a, int32_t b) {
      const int cmp = compare_by_keys(keys, buffers_[static_cast<size_t>(a)], buffers_[static_cast<size_t>(b)],
                                      heaviest_now_[static_cast<size_t>(a)], heaviest_now_[static_cast<size_t>(b)]);
      if (cmp != 0) return cmp < 0;
      return pos_[static_cast<size_t>(a)] < pos_[static_cast<size_t>(b)];
    });
    for (size_t k = 0; k < piece->size(); ++k) pos_[static_cast<size_t>((*piece)[k])] = static_cast<int32_t>(k);
  }

  // After placing b: split off independent pieces if b was the last buffer
  // crossing some section boundary, else keep searching this partition.
  Step continue_after(Part& part, uint64_t part_key, int32_t section_lo, int32_t section_hi, int64_t level,
                      int32_t b) {
    std::vector<int32_t> cutpoints;
    for (int32_t s = first_[static_cast<size_t>(b)]; s + 1 < end_[static_cast<size_t>(b)]; ++s) {
      if (--cuts_[static_cast<size_t>(s)] == 0 && s + 1 > section_lo && s + 1 < section_hi) cutpoints.push_back(s + 1);
    }
    Step step = Step::kFound;
    if (cutpoints.empty()) {
      step = search(part, part_key, section_lo, section_hi, level, pos_[static_cast<size_t>(b)]);
    } else {
      cutpoints.insert(cutpoints.begin(), section_lo);
      cutpoints.push_back(section_hi);
      for (size_t i = 1; i < cutpoints.size() && step == Step::kFound; ++i) {
        std::vector<int32_t> piece;
        for (int32_t k = 0; k < part.unplaced; ++k) {
          const int32_t c = part.members[static_cast<size_t>(k)];
          if (end_[static_cast<size_t>(c)] <= cutpoints[i - 1] || first_[static_cast<size_t>(c)] >= cutpoints[i]) continue;
          piece.push_back(c);
        }
        if (piece.empty()) continue;
        // A new piece gets its own order, judged on what is left in it now
        // (MiniMalloc re-sorts at every decomposition too). reorder_piece
        // sorts the piece itself, so the ranks to restore afterwards are
        // kept with the buffers they belong to: restoring them in the sorted
        // order would hand the enclosing search permuted ranks, and its
        // canonical-order test would then skip placements that exist.
        std::vector<std::pair<int32_t, int32_t>> saved;
        saved.reserve(piece.size());
        for (int32_t c : piece) saved.emplace_back(c, pos_[static_cast<size_t>(c)]);
        reorder_piece(&piece);
        uint64_t piece_key = mix64(static_cast<uint64_t>(cutpoints[i - 1]) * 131 + static_cast<uint64_t>(cutpoints[i]));
        for (int32_t c : piece) piece_key ^= mix64(zobrist_[static_cast<size_t>(c)]);
        Part piece_part;
        piece_part.members = std::move(piece);
        piece_part.unplaced = static_cast<int32_t>(piece_part.members.size());
        index_part(piece_part);
        step = search(piece_part, part_key_from_here(piece_key, cutpoints[i - 1], cutpoints[i]), cutpoints[i - 1], cutpoints[i], 0, -1);
        for (const auto& [c, rank] : saved) pos_[static_cast<size_t>(c)] = rank;
      }
      // The pieces indexed their members for themselves; this part places
      // and unplaces its own again once b is unplaced.
      index_part(part);
    }
    for (int32_t s = first_[static_cast<size_t>(b)]; s + 1 < end_[static_cast<size_t>(b)]; ++s) ++cuts_[static_cast<size_t>(s)];
    return step;
  }

  const std::vector<PlaceBuffer>& buffers_;
  const int64_t capacity_;
  SearchBudget* budget_;
  const int32_t n_;
  int32_t sections_ = 0;
  std::vector<int32_t> first_, end_;               // section range of each buffer
  std::vector<int64_t> load_;                      // bytes live in each section
  std::vector<int64_t> times_, base_;              // section boundaries; floor under each section
  std::vector<int32_t> member_start_, members_;    // buffers of each section (CSR)
  std::vector<int32_t> live_, live_count_;         // members_, unplaced first
  std::vector<int32_t> slot_start_, slot_;         // where each buffer sits in live_, per section
  std::vector<int64_t> saved_top_, saved_floor_;   // per buffer and section: values before it was placed
  std::vector<int32_t> overlap_start_, overlaps_;  // buffers alive together (CSR)
  std::vector<int32_t> pos_, twin_before_;
  // Search state.
  std::vector<int64_t> offset_, solution_, minoff_, top_, floor_, remaining_;
  std::vector<int32_t> cuts_;
  std::vector<int32_t> part_slot_;  // see Part
  std::vector<Change> trail_;
  // Fingerprint terms (state_key): the XOR of the placed buffers' zobrist_
  // and of every section's top_hash; the latter before each buffer's placement.
  uint64_t placed_key_ = 0, tops_key_ = 0;
  std::vector<uint64_t> saved_tops_key_;
  int32_t changed_lo_ = 0, changed_hi_ = 0;  // set by place()
  std::vector<std::vector<int32_t>> candidates_;
  int32_t depth_ = 0;
  int heuristic_ = 0;
  std::vector<uint64_t> zobrist_;
  std::vector<MemoEntry> own_memo_;  // the table, unless the caller lends one
  MemoEntry* memo_ = nullptr;
  int32_t generation_ = 1;  // an entry holds a failed subproblem when its `used` equals this
  uint64_t memo_mask_ = 0;
  std::vector<int64_t> heaviest_now_;
  int64_t node_limit_ = 0, run_nodes_ = 0;
  bool aborted_ = false;
  // Across runs: the most buffers a branch has held below the capacity.
  bool keep_deepest_ = false;
  int32_t deepest_ = 0;
  bool deepest_pending_ = false;  // a new depth was reached and not yet saved
  std::vector<int64_t> deepest_offsets_;
};

}  // namespace

SearchOutcome search_at_capacity(const std::vector<PlaceBuffer>& buffers, int64_t capacity, int64_t node_limit,
                                 SearchBudget* budget, std::vector<int64_t>* offsets, const PlacedFloor* floor,
                                 std::vector<int64_t>* fallback, SearchScratch* scratch) {
  if (buffers.empty()) {
    offsets->clear();
    return SearchOutcome::kFound;
  }
  const double built_at = now_seconds();
  CanonicalSearch search(buffers, capacity, budget, floor, scratch);
  if (search.aborted()) return SearchOutcome::kGaveUp;
  // A floor's fixed buffers are not among `buffers`: a completion could not
  // see them, so there is no fallback above one. A completion that happens
  // to fit within the capacity answers the question.
  const bool wants_fallback = fallback != nullptr && floor == nullptr;
  if (wants_fallback) search.keep_deepest();
  auto give_up = [&]() {
    if (!wants_fallback) return SearchOutcome::kGaveUp;
    *fallback = complete_partial_placement(buffers, search.deepest_offsets());
    if (!fallback->empty() && placement_height(buffers, *fallback) <= capacity) {
      *offsets = std::move(*fallback);
      fallback->clear();
      return SearchOutcome::kFound;
    }
    return SearchOutcome::kGaveUp;
  };
  if (search.trivially_infeasible()) return SearchOutcome::kInfeasible;
  // Each run first rebuilds its order and state, about what building the
  // tables cost: a run that could not get past that before the deadline
  // is not started.
  const double setup_seconds = now_seconds() - built_at;
  int64_t limit = std::max<int64_t>(64, static_cast<int64_t>(buffers.size()) * 2);
  int64_t spent = 0;
  for (int round = 0;; ++round) {
    const int runs = round == 0 ? kStaticOrders : kStaticOrders + 1;
    for (int index = 0; index < runs; ++index) {
      const int heuristic = index < kStaticOrders ? index : kStaticOrders + round;
      int64_t run_limit = limit;
      bool last = false;
      if (node_limit > 0 && spent + run_limit >= node_limit) {
        run_limit = std::max<int64_t>(1, node_limit - spent);
        last = true;
      }
      if (budget->expires_within(setup_seconds)) return give_up();
      const int64_t before = budget->nodes;
      Step step = search.run(heuristic, run_limit, offsets);
      spent += budget->nodes - before;
      if (step == Step::kFound) return SearchOutcome::kFound;
      if (step == Step::kNotFound) return SearchOutcome::kInfeasible;
      // A run shorter than the clock's period never looks at it: look here.
      if (budget->expired() || last) return give_up();
    }
    limit *= 2;
  }
}

}  // namespace placement_detail
}  // namespace tp
