// Skyline placement: the canonical search's greedy dive (see
// placement_exact.cpp) made fast for tens of thousands of buffers. A segment
// tree over the sections keeps the skyline (the top of the placed buffers in
// each section); a heap holds the unplaced buffers keyed by a possibly stale
// lowest offset, refreshed lazily when popped.
#include <algorithm>
#include <vector>

#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {
namespace {

// Range max over sections with "raise a range to v" updates, where v is at
// least the current max of the range (a buffer lands on top of everything it
// spans). Such raises commute with max, so no lazy pushing is needed: a node
// keeps `covered` (the largest raise that covered it whole) and `below` (the
// max anywhere in its subtree); both loops are iterative and bottom-up.
class Skyline {
 public:
  explicit Skyline(int32_t sections) {
    while (leaves_ < sections) leaves_ <<= 1;
    covered_.assign(static_cast<size_t>(leaves_) * 2, 0);
    below_.assign(static_cast<size_t>(leaves_) * 2, 0);
  }

  int64_t max_over(int32_t lo, int32_t hi) const {
    int64_t best = 0;
    int l = lo + leaves_, r = hi + leaves_;
    const int left_leaf = l, right_leaf = r - 1;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) best = std::max(best, below_[static_cast<size_t>(l++)]);
      if (r & 1) best = std::max(best, below_[static_cast<size_t>(--r)]);
    }
    // Raises that covered an ancestor of the range's ends apply too; the two
    // paths to the root merge at their common ancestor.
    int a = left_leaf >> 1, b = right_leaf >> 1;
    for (; a != b; a >>= 1, b >>= 1) {
      best = std::max(best, std::max(covered_[static_cast<size_t>(a)], covered_[static_cast<size_t>(b)]));
    }
    for (; a >= 1; a >>= 1) best = std::max(best, covered_[static_cast<size_t>(a)]);
    return best;
  }

  void raise(int32_t lo, int32_t hi, int64_t value) {
    int l = lo + leaves_, r = hi + leaves_;
    const int left_leaf = l, right_leaf = r - 1;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) {
        covered_[static_cast<size_t>(l)] = std::max(covered_[static_cast<size_t>(l)], value);
        below_[static_cast<size_t>(l)] = std::max(below_[static_cast<size_t>(l)], value);
        ++l;
      }
      if (r & 1) {
        --r;
        covered_[static_cast<size_t>(r)] = std::max(covered_[static_cast<size_t>(r)], value);
        below_[static_cast<size_t>(r)] = std::max(below_[static_cast<size_t>(r)], value);
      }
    }
    int a = left_leaf >> 1, b = right_leaf >> 1;
    for (; a != b; a >>= 1, b >>= 1) {
      below_[static_cast<size_t>(a)] = std::max(below_[static_cast<size_t>(a)], value);
      below_[static_cast<size_t>(b)] = std::max(below_[static_cast<size_t>(b)], value);
    }
    for (; a >= 1; a >>= 1) below_[static_cast<size_t>(a)] = std::max(below_[static_cast<size_t>(a)], value);
  }

 private:
  int leaves_ = 1;
  std::vector<int64_t> covered_, below_;
};

// Min-heap of (key, rank) with an in-place "raise the top's key" so that a
// stale entry is refreshed with one sift instead of a pop and a push.
class DiveQueue {
 public:
  struct Entry {
    int64_t key;
    int32_t rank;
    int32_t buffer;
  };
  void push(Entry e) {
    heap_.push_back(e);
    size_t i = heap_.size() - 1;
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!less(heap_[i], heap_[parent])) break;
      std::swap(heap_[i], heap_[parent]);
      i = parent;
    }
  }
  bool empty() const { return heap_.empty(); }
  const Entry& top() const { return heap_[0]; }
  void pop() {
    heap_[0] = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down();
  }
  void raise_top(int64_t key) {
    heap_[0].key = key;
    sift_down();
  }

 private:
  static bool less(const Entry& a, const Entry& b) { return a.key != b.key ? a.key < b.key : a.rank < b.rank; }
  void sift_down() {
    const size_t n = heap_.size();
    size_t i = 0;
    const Entry moving = heap_[0];
    while (true) {
      size_t child = i * 2 + 1;
      if (child >= n) break;
      if (child + 1 < n && less(heap_[child + 1], heap_[child])) ++child;
      if (!less(heap_[child], moving)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = moving;
  }
  std::vector<Entry> heap_;
};

// For each time section, the first section and the end of its independent
// piece (the run of sections that some buffer crosses between).
struct PieceBounds {
  std::vector<int32_t> start, end;
};

PieceBounds piece_bounds(const std::vector<PlaceBuffer>& buffers, const TimeSections& axis, int32_t sections) {
  const std::vector<int32_t>& first = axis.first;
  const std::vector<int32_t>& end = axis.end;
  std::vector<int32_t> crossing(static_cast<size_t>(sections) + 1, 0);  // buffers over each inner boundary
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].size == 0) continue;
    ++crossing[static_cast<size_t>(first[i]) + 1];
    --crossing[static_cast<size_t>(end[i])];
  }
  PieceBounds pieces;
  pieces.start.assign(static_cast<size_t>(sections) + 1, 0);
  pieces.end.assign(static_cast<size_t>(sections) + 1, sections);
  int32_t running = 0, start_of_piece = 0;
  for (int32_t sec = 0; sec <= sections; ++sec) {
    if (sec > 0) running += crossing[static_cast<size_t>(sec)];
    if (sec > 0 && running == 0) start_of_piece = sec;  // nothing crosses into this section
    pieces.start[static_cast<size_t>(sec)] = start_of_piece;
  }
  int32_t end_of_piece = sections;
  for (int32_t sec = sections; sec >= 0; --sec) {
    pieces.end[static_cast<size_t>(sec)] = end_of_piece;
    if (pieces.start[static_cast<size_t>(sec)] == sec) end_of_piece = sec;
  }
  return pieces;
}

// Buffers alive over the whole of their independent piece go to the bottom
// of it, stacked in order. That loses nothing (in any placement they can be
// slid below everything else, which only closes gaps), and a dive would
// otherwise leave them for last: their lowest offset is the top of the
// whole piece's skyline. With `stack_starters`, every buffer born at the
// start of its piece is stacked there too, longest-lived lowest (a staircase
// that later buffers fill from the side); a heuristic, unlike the spanning
// rule. Marks the buffers it places in `placed`.
void stack_at_piece_bottoms(const std::vector<PlaceBuffer>& buffers, const std::vector<int32_t>& order,
                            const TimeSections& axis, const PieceBounds& pieces, bool stack_starters,
                            Skyline* skyline, std::vector<int64_t>* offsets, std::vector<char>* placed) {
  const std::vector<int32_t>& first = axis.first;
  const std::vector<int32_t>& end = axis.end;
  std::vector<int32_t> bottom(order);
  if (stack_starters) {
    std::stable_sort(bottom.begin(), bottom.end(), [&](int32_t a, int32_t b) {
      return buffers[static_cast<size_t>(a)].upper > buffers[static_cast<size_t>(b)].upper;
    });
  }
  for (const int32_t b : bottom) {
    const PlaceBuffer& buf = buffers[static_cast<size_t>(b)];
    const int32_t lo = first[static_cast<size_t>(b)], hi = end[static_cast<size_t>(b)];
    if (buf.size == 0 || lo >= hi) continue;
    if (pieces.start[static_cast<size_t>(lo)] != lo) continue;
    if (!stack_starters && pieces.end[static_cast<size_t>(lo)] != hi) continue;
    const int64_t lowest = align_up(skyline->max_over(lo, hi), buf.alignment);
    (*offsets)[static_cast<size_t>(b)] = lowest;
    skyline->raise(lo, hi, lowest + buf.size);
    (*placed)[static_cast<size_t>(b)] = 1;
  }
}

// After a deadline: every buffer not yet placed goes, in order, straight
// onto the skyline over its lifetime (no lowest-first selection), which
// keeps the placement valid at O(log n) per buffer.
void drop_rest_in_order(const std::vector<PlaceBuffer>& buffers, const std::vector<int32_t>& order,
                        const TimeSections& axis, Skyline* skyline, std::vector<int64_t>* offsets,
                        std::vector<char>* placed) {
  for (const int32_t b : order) {
    const PlaceBuffer& buf = buffers[static_cast<size_t>(b)];
    if (buf.size == 0 || (*placed)[static_cast<size_t>(b)]) continue;
    const int32_t lo = axis.first[static_cast<size_t>(b)], hi = axis.end[static_cast<size_t>(b)];
    const int64_t lowest = align_up(skyline->max_over(lo, hi), buf.alignment);
    (*offsets)[static_cast<size_t>(b)] = lowest;
    skyline->raise(lo, hi, lowest + buf.size);
    (*placed)[static_cast<size_t>(b)] = 1;
  }
}

}  // namespace

std::vector<int64_t> skyline_in_order(const std::vector<PlaceBuffer>& buffers, const std::vector<int32_t>& order,
                                      int64_t small_below, bool small_in_order, bool stack_starters,
                                      SearchBudget* budget) {
  TimeSections axis = time_sections(buffers);
  const int32_t sections = std::max<int32_t>(1, axis.count());
  const std::vector<int32_t>& first = axis.first;
  const std::vector<int32_t>& end = axis.end;
  std::vector<int64_t> offsets(buffers.size(), 0);
  Skyline skyline(sections);
  std::vector<char> placed(buffers.size(), 0);
  stack_at_piece_bottoms(buffers, order, axis, piece_bounds(buffers, axis, sections), stack_starters, &skyline,
                         &offsets, &placed);

  // (lowest offset, rank in order, buffer), smallest first.
  DiveQueue queue;
  // Two dives over one skyline: the buffers of at least `small_below` bytes,
  // then the small ones on what they left. A tiny buffer loses every tie in
  // a busy section, so in a single dive it would be refreshed once per
  // buffer stacked over it; deferring it keeps the dive near O(n log n).
  for (int dive = 0; dive < 2; ++dive) {
    for (size_t rank = 0; rank < order.size() && !(dive == 1 && small_in_order); ++rank) {
      const int32_t b = order[rank];
      const int64_t size = buffers[static_cast<size_t>(b)].size;
      if (size == 0 || placed[static_cast<size_t>(b)] || (dive == 0) != (size >= small_below)) continue;
      queue.push({0, static_cast<int32_t>(rank), b});
    }
    if (dive == 1 && small_in_order) {
      // Cheapest second dive: each small buffer, in order, straight onto the
      // skyline over its lifetime (no lowest-first selection, no refreshes).
      for (size_t rank = 0; rank < order.size(); ++rank) {
        const int32_t b = order[rank];
        const PlaceBuffer& buf = buffers[static_cast<size_t>(b)];
        if (buf.size == 0 || placed[static_cast<size_t>(b)] || buf.size >= small_below) continue;
        const int32_t lo = first[static_cast<size_t>(b)], hi = end[static_cast<size_t>(b)];
        const int64_t lowest = align_up(skyline.max_over(lo, hi), buf.alignment);
        offsets[static_cast<size_t>(b)] = lowest;
        skyline.raise(lo, hi, lowest + buf.size);
      }
      break;
    }
    // The selection below refreshes stale keys lazily; on wide instances
    // (many buffers alive together, as in a fan-out) every placement can make
    // most keys stale, so the loop is checked against the deadline.
    int64_t steps = 0;
    while (!queue.empty()) {
      if (budget != nullptr) {
        ++steps;
        if ((steps & 1023) == 0 && budget->expired()) break;
        if (budget->dive_step_limit > 0 && steps > budget->dive_step_limit) {
          budget->dive_cut = true;
          break;
        }
      }
      const DiveQueue::Entry entry = queue.top();
      const PlaceBuffer& buf = buffers[static_cast<size_t>(entry.buffer)];
      const int32_t lo = first[static_cast<size_t>(entry.buffer)], hi = end[static_cast<size_t>(entry.buffer)];
      const int64_t lowest = align_up(skyline.max_over(lo, hi), buf.alignment);
      if (lowest > entry.key) {
        queue.raise_top(lowest);
        continue;
      }
      queue.pop();
      offsets[static_cast<size_t>(entry.buffer)] = lowest;
      placed[static_cast<size_t>(entry.buffer)] = 1;
      skyline.raise(lo, hi, lowest + buf.size);
    }
    if (budget != nullptr) budget->dive_steps += steps;
    if (!queue.empty()) {
      drop_rest_in_order(buffers, order, axis, &skyline, &offsets, &placed);
      break;
    }
  }
  return offsets;
}

std::vector<int64_t> heaviest_section_loads(const std::vector<PlaceBuffer>& buffers) {
  const TimeSections axis = time_sections(buffers);
  const size_t sections = static_cast<size_t>(axis.count());
  std::vector<int64_t> load(sections + 1, 0);
  const std::vector<int32_t>& first = axis.first;
  const std::vector<int32_t>& end = axis.end;
  for (size_t i = 0; i < buffers.size(); ++i) {
    load[static_cast<size_t>(first[i])] += buffers[i].size;
    load[static_cast<size_t>(end[i])] -= buffers[i].size;
  }
  for (size_t s = 1; s < load.size(); ++s) load[s] += load[s - 1];
  // Range max by a sparse table: O(S log S) to build, O(1) per buffer.
  std::vector<std::vector<int64_t>> table(1, load);
  for (size_t width = 1; width * 2 <= load.size(); width *= 2) {
    const std::vector<int64_t>& prev = table.back();
    std::vector<int64_t> next(load.size() - width * 2 + 1);
    for (size_t i = 0; i < next.size(); ++i) next[i] = std::max(prev[i], prev[i + width]);
    table.push_back(std::move(next));
  }
  std::vector<int64_t> heaviest(buffers.size(), 0);
  for (size_t i = 0; i < buffers.size(); ++i) {
    const size_t lo = static_cast<size_t>(first[i]), hi = static_cast<size_t>(end[i]);
    if (hi <= lo) continue;
    size_t level = 0;
    while ((size_t{2} << level) <= hi - lo) ++level;
    heaviest[i] = std::max(table[level][lo], table[level][hi - (size_t{1} << level)]);
  }
  return heaviest;
}

std::vector<int32_t> preorder(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& heaviest,
                              const char* keys) {
  std::vector<int32_t> order(buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const PlaceBuffer& x = buffers[static_cast<size_t>(a)];
    const PlaceBuffer& y = buffers[static_cast<size_t>(b)];
    for (const char* k = keys; *k != '\0'; ++k) {
      if (*k == 'T' && heaviest[static_cast<size_t>(a)] != heaviest[static_cast<size_t>(b)]) {
        return heaviest[static_cast<size_t>(a)] > heaviest[static_cast<size_t>(b)];
      }
      if (*k == 'W' && x.upper - x.lower != y.upper - y.lower) return x.upper - x.lower > y.upper - y.lower;
      if (*k == 'A') {
        const double ax = static_cast<double>(x.size) * static_cast<double>(x.upper - x.lower);
        const double ay = static_cast<double>(y.size) * static_cast<double>(y.upper - y.lower);
        if (ax != ay) return ax > ay;
      }
      if (*k == 'Z' && x.size != y.size) return x.size > y.size;
    }
    return false;
  });
  return order;
}

}  // namespace placement_detail
}  // namespace tp
