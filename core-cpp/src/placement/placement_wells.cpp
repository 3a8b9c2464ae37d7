// The search for placements that leave no byte free (for instance random
// perfect packings of 100-600 buffers, where the canonical search of
// placement_exact.cpp gets lost).
//
// It applies when the live bytes equal the capacity K at every step of the
// piece: then every byte below K is used at every step, and a placement is a
// tiling of the time x space rectangle by the buffers. The search fills it
// from the bottom up. Its state is the floor: for every section, the top of
// the buffers placed there, with everything below it used.
//
// Wells. A well is a run of sections at one floor height y whose neighbours
// on both sides are higher (or are the ends of the piece). The byte just
// above y in the well's first section belongs, in any tiling that extends the
// floor, to a buffer that starts at y (everything below is used), cannot
// reach into the higher section on the left (its bytes at y are used), so
// starts exactly at the well's first section, and for the same reason on the
// right ends inside the well. So the candidates for that byte are the
// unplaced buffers born at the well's first section that die within it, and
// trying each of them at offset y is a complete search. The same holds
// mirrored for the byte in the well's last section (buffers dying at its end,
// born within it). Every node takes the side of the well with the fewest
// candidates (one candidate is a forced move, none a dead end), in the way
// that exact-cover search takes the column with the fewest rows.
//
// Pruning, all sound: the bottom row of every well must be covered exactly
// by buffers that lie inside it, so their lifetimes must chain from the
// well's start to its end (a reachability check over the sections);
// identical buffers (same other end, size and alignment) are tried once per
// well; a buffer whose offset there is not a multiple of its alignment is no
// candidate; and a refuted state (the placed set, which fixes the floor) is
// remembered, so later runs and transpositions skip it.
//
// Candidates are tried in the order of how well their top meets the edges
// around them: a top level with the floor just left of the buffer, just
// right of it, or the capacity counts one each. Tilings of partitions line
// their edges up, so a buffer whose top continues a neighbouring edge is
// the likelier one (on 48 further seeded 600-buffer packings, 10 s each:
// 43 found instead of 41, in 115 s instead of 139 s in all). Ties go to
// the longest lifetime, then the largest.
//
// Runs restart with Luby's lengths (in units of the piece's buffer count),
// alternating the instance and its mirror in time (a different search tree
// over the same tilings), with the candidates shuffled among those of equal
// edge score from the third run on (fixed seeds: the same answer on every
// build). A run that ends within its node limit without a tiling proves none
// exists.
//
// Under minimize (no node limit, a deadline), the restarts get 4000 nodes per
// buffer (at most the first 30% of the time); then the deepest partial
// tiling they reached is repaired instead (repair_deepest_tiling, below):
// buffers are taken back around a drawn section and the search runs on from
// what is left, so what a run placed is not thrown away. On skewed packings
// of 600 buffers (tuning seeds), 6 s of well search found 10 tilings of 32
// this way and none by restarts alone. The repair goes in episodes, and
// every other one starts from one of the largest buffers alone on the floor
// instead (repair_in_episodes, kEpisodeNodesPerBuffer).
//
// When the search gives up, the deepest partial tiling that the runs reached
// in each direction (everything below a ragged floor, no byte free) is
// completed: by a skyline that leaves bytes free where the tiling cannot go
// on, or by putting the rest each at its lowest free offset, largest first.
// The lowest completion is the fallback, which the neighbourhood search then
// lowers. On pp-600-s3 the runs placed 474-505 of the 600 buffers; after 6 s
// the fallback was 1.18 of the optimum on seed 24 and 1.0135 on seed 28,
// where the greedy baselines leave 1.38-1.47.
//
// Leaving bytes free. Where the live bytes stay below K at some steps (free
// space: sparse packings, MiniMalloc's challenging instances), a placement at
// K leaves exactly K minus the live bytes free at each step: that is the
// section's slack. The same search then runs with one more way to go on at
// each end of a well: leave the byte there free, which raises that end section
// towards the lower of the well's two walls, as far as its slack allows.
// Filled across, such holes bring the well level with its lower wall: one flat
// floor with the neighbour beyond it, where an end section raised towards the
// higher wall would stand alone as a step. On sparse perfect packings (tuning
// seeds 601-616, this search alone for 3 s at the bound, one run each,
// 2026-11-29) it places 13 of the 16 of 300 buffers and 11 of the 16 of 400,
// where raising towards the wall beside the end placed 7 and none
// (docs/placement.md, "Leaving bytes free"). The bytes left free per section
// are part of the state (and of its key), the floor is the highest top placed
// there, and the bottom-row check lets a row pass a section with slack left.
// It is tried after every buffer, since tilings of partitions leave little
// free. Raising a section only as far as a wall is one choice among many, so
// this search is not complete: where any section has slack, a run that ends
// without a placement proves nothing. With no slack anywhere it is the search
// above, node for node.
//
// Measured in the prototype on the committed perfect packings
// (bench/data/perfect-packings): every instance of 200 and 400 buffers is
// found in under 0.3 s, those of 600 in 0.3-4 s; on six further seeds of
// 600 buffers, three are found within 10 s.
#include <algorithm>
#include <deque>
#include <tuple>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {

namespace {

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The i-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 ...
int64_t luby(int64_t i) {
  for (;;) {
    int k = 1;
    while ((int64_t{1} << k) - 1 < i) ++k;
    if ((int64_t{1} << k) - 1 == i) return int64_t{1} << (k - 1);
    i -= (int64_t{1} << (k - 1)) - 1;
  }
}

enum class Run { kFound, kExhausted, kAborted };

class WellSearch {
 public:
  WellSearch(const std::vector<PlaceBuffer>& buffers, int64_t capacity, SearchBudget* budget)
      : buffers_(buffers), capacity_(capacity), budget_(budget), n_(static_cast<int32_t>(buffers.size())) {
    const TimeSections axis = time_sections(buffers_);
    sections_ = axis.count();
    first_ = axis.first;
    end_ = axis.end;
    born_.assign(static_cast<size_t>(sections_) + 1, {});
    dying_.assign(static_cast<size_t>(sections_) + 1, {});
    for (int32_t b = 0; b < n_; ++b) {
      born_[static_cast<size_t>(first_[static_cast<size_t>(b)])].push_back(b);
      dying_[static_cast<size_t>(end_[static_cast<size_t>(b)])].push_back(b);
    }
    // Identical buffers (same lifetime, size and alignment) share a kind.
    kind_.assign(static_cast<size_t>(n_), 0);
    std::vector<int32_t> by_kind(static_cast<size_t>(n_));
    for (int32_t b = 0; b < n_; ++b) by_kind[static_cast<size_t>(b)] = b;
    auto shape = [&](int32_t b) {
      const PlaceBuffer& x = buffers_[static_cast<size_t>(b)];
      return std::make_tuple(x.lower, x.upper, x.size, x.alignment);
    };
    std::stable_sort(by_kind.begin(), by_kind.end(), [&](int32_t x, int32_t y) { return shape(x) < shape(y); });
    for (size_t k = 1; k < by_kind.size(); ++k) {
      const bool same = shape(by_kind[k]) == shape(by_kind[k - 1]);
      kind_[static_cast<size_t>(by_kind[k])] = kind_[static_cast<size_t>(by_kind[k - 1])] + (same ? 0 : 1);
    }
    // Those born at a section by their end, those dying there by their start
    // from the latest, each then by kind and index: the scans below stop at
    // the first one that leaves the well, identical buffers are neighbours,
    // and the first of them is the one with the lowest index.
    for (std::vector<int32_t>& list : born_) {
      std::sort(list.begin(), list.end(), [&](int32_t x, int32_t y) {
        return std::make_tuple(end_[static_cast<size_t>(x)], kind_[static_cast<size_t>(x)], x) <
               std::make_tuple(end_[static_cast<size_t>(y)], kind_[static_cast<size_t>(y)], y);
      });
    }
    for (std::vector<int32_t>& list : dying_) {
      std::sort(list.begin(), list.end(), [&](int32_t x, int32_t y) {
        return std::make_tuple(-first_[static_cast<size_t>(x)], kind_[static_cast<size_t>(x)], x) <
               std::make_tuple(-first_[static_cast<size_t>(y)], kind_[static_cast<size_t>(y)], y);
      });
    }
    floor_.assign(static_cast<size_t>(sections_), 0);
    wasted_.assign(static_cast<size_t>(sections_), 0);
    slack_.assign(static_cast<size_t>(sections_), 0);
    std::vector<int64_t> load_change(static_cast<size_t>(sections_) + 1, 0);
    for (int32_t b = 0; b < n_; ++b) {
      load_change[static_cast<size_t>(first_[static_cast<size_t>(b)])] += buffers_[static_cast<size_t>(b)].size;
      load_change[static_cast<size_t>(end_[static_cast<size_t>(b)])] -= buffers_[static_cast<size_t>(b)].size;
    }
    int64_t live = 0;
    for (int32_t s = 0; s < sections_; ++s) {
      live += load_change[static_cast<size_t>(s)];
      slack_[static_cast<size_t>(s)] = capacity_ - live;
    }
    steps_.assign(static_cast<size_t>(sections_) / 64 + 1, 0);
    placed_.assign(static_cast<size_t>(n_), 0);
    offsets_.assign(static_cast<size_t>(n_), 0);
    reached_at_.assign(static_cast<size_t>(sections_) + 1, 0);
    size_t slots = 1;
    while (slots < static_cast<size_t>(n_) * 2048 && slots < (size_t{1} << 20)) slots <<= 1;
    refuted_.assign(slots, 0);
  }

  // Where the run that placed the most buffers had them (unplaced: -1).
  const std::vector<int64_t>& deepest_offsets() const { return deepest_offsets_; }
  // How many buffers that partial tiling holds.
  int32_t deepest_depth() const { return deepest_; }
  int32_t sections() const { return sections_; }
  int32_t first_section(int32_t b) const { return first_[static_cast<size_t>(b)]; }
  int32_t end_section(int32_t b) const { return end_[static_cast<size_t>(b)]; }

  // One run on from a partial tiling (`partial`: offsets, -1 where not
  // placed) with at most `node_limit` nodes. *reached gets the deepest
  // partial tiling of this run alone; deepest_offsets() is left as it was.
  Run run_from(const std::vector<int64_t>& partial, int64_t node_limit, uint64_t seed, std::vector<int64_t>* offsets,
               std::vector<int64_t>* reached) {
    clear_floor();
    // The floor over a section is the highest top placed there; what lies
    // below it and no placed buffer covers is wasted.
    std::vector<int64_t> covered(static_cast<size_t>(sections_), 0);
    int32_t depth = 0;
    for (int32_t b = 0; b < n_; ++b) {
      const int64_t y = partial[static_cast<size_t>(b)];
      if (y < 0) continue;
      const int64_t top = y + buffers_[static_cast<size_t>(b)].size;
      for (int32_t s = first_[static_cast<size_t>(b)]; s < end_[static_cast<size_t>(b)]; ++s) {
        covered[static_cast<size_t>(s)] += buffers_[static_cast<size_t>(b)].size;
        floor_[static_cast<size_t>(s)] = std::max(floor_[static_cast<size_t>(s)], top);
      }
      placed_[static_cast<size_t>(b)] = 1;
      placed_key_ ^= buffer_key(b);
      offsets_[static_cast<size_t>(b)] = y;
      ++depth;
    }
    for (int32_t s = 0; s < sections_; ++s) {
      wasted_[static_cast<size_t>(s)] = floor_[static_cast<size_t>(s)] - covered[static_cast<size_t>(s)];
      waste_key_ ^= waste_key(s);
      note_step(s);
    }
    const int32_t deepest_before = deepest_;
    std::vector<int64_t> offsets_before = std::move(deepest_offsets_);
    deepest_ = depth;
    deepest_pending_ = true;  // the start itself counts as reached
    start_run(node_limit, seed);
    const bool found = fill(depth);
    if (deepest_pending_) save_deepest();
    *reached = std::move(deepest_offsets_);
    deepest_offsets_ = std::move(offsets_before);
    deepest_ = deepest_before;
    if (!found) return Run::kAborted;
    *offsets = offsets_;
    return Run::kFound;
  }

  // Lists the buffers alive in each section for take_back_exposed, unless
  // that list would have more than `most_entries` entries (the sum of the
  // lifetimes in sections: quadratic in the buffers where many live long);
  // returns whether the repair can run.
  bool prepare_repair(int64_t most_entries) {
    int64_t entries = 0;
    for (int32_t b = 0; b < n_; ++b) entries += end_[static_cast<size_t>(b)] - first_[static_cast<size_t>(b)];
    if (entries > most_entries) return false;
    alive_.assign(static_cast<size_t>(sections_), {});
    for (int32_t b = 0; b < n_; ++b) {
      for (int32_t s = first_[static_cast<size_t>(b)]; s < end_[static_cast<size_t>(b)]; ++s) alive_[static_cast<size_t>(s)].push_back(b);
    }
    return true;
  }

  // Takes up to `count` buffers out of a partial tiling, each time the
  // highest one in the sections [around - reach, around + reach] with
  // nothing placed on it (its top is the tiling's top over its whole
  // lifetime), so what is left is a partial tiling too.
  void take_back_exposed(std::vector<int64_t>* partial, int32_t around, int32_t reach, int32_t count,
                         SearchBudget* budget) const {
    std::vector<int64_t> top(static_cast<size_t>(sections_), 0);
    auto top_over = [&](int32_t s) {
      int64_t h = 0;
      for (int32_t c : alive_[static_cast<size_t>(s)]) {
        const int64_t o = (*partial)[static_cast<size_t>(c)];
        if (o >= 0) h = std::max(h, o + buffers_[static_cast<size_t>(c)].size);
      }
      return h;
    };
    for (int32_t s = 0; s < sections_; ++s) top[static_cast<size_t>(s)] = top_over(s);
    for (int32_t k = 0; k < count && !budget->expired(); ++k) {
      int32_t highest = -1;
      int64_t highest_top = -1;
      for (int32_t b = 0; b < n_; ++b) {
        const int64_t o = (*partial)[static_cast<size_t>(b)];
        const int32_t first = first_[static_cast<size_t>(b)], end = end_[static_cast<size_t>(b)];
        if (o < 0 || end <= around - reach || first > around + reach) continue;
        const int64_t b_top = o + buffers_[static_cast<size_t>(b)].size;
        bool exposed = b_top > highest_top;
        for (int32_t s = first; s < end && exposed; ++s) exposed = top[static_cast<size_t>(s)] == b_top;
        if (exposed) {
          highest_top = b_top;
          highest = b;
        }
      }
      if (highest < 0) return;
      (*partial)[static_cast<size_t>(highest)] = -1;
      for (int32_t s = first_[static_cast<size_t>(highest)]; s < end_[static_cast<size_t>(highest)]; ++s) {
        top[static_cast<size_t>(s)] = top_over(s);
      }
    }
  }

  // One run from the empty floor with at most `node_limit` nodes; `seed` 0
  // keeps the candidates in their static order.
  Run run(int64_t node_limit, uint64_t seed, std::vector<int64_t>* offsets) {
    clear_floor();
    start_run(node_limit, seed);
    if (!fill(0)) return aborted_ ? Run::kAborted : Run::kExhausted;
    *offsets = offsets_;
    return Run::kFound;
  }

 private:
  // Where the floor changes height: bit s of steps_ is set when section s
  // is at another height than section s - 1. The floor of a 600-buffer
  // packing is a dozen runs over a thousand sections, and finding the runs
  // by comparing neighbours was most of a node's instructions.
  void note_step(int32_t s) {
    if (s <= 0 || s >= sections_) return;
    const uint64_t bit = uint64_t{1} << (s & 63);
    uint64_t& word = steps_[static_cast<size_t>(s >> 6)];
    if (floor_[static_cast<size_t>(s)] != floor_[static_cast<size_t>(s - 1)]) word |= bit;
    else word &= ~bit;
  }

  // The first section after s where the floor changes height (sections_
  // when it does not).
  int32_t next_step_in_floor(int32_t s) const {
    const int32_t from = s + 1;
    if (from >= sections_) return sections_;
    size_t word = static_cast<size_t>(from >> 6);
    uint64_t bits = steps_[word] & (~uint64_t{0} << (from & 63));
    while (bits == 0) {
      if (++word == steps_.size()) return sections_;
      bits = steps_[word];
    }
    return static_cast<int32_t>(64 * word) + __builtin_ctzll(bits);
  }

  void clear_floor() {
    std::fill(floor_.begin(), floor_.end(), 0);
    std::fill(wasted_.begin(), wasted_.end(), 0);
    std::fill(steps_.begin(), steps_.end(), 0);
    std::fill(placed_.begin(), placed_.end(), 0);
    placed_key_ = 0;
    waste_key_ = 0;
  }

  // Bytes that may still be left free in section s.
  int64_t slack_left(int32_t s) const { return slack_[static_cast<size_t>(s)] - wasted_[static_cast<size_t>(s)]; }

  void start_run(int64_t node_limit, uint64_t seed) {
    node_limit_ = node_limit;
    run_nodes_ = 0;
    seed_ = seed;
    aborted_ = false;
  }

  // The well a node branches on: sections [start, stop); its candidates
  // are in chosen_.
  struct Choice {
    int32_t start = -1, stop = -1;
    int32_t waste_section = -1;  // the end section that may be left free instead
    int64_t waste = 0;           // by how many bytes (0: it may not)
  };
  struct Ranked {
    int score;
    int32_t buffer;
  };

  bool out_of_budget() {
    if (run_nodes_ >= node_limit_) return true;
    ++run_nodes_;
    ++budget_->nodes;
    return (run_nodes_ & 1023) == 0 && budget_->expired();
  }

  // Whether the lifetimes of unplaced buffers inside [start, stop) chain
  // from start to stop. A search over the sections reached, not a pass over
  // the whole well: wells span hundreds of sections, of which a chain
  // reaches a few, and a section counts as reached when its stamp is this
  // call's.
  bool bottom_row_can_be_covered(int32_t start, int32_t stop) {
    if (++reach_stamp_ == 0) {  // wrapped: clear the stamps of 2^32 calls ago
      std::fill(reached_at_.begin(), reached_at_.end(), 0);
      reach_stamp_ = 1;
    }
    reach_queue_.clear();
    reach_queue_.push_back(start);
    reached_at_[static_cast<size_t>(start)] = reach_stamp_;
    while (!reach_queue_.empty()) {
      const int32_t s = reach_queue_.back();
      reach_queue_.pop_back();
      // Where bytes may still be left free, the row can pass a section by.
      if (slack_left(s) > 0 && reached_at_[static_cast<size_t>(s) + 1] != reach_stamp_) {
        if (s + 1 == stop) return true;
        reached_at_[static_cast<size_t>(s) + 1] = reach_stamp_;
        reach_queue_.push_back(s + 1);
      }
      for (int32_t b : born_[static_cast<size_t>(s)]) {
        const int32_t e = end_[static_cast<size_t>(b)];
        if (e > stop) break;
        if (placed_[static_cast<size_t>(b)] != 0 || reached_at_[static_cast<size_t>(e)] == reach_stamp_) continue;
        if (e == stop) return true;
        reached_at_[static_cast<size_t>(e)] = reach_stamp_;
        reach_queue_.push_back(e);
      }
    }
    return false;
  }

  bool fits_at(int32_t b, int64_t y) const {
    const PlaceBuffer& buffer = buffers_[static_cast<size_t>(b)];
    // Most buffers are unaligned, and a division costs tens of cycles.
    return placed_[static_cast<size_t>(b)] == 0 && buffer.size <= capacity_ - y &&
           (buffer.alignment == 1 || y % buffer.alignment == 0);
  }

  // The candidates of one side of the well [start, stop) at height y, one of
  // each kind of identical buffers: born at start (left side) or dying at
  // stop (right side).
  void side_candidates(int32_t start, int32_t stop, int64_t y, bool left, std::vector<int32_t>* out) const {
    out->clear();
    const std::vector<int32_t>& list = left ? born_[static_cast<size_t>(start)] : dying_[static_cast<size_t>(stop)];
    for (int32_t b : list) {
      const int32_t other = left ? end_[static_cast<size_t>(b)] : first_[static_cast<size_t>(b)];
      if (left ? other > stop : other < start) break;
      if (!fits_at(b, y)) continue;
      // Identical buffers are neighbours in the list: one of them is tried.
      if (out->empty() || kind_[static_cast<size_t>(out->back())] != kind_[static_cast<size_t>(b)]) out->push_back(b);
    }
  }

  // Scans the floor for wells; false when one of them is a dead end, else
  // the side with the fewest candidates: the well in *best, its candidates
  // in chosen_.
  bool choose(Choice* best) {
    std::vector<int32_t>& left = left_;
    std::vector<int32_t>& right = right_;
    size_t fewest = static_cast<size_t>(-1);
    for (int32_t s = 0; s < sections_;) {
      const int64_t y = floor_[static_cast<size_t>(s)];
      const int32_t e = next_step_in_floor(s);
      const bool walled_left = s == 0 || floor_[static_cast<size_t>(s - 1)] > y;
      const bool walled_right = e == sections_ || floor_[static_cast<size_t>(e)] > y;
      if (walled_left && walled_right && y < capacity_) {
        if (!bottom_row_can_be_covered(s, e)) return false;
        side_candidates(s, e, y, true, &left);
        side_candidates(s, e, y, false, &right);
        // Leaving the byte free instead raises that end section of the well
        // towards the lower of its two walls, as far as the section's slack
        // allows: one more way to go on (see "Leaving bytes free" above).
        const int64_t wall_left = s == 0 ? capacity_ : floor_[static_cast<size_t>(s - 1)];
        const int64_t wall_right = e == sections_ ? capacity_ : floor_[static_cast<size_t>(e)];
        const int64_t lower_wall = std::min(wall_left, wall_right);
        const int64_t waste_left = std::min(slack_left(s), lower_wall - y);
        const int64_t waste_right = std::min(slack_left(e - 1), lower_wall - y);
        const size_t ways_left = left.size() + (waste_left > 0 ? 1 : 0);
        const size_t ways_right = right.size() + (waste_right > 0 ? 1 : 0);
        if (ways_left == 0 || ways_right == 0) return false;
        if (ways_left < fewest) {
          fewest = ways_left;
          *best = {s, e, s, std::max<int64_t>(0, waste_left)};
          chosen_ = left;
        }
        if (ways_right < fewest) {
          fewest = ways_right;
          *best = {s, e, e - 1, std::max<int64_t>(0, waste_right)};
          chosen_ = right;
        }
      }
      s = e;
    }
    return best->start >= 0;
  }

  // The state is the placed set and the bytes left free per section: below
  // the floor every byte is placed or left free, so the floor over a section
  // is the sum of the two there. (Hashing the floor as well was a pass over
  // every section per node that told nothing more: without it, a 600-buffer
  // packing's search visits about a fifth more nodes per second.) A section
  // with none left free adds nothing to the key, so where no byte may be
  // left free the key is the placed set's alone. A key is never 0, the
  // table's empty slot.
  static uint64_t state_key(uint64_t placed_key, uint64_t waste_key) { return mix(placed_key ^ waste_key) | 1; }
  uint64_t state_key() const { return state_key(placed_key_, waste_key_); }
  // The key of the state with buffer b placed as well.
  uint64_t state_key_with(int32_t b) const { return state_key(placed_key_ ^ buffer_key(b), waste_key_); }
  // The key of the state with `bytes` more left free on top of section s.
  uint64_t state_key_with_waste(int32_t s, int64_t bytes) const {
    const int64_t wasted = wasted_[static_cast<size_t>(s)];
    return state_key(placed_key_, waste_key_ ^ waste_key(s, wasted) ^ waste_key(s, wasted + bytes));
  }
  size_t refuted_index(uint64_t key) const { return key & (refuted_.size() - 1); }
  // The table of refuted states is up to 8 MB, and reading a node's slot
  // was a cache miss that took a third of the well search's time (perf, a
  // skewed packing of 600 buffers). So a node asks for the slots of all its
  // children while it ranks them, before it visits the first: by the time a
  // child reads its slot, the line is on its way. It changes no answer, only
  // the speed (docs/placement.md, "The well search").
  void prefetch_refuted_slot(uint64_t key) const {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(&refuted_[refuted_index(key)]);
#else
    (void)key;
#endif
  }
  static uint64_t buffer_key(int32_t b) { return mix(static_cast<uint64_t>(b) + 0x51EDull); }
  static uint64_t waste_key(int32_t s, int64_t wasted) {
    return wasted == 0 ? 0 : mix(static_cast<uint64_t>(s) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(wasted));
  }
  uint64_t waste_key(int32_t s) const { return waste_key(s, wasted_[static_cast<size_t>(s)]); }

  // Leaves `bytes` free on top of section s (sign 1) or takes that back (-1).
  void waste(int32_t s, int64_t bytes, int64_t sign) {
    waste_key_ ^= waste_key(s);
    floor_[static_cast<size_t>(s)] += sign * bytes;
    wasted_[static_cast<size_t>(s)] += sign * bytes;
    waste_key_ ^= waste_key(s);
    note_step(s);
    note_step(s + 1);
  }

  void put(int32_t b, int64_t y, int64_t sign) {
    const PlaceBuffer& buffer = buffers_[static_cast<size_t>(b)];
    const int32_t first = first_[static_cast<size_t>(b)], end = end_[static_cast<size_t>(b)];
    // Candidates lie inside a well: the floor is at y over the whole lifetime.
    for (int32_t s = first; s < end; ++s) floor_[static_cast<size_t>(s)] = sign > 0 ? y + buffer.size : y;
    note_step(first);
    note_step(end);
    placed_[static_cast<size_t>(b)] = sign > 0 ? 1 : 0;
    placed_key_ ^= buffer_key(b);
    offsets_[static_cast<size_t>(b)] = y;
  }

  // Copies the state as the deepest partial tiling. Called when the node
  // that last reached a new depth returns without a tiling: nothing deeper
  // was reached below it, and its own placements are all still in place,
  // so one copy per new depth left serves instead of one per level reached.
  void save_deepest() {
    deepest_pending_ = false;
    deepest_offsets_.assign(static_cast<size_t>(n_), -1);
    for (int32_t b = 0; b < n_; ++b) {
      if (placed_[static_cast<size_t>(b)] != 0) deepest_offsets_[static_cast<size_t>(b)] = offsets_[static_cast<size_t>(b)];
    }
  }

  // How many edges around it the top of b, placed at y, meets: the floor
  // just left and just right of its lifetime (the capacity at the ends of
  // the piece), and the capacity itself.
  int edge_score(int32_t b, int64_t y) const {
    const int64_t top = y + buffers_[static_cast<size_t>(b)].size;
    const int32_t first = first_[static_cast<size_t>(b)], end = end_[static_cast<size_t>(b)];
    int score = top == capacity_ ? 1 : 0;
    if ((first == 0 ? capacity_ : floor_[static_cast<size_t>(first - 1)]) == top) ++score;
    if ((end == sections_ ? capacity_ : floor_[static_cast<size_t>(end)]) == top) ++score;
    return score;
  }

  // Places the rest; `depth` buffers are placed.
  bool fill(int32_t depth) {
    if (depth > deepest_) {
      deepest_ = depth;
      deepest_pending_ = true;
    }
    const bool found = fill_below(depth);
    if (!found && deepest_pending_) save_deepest();
    return found;
  }

  bool fill_below(int32_t depth) {
    if (depth == n_) return true;
    if (out_of_budget()) {
      aborted_ = true;
      return false;
    }
    // A refuted state is skipped before its wells are scanned: about a
    // third of the nodes of a 600-buffer packing's search are such
    // transpositions.
    const uint64_t key = state_key();
    uint64_t& slot = refuted_[refuted_index(key)];
    if (slot == key) return false;
    Choice choice;
    if (!choose(&choice)) return false;
    const int64_t y = floor_[static_cast<size_t>(choice.start)];
    // One list per level of the recursion, kept between nodes: a level walks
    // its list while the levels below it use theirs. A byte left free is a
    // level that places nothing, so levels are counted apart from depth.
    LevelOfRecursion level(&level_);
    if (level_ > most_levels_) return false;  // leaving bytes free: see most_levels_
    while (ranked_by_level_.size() <= static_cast<size_t>(level_)) ranked_by_level_.emplace_back();
    std::vector<Ranked>& ranked = ranked_by_level_[static_cast<size_t>(level_)];
    ranked.clear();
    for (int32_t b : chosen_) {
      ranked.push_back({edge_score(b, y), b});
      prefetch_refuted_slot(state_key_with(b));
    }
    if (choice.waste > 0) prefetch_refuted_slot(state_key_with_waste(choice.waste_section, choice.waste));
    std::sort(ranked.begin(), ranked.end(), [&](const Ranked& p, const Ranked& q) {
      if (p.score != q.score) return p.score > q.score;
      const PlaceBuffer& x = buffers_[static_cast<size_t>(p.buffer)];
      const PlaceBuffer& z = buffers_[static_cast<size_t>(q.buffer)];
      if (x.upper - x.lower != z.upper - z.lower) return x.upper - x.lower > z.upper - z.lower;
      if (x.size != z.size) return x.size > z.size;
      return p.buffer < q.buffer;
    });
    if (seed_ != 0) {
      // Shuffled within each run of equal edge scores.
      for (size_t group = 0; group < ranked.size();) {
        size_t next = group;
        while (next < ranked.size() && ranked[next].score == ranked[group].score) ++next;
        for (size_t i = next - group; i > 1; --i) {
          const uint64_t r = mix(seed_ ^ (static_cast<uint64_t>(depth) * 7919) ^ (static_cast<uint64_t>(run_nodes_) * 31) ^ i);
          std::swap(ranked[group + i - 1], ranked[group + static_cast<size_t>(r % i)]);
        }
        group = next;
      }
    }
    for (const Ranked& candidate : ranked) {
      const int32_t b = candidate.buffer;
      put(b, y, 1);
      if (fill(depth + 1)) return true;
      put(b, y, -1);
      if (aborted_) return false;
    }
    // Leaving the byte free comes last: tilings of partitions leave little
    // free, and the buffers' edges are what they line up with.
    if (choice.waste > 0) {
      waste(choice.waste_section, choice.waste, 1);
      if (fill(depth)) return true;
      waste(choice.waste_section, choice.waste, -1);
      if (aborted_) return false;
    }
    slot = key;
    return false;
  }

  const std::vector<PlaceBuffer>& buffers_;
  const int64_t capacity_;
  SearchBudget* budget_;
  const int32_t n_;
  int32_t sections_ = 0;
  std::vector<int32_t> first_, end_;
  std::vector<int32_t> kind_;  // equal for identical buffers
  std::vector<std::vector<int32_t>> born_, dying_;  // per section: buffers whose lifetime starts / ends there
  std::vector<std::vector<int32_t>> alive_;          // per section: buffers alive there
  std::vector<int64_t> floor_;
  std::vector<int64_t> wasted_;  // per section: bytes below the floor no placed buffer covers
  std::vector<int64_t> slack_;   // per section: the capacity less the bytes alive there
  uint64_t waste_key_ = 0;
  std::vector<uint64_t> steps_;  // note_step's bits
  std::vector<uint8_t> placed_;
  std::vector<int64_t> offsets_;
  std::vector<uint32_t> reached_at_;  // bottom_row_can_be_covered's stamps
  uint32_t reach_stamp_ = 0;
  std::vector<int32_t> reach_queue_;
  std::vector<uint64_t> refuted_;
  std::vector<int32_t> left_, right_, chosen_;       // choose's scratch and its answer
  struct LevelOfRecursion {
    explicit LevelOfRecursion(int32_t* level) : level_(level) { ++*level_; }
    ~LevelOfRecursion() { --*level_; }
    int32_t* level_;
  };
  // Each level's candidates in the order tried; a deque, so that a list
  // does not move while it is walked when deeper levels are added.
  std::deque<std::vector<Ranked>> ranked_by_level_;
  int32_t level_ = 0;
  // The recursion's depth is one level per buffer placed, and one more per
  // byte left free: on sparse packings of 600 buffers and MiniMalloc's J it
  // reached 2-3 levels per buffer. Beyond this a branch counts as a dead end
  // (the search leaving bytes free is not complete anyway), so that the
  // stack stays within what 4,000 buffers placed use (the canonical search's
  // bound, kMaxSearchBuffers); where no byte may be left free the levels
  // never pass the buffer count, and the bound never applies.
  const int32_t most_levels_ = std::max<int32_t>(n_ + 1, 4000);
  uint64_t placed_key_ = 0;
  int64_t node_limit_ = 0;
  int64_t run_nodes_ = 0;
  uint64_t seed_ = 0;
  bool aborted_ = false;
  int32_t deepest_ = 0;
  bool deepest_pending_ = false;  // a new depth was reached and not yet saved
  std::vector<int64_t> deepest_offsets_;
};

// The most of the well search's time that goes to restarts from the empty
// floor before the rest goes to repairing the deepest partial tiling (they
// usually end first by kRestartNodesPerBuffer, below), and
// the most buffers one repair takes back (plus 3). Chosen on skewed and
// time-cuts-skewed packings of 300 and 600 buffers with tuning seeds (none
// of the held-out ones): in 6 s of well search, tilings were found for 10
// of 32 packings of 600 buffers instead of none, and for 23 of 24 of 300
// buffers (space-cuts among them) instead of 18. Taking back at most 40 or
// 80 found 5 and 8; a share of 0.1 or 0.5, 9 and 22 of 24.
constexpr double kRestartShare = 0.3;
constexpr int32_t kMostTakenBack = 160;
// The restarts end after this many nodes per buffer (4000 x n), or at their
// share of the time if that comes first. Counted in nodes, the state the
// repair starts from is the same on every machine that gets there in time
// (native and WASM among them), and a faster search gives the repair more
// moves from that state instead of another state. Chosen on the 32 skewed
// and time-cuts-skewed packings of 600 buffers with tuning seeds and 24
// further ones, 6 s of well search: 13 and 10 tiled with 4000, 13 and 9
// with 1000, 13 with 16000, and 11 and 10 with the time share alone.
constexpr int64_t kRestartNodesPerBuffer = 4000;
// Each repair's run of the well search: this many times the restarts' unit
// of nodes (max(256, buffers)).
constexpr int64_t kRepairRunUnits = 20;
// The repair goes in episodes of this many nodes per buffer. Every other
// episode goes on from the deepest partial tiling kept so far; the others
// each start from one of the kAnchors largest buffers (bytes x steps) alone
// on the floor, in turn. The restarts and the repair build every tiling from
// the bottom up, and a large buffer that lives long needs a floor flat over
// its whole lifetime, which a floor built that way seldom leaves: their
// partial tilings end with such buffers left over (on skewed seed 603 the
// three largest, 0.16-0.31 of the height over 357-412 steps). Put on the
// floor first, such a buffer has its flat floor, and the search builds the
// rest around it. The bottom is no restriction for one that lies at the top
// of a tiling: upside down (offset y to capacity - y - size) a tiling is a
// tiling. Chosen on skewed packings of 600 buffers (seeds 701-760) and
// time-cuts-skewed ones (701-720), none of them tuned on before, 6 s of well
// search alone, one run each, two at a time on 2 cores (2026-11-29): tiled
// 20 and 22 of the two sets of 40 instead of 13-17 (four runs) and 16 (two).
// In a copy of the search that kept an episode's tiling only when it covered
// more area (19 and 22): 8000 nodes per buffer, 23 of the second set; 2000,
// 14 of the first; 4 anchors, 21 of the second; an anchor in eight episodes
// of nine, 19 of the first, and 16 anchors that way, 15.
constexpr int64_t kEpisodeNodesPerBuffer = 4000;
constexpr size_t kAnchors = 8;
// The repair lists the buffers alive in each section and scans them for
// every buffer it takes back: above this many entries (4 MiB of indices;
// the held-out perfect packings of 600 buffers have 3,000-23,000) it does
// not run, and the restarts keep the whole time.
constexpr int64_t kMostRepairEntries = int64_t{1} << 20;

// Bytes x steps of the placed buffers of a partial tiling: how far it got.
double placed_area(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& partial) {
  double area = 0;
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (partial[b] >= 0) area += static_cast<double>(buffers[b].size) * static_cast<double>(buffers[b].upper - buffers[b].lower);
  }
  return area;
}

// Large-neighbourhood search over partial tilings. A restart from the empty
// floor throws away everything its run placed, and on skewed packings (a
// few large, long-lived buffers among many small ones) the runs keep
// ending a third to half of the way up. Here the deepest partial tiling is
// kept: a move takes back the highest buffers with nothing on them around a
// drawn section (half the moves: around the lifetime of a buffer not yet
// placed, whose way the tiling blocks), runs the well search on from what
// is left with a short node limit, alternating the two directions, and
// keeps the deepest tiling that run reached when it covers at least as
// much area as the current one. Ruin and recreate as in Shaw (CP 1998),
// with the well search as the recreate step. `episode` varies the draws
// (repair_in_episodes). Returns kFound with the tiling in *offsets, or
// kGaveUp at the deadline or after `node_budget` nodes (> 0) with the
// deepest tiling in *state.
SearchOutcome repair_deepest_tiling(const std::vector<PlaceBuffer>& buffers, WellSearch* forward, WellSearch* backward,
                                    int64_t run_nodes, int64_t node_budget, uint64_t episode, SearchBudget* budget,
                                    std::vector<int64_t>* offsets, std::vector<int64_t>* state) {
  const int64_t nodes_before = budget->nodes;
  double area = placed_area(buffers, *state);
  uint64_t draw = worker_seed(0x7A11B0A7ull, *budget) + episode * 0x9E3779B97F4A7C15ull;
  std::vector<int64_t> trial, reached;
  std::vector<int32_t> unplaced;
  const int32_t sections = forward->sections();
  for (int64_t move = 0; !budget->timed_out && !budget->expired(); ++move) {
    if (node_budget > 0 && budget->nodes - nodes_before >= node_budget) break;
    draw = mix(draw + 1);
    int32_t around = static_cast<int32_t>(mix(draw ^ 1) % static_cast<uint64_t>(sections));
    int32_t reach = static_cast<int32_t>(mix(draw ^ 2) % static_cast<uint64_t>(sections / 4 + 1));
    if (mix(draw ^ 3) % 2 == 0) {
      unplaced.clear();
      for (size_t b = 0; b < state->size(); ++b) {
        if ((*state)[b] < 0) unplaced.push_back(static_cast<int32_t>(b));
      }
      if (!unplaced.empty()) {
        const int32_t u = unplaced[mix(draw ^ 4) % unplaced.size()];
        const int32_t first = forward->first_section(u), end = forward->end_section(u);
        around = first + (end - first) / 2;
        reach = (end - first) / 2 + static_cast<int32_t>(mix(draw ^ 5) % static_cast<uint64_t>(end - first + 2));
      }
    }
    trial = *state;
    forward->take_back_exposed(&trial, around, reach, 3 + static_cast<int32_t>(mix(draw ^ 6) % kMostTakenBack), budget);
    WellSearch* search = move % 2 == 0 ? forward : backward;
    if (search->run_from(trial, run_nodes, mix(draw ^ 7), offsets, &reached) == Run::kFound) return SearchOutcome::kFound;
    const double reached_area = placed_area(buffers, reached);
    if (reached_area >= area) {
      area = reached_area;
      state->swap(reached);
    }
  }
  return SearchOutcome::kGaveUp;
}

// The repair in episodes (kEpisodeNodesPerBuffer, above): even episodes go
// on from *state, odd ones from an anchor alone on the floor; an episode's
// partial tiling replaces *state when it covers more area (or as much, when
// it went on from *state). Each episode draws its moves from its own seed.
// kFound with the tiling in *offsets, or kGaveUp at the deadline or after
// `node_budget` nodes (> 0) with the deepest partial tiling in *state.
SearchOutcome repair_in_episodes(const std::vector<PlaceBuffer>& buffers, WellSearch* forward, WellSearch* backward,
                                 int64_t run_nodes, int64_t node_budget, SearchBudget* budget,
                                 std::vector<int64_t>* offsets, std::vector<int64_t>* state) {
  std::vector<int32_t> anchors = preorder(buffers, {}, "A");  // the most bytes x steps first
  anchors.resize(std::min(kAnchors, anchors.size()));
  const int64_t episode_nodes = kEpisodeNodesPerBuffer * static_cast<int64_t>(buffers.size());
  const int64_t nodes_before = budget->nodes;
  double area = placed_area(buffers, *state);
  std::vector<int64_t> trial;
  for (int64_t episode = 0; !budget->timed_out && !budget->expired(); ++episode) {
    int64_t nodes = episode_nodes;
    if (node_budget > 0) {
      const int64_t left = node_budget - (budget->nodes - nodes_before);
      if (left <= 0) break;
      nodes = std::min(nodes, left);
    }
    const bool goes_on = episode % 2 == 0 || anchors.empty();
    if (goes_on) {
      trial = *state;
    } else {
      trial.assign(buffers.size(), -1);
      trial[static_cast<size_t>(anchors[static_cast<size_t>(episode / 2) % anchors.size()])] = 0;
    }
    if (repair_deepest_tiling(buffers, forward, backward, run_nodes, nodes, static_cast<uint64_t>(episode), budget,
                              offsets, &trial) == SearchOutcome::kFound) {
      return SearchOutcome::kFound;
    }
    const double reached = placed_area(buffers, trial);
    if (reached > area || (goes_on && reached == area)) {
      area = reached;
      state->swap(trial);
    }
  }
  return SearchOutcome::kGaveUp;
}

// The mirror in time: lifetime [lower, upper) becomes [-upper, -lower);
// buffers overlap in it exactly when they overlap in the instance, so its
// placements are the instance's.
std::vector<PlaceBuffer> mirrored_in_time(const std::vector<PlaceBuffer>& buffers) {
  std::vector<PlaceBuffer> mirrored = buffers;
  for (PlaceBuffer& b : mirrored) {
    const int64_t lower = b.lower;
    b.lower = -b.upper;
    b.upper = -lower;
  }
  return mirrored;
}

}  // namespace

SearchOutcome repair_partial_tiling(const std::vector<PlaceBuffer>& buffers, int64_t capacity, int64_t node_budget,
                                    SearchBudget* budget, std::vector<int64_t>* partial,
                                    std::vector<int64_t>* offsets) {
  if (!fills_every_step(buffers, capacity) || partial->size() != buffers.size()) return SearchOutcome::kGaveUp;
  const std::vector<PlaceBuffer> mirrored = mirrored_in_time(buffers);
  WellSearch forward(buffers, capacity, budget);
  if (!forward.prepare_repair(kMostRepairEntries)) return SearchOutcome::kGaveUp;
  WellSearch backward(mirrored, capacity, budget);
  const int64_t unit = std::max<int64_t>(256, static_cast<int64_t>(buffers.size()));
  return repair_in_episodes(buffers, &forward, &backward, kRepairRunUnits * unit, std::max<int64_t>(1, node_budget),
                            budget, offsets, partial);
}

bool fills_every_step(const std::vector<PlaceBuffer>& buffers, int64_t capacity) {
  if (buffers.empty()) return false;
  const TimeSections axis = time_sections(buffers);
  std::vector<int64_t> load(static_cast<size_t>(axis.count()) + 1, 0);
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (buffers[b].size <= 0) return false;
    load[static_cast<size_t>(axis.first[b])] += buffers[b].size;
    load[static_cast<size_t>(axis.end[b])] -= buffers[b].size;
  }
  int64_t live = 0;
  for (int32_t s = 0; s < axis.count(); ++s) {
    live += load[static_cast<size_t>(s)];
    if (live != capacity) return false;
  }
  return true;
}

namespace {

// The restarts, the repair and the fallback of search_without_waste and
// search_leaving_slack. `sound`: an exhausted run proves no placement
// exists (no byte may be left free, so every branch was tried).
SearchOutcome fill_from_the_floor(const std::vector<PlaceBuffer>& buffers, int64_t capacity, int64_t node_limit,
                                  bool sound, SearchBudget* budget, std::vector<int64_t>* offsets,
                                  std::vector<int64_t>* fallback, std::vector<int64_t>* deepest) {
  const std::vector<PlaceBuffer> mirrored = mirrored_in_time(buffers);
  WellSearch forward(buffers, capacity, budget);
  WellSearch backward(mirrored, capacity, budget);
  const int64_t unit = std::max<int64_t>(256, static_cast<int64_t>(buffers.size()));
  // A deeper partial tiling is not always the better one to complete: its
  // last buffers were placed where the tiling could still go on, not where
  // the rest fits best above it. On skewed packings of 600 buffers, 6 s of
  // well search, the deepest reached by the restarts (224 of 600 buffers on
  // held-out seed 9001, 205 from the first run) completed to 1.106 of the
  // optimum where the first run's completed to 1.027, and on seed 505 to
  // 1.077 against 1.062. So under minimize, each time a direction's restarts
  // reach a new depth, that partial tiling is completed too (3 to 17 times
  // in those 6 s), and the one with the lowest completion is kept. On 14
  // skewed and time-cuts-skewed packings of 600 buffers (seeds 501-508 and
  // 501-504, and the two held-out ones), 10 s of minimize each, one run:
  // three final heights went down (1.0617 to 1.0414, 1.0776 to 1.0623,
  // 1.0147 to 1.0141), none went up, and the search nodes of the packings
  // tiled were the same.
  std::vector<int64_t> best_sampled;
  int64_t best_sampled_height = -1;
  int32_t sampled_depth[2] = {0, 0};
  auto sample_deepest = [&](const WellSearch& side, int32_t* depth_seen) {
    if (side.deepest_depth() == *depth_seen || side.deepest_offsets().empty()) return;
    *depth_seen = side.deepest_depth();
    const std::vector<int64_t> completed = complete_partial_placement(buffers, side.deepest_offsets());
    if (completed.empty()) return;
    const int64_t height = placement_height(buffers, completed);
    if (best_sampled_height < 0 || height < best_sampled_height) {
      best_sampled_height = height;
      best_sampled = side.deepest_offsets();
    }
  };
  // The mirror's offsets are the instance's, so both directions' deepest
  // partial tilings are completed, and the lower completion kept.
  // The repaired tiling, where there is one, is a third candidate, and the
  // best sampled one a fourth; ties go to the earlier one.
  auto give_up = [&](const std::vector<int64_t>* repaired = nullptr) {
    if (fallback == nullptr) return SearchOutcome::kGaveUp;
    fallback->clear();
    const std::vector<int64_t>* chosen = nullptr;
    const std::vector<int64_t>* sampled = best_sampled.empty() ? nullptr : &best_sampled;
    for (const std::vector<int64_t>* partial : {&forward.deepest_offsets(), &backward.deepest_offsets(), repaired, sampled}) {
      if (partial == nullptr) continue;
      std::vector<int64_t> completed = complete_partial_placement(buffers, *partial);
      if (completed.empty()) continue;
      if (fallback->empty() || placement_height(buffers, completed) < placement_height(buffers, *fallback)) {
        *fallback = std::move(completed);
        chosen = partial;
      }
    }
    if (deepest != nullptr) *deepest = chosen != nullptr ? *chosen : backward.deepest_offsets();
    return SearchOutcome::kGaveUp;
  };
  // Without a node limit (the well search phase of minimize) and under a
  // deadline, the restarts get kRestartNodesPerBuffer nodes per buffer, at
  // most kRestartShare of the time, and the repair of their deepest partial
  // tiling the rest.
  const bool repair = node_limit == 0 && budget->deadline_seconds > 0 && forward.prepare_repair(kMostRepairEntries);
  const double restarts_until =
      repair ? now_seconds() + kRestartShare * std::max(0.0, budget->deadline_seconds - now_seconds()) : 0;
  const int64_t restart_nodes = kRestartNodesPerBuffer * static_cast<int64_t>(buffers.size());
  int64_t spent = 0;
  for (int64_t restart = 0;; ++restart) {
    if (repair && (spent >= restart_nodes || now_seconds() > restarts_until)) {
      std::vector<int64_t> state = forward.deepest_offsets();
      if (!backward.deepest_offsets().empty() &&
          (state.empty() || placed_area(buffers, backward.deepest_offsets()) > placed_area(buffers, state))) {
        state = backward.deepest_offsets();
      }
      if (state.empty()) state.assign(buffers.size(), -1);
      if (repair_in_episodes(buffers, &forward, &backward, kRepairRunUnits * unit, 0, budget, offsets, &state) ==
          SearchOutcome::kFound) {
        return SearchOutcome::kFound;
      }
      return give_up(&state);
    }
    int64_t limit = luby(restart / 2 + 1) * unit;
    if (node_limit > 0) limit = std::min(limit, node_limit - spent);
    if (limit <= 0) return give_up();
    const int64_t before = budget->nodes;
    // The first two runs keep the static orders in every worker of a
    // portfolio (placement_portfolio.cpp); from the third on each worker
    // shuffles in its own way. The static runs are short and pay: with them
    // shuffled too, a second worker alone ended 14 skewed packings of 600
    // buffers (seeds 601-615 but 609; 10 s, one run) at a mean of 1.0191
    // times the optimum, where worker 0 ended at 1.0124.
    const uint64_t seed = restart < 2 ? 0 : mix(worker_seed(static_cast<uint64_t>(restart), *budget));
    const Run run = (restart % 2 == 0 ? forward : backward).run(limit, seed, offsets);
    spent += budget->nodes - before;
    if (run == Run::kFound) return SearchOutcome::kFound;
    if (run == Run::kExhausted) return sound ? SearchOutcome::kInfeasible : give_up();
    if (repair && fallback != nullptr) {
      if (restart % 2 == 0) sample_deepest(forward, &sampled_depth[0]);
      else sample_deepest(backward, &sampled_depth[1]);
    }
    if (budget->timed_out) return give_up();
  }
}

}  // namespace

SearchOutcome search_without_waste(const std::vector<PlaceBuffer>& buffers, int64_t capacity, int64_t node_limit,
                                   SearchBudget* budget, std::vector<int64_t>* offsets, std::vector<int64_t>* fallback,
                                   std::vector<int64_t>* deepest) {
  if (!fills_every_step(buffers, capacity)) return SearchOutcome::kGaveUp;
  return fill_from_the_floor(buffers, capacity, node_limit, true, budget, offsets, fallback, deepest);
}

SearchOutcome search_leaving_slack(const std::vector<PlaceBuffer>& buffers, int64_t capacity, int64_t node_limit,
                                   SearchBudget* budget, std::vector<int64_t>* offsets,
                                   std::vector<int64_t>* fallback, std::vector<int64_t>* deepest) {
  if (buffers.empty() || fills_every_step(buffers, capacity) || placement_lower_bound(buffers) > capacity) {
    return SearchOutcome::kGaveUp;
  }
  for (const PlaceBuffer& buffer : buffers) {
    if (buffer.size <= 0) return SearchOutcome::kGaveUp;
  }
  return fill_from_the_floor(buffers, capacity, node_limit, false, budget, offsets, fallback, deepest);
}

}  // namespace placement_detail
}  // namespace tp
