// The overlap search (placement_internal.h, improve_by_overlap_search):
// guided local search on the overlap of a placement squeezed under a
// height. It follows Voudouris and Tsang's guided local search (1999) as
// Egeblad, Nielsen and Odgaard applied it to nesting ("Fast neighborhood
// search for two- and three-dimensional nesting problems", European Journal
// of Operational Research 183, 2007):
// - buffers may overlap while the search runs;
// - a move puts one buffer at the offset where its weighted overlap is least;
// - at a local minimum the weights of the overlapping pairs that cost most
//   rise, so that the search leaves it.
// A placement with no overlap left is valid at that height.
//
// The windows (placement_neighbourhood.cpp) re-place a few buffers exactly
// above the fixed rest. A move here may cross any buffer, so a buffer that
// the rest pins on top can still come down through them.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {
namespace {

// Each lowering aims this share of the lower bound below the height
// reached: small enough that the squeezed placement keeps most of its
// structure. On 18 skewed and sparse perfect packings of 600 buffers (seeds
// 601-618) above the optimum after a 6 s minimize, 4 s of this search from
// there, one run each (2026-11-29): steps of 0.002, 0.001 and 0.0005 ended
// at a mean of 1.0264-1.0267 times the optimum, lowering 13-14 of the 18;
// a step of 0.01, halved after 200 (1,000) weight rises without success,
// ended at 1.0284 (1.0263), lowering 11 (9).
constexpr double kStepShare = 0.001;

int64_t byte_overlap(int64_t a, int64_t a_size, int64_t b, int64_t b_size) {
  return std::max<int64_t>(0, std::min(a + a_size, b + b_size) - std::max(a, b));
}

class OverlapSearch {
 public:
  OverlapSearch(const std::vector<PlaceBuffer>& buffers, uint64_t seed, int64_t work_limit, SearchBudget* budget)
      : buffers_(buffers), rng_(seed), work_limit_(work_limit), budget_(budget) {
    const size_t n = buffers.size();
    neighbours_.assign(n, {});
    overlapping_.assign(n, 0);
    corners_.assign(n, {});
    std::vector<int32_t> by_start(n);
    for (size_t i = 0; i < n; ++i) by_start[i] = static_cast<int32_t>(i);
    std::sort(by_start.begin(), by_start.end(),
              [&](int32_t a, int32_t b) { return buffers[a].lower < buffers[b].lower; });
    for (size_t a = 0; a < n; ++a) {
      const PlaceBuffer& first = buffers[by_start[a]];
      for (size_t b = a + 1; b < n && buffers[by_start[b]].lower < first.upper; ++b) {
        const PlaceBuffer& second = buffers[by_start[b]];
        const int64_t steps = std::min(first.upper, second.upper) - second.lower;
        if (steps <= 0 || first.size == 0 || second.size == 0) continue;
        // Each entry knows its twin in the other's list, so a weight rises on both.
        std::vector<Neighbour>& mine = neighbours_[by_start[a]];
        std::vector<Neighbour>& theirs = neighbours_[by_start[b]];
        mine.push_back({by_start[b], static_cast<int32_t>(theirs.size()), static_cast<double>(steps), 1.0});
        theirs.push_back({by_start[a], static_cast<int32_t>(mine.size() - 1), static_cast<double>(steps), 1.0});
      }
    }
  }

  // Buffers marked here never move (null: every buffer may).
  void hold_fixed(const std::vector<char>* fixed) { fixed_ = fixed; }

  // Squeezes `offsets` under `height` and moves buffers until none overlaps
  // another; returns false when the budget's deadline passes or the work
  // limit is spent first (*offsets then holds overlapping buffers). Held
  // buffers are squeezed too: callers hold only buffers under the height.
  bool remove_overlap(int64_t height, std::vector<int64_t>* offsets) {
    height_ = height;
    offsets_ = offsets;
    for (size_t i = 0; i < buffers_.size(); ++i) {
      const int64_t highest = align_down(height - buffers_[i].size, buffers_[i].alignment);
      if (highest < 0) return false;  // taller than the height: no placement
      (*offsets)[i] = std::min((*offsets)[i], highest);
    }
    // Fresh weights for each height: on the packings above (step 0.001),
    // the mean was 1.0258 with fresh weights and 1.0267 with the weights
    // kept from the heights before.
    for (std::vector<Neighbour>& list : neighbours_) {
      for (Neighbour& n : list) n.weight = 1.0;
    }
    count_overlapping();
    while (!out_of_work()) {
      bool moved = true;
      while (moved && !out_of_work()) {
        moved = false;
        collect_overlapping();
        shuffle_order();
        for (int32_t i : order_) moved = move_to_least_overlap(i) || moved;
      }
      collect_overlapping();
      if (order_.empty()) return true;
      raise_weights();
    }
    return false;
  }

 private:
  struct Neighbour {
    int32_t other;
    int32_t twin;   // this pair's entry in the other's list
    double steps;   // steps alive together
    double weight;  // the guided search's penalty, from 1 up
  };

  bool out_of_work() {
    if (work_limit_ > 0 && work_ >= work_limit_) return true;
    return budget_->expired();
  }

  // overlapping_[i]: how many neighbours buffer i overlaps. Only those
  // buffers can lower the overlap by moving, so a pass visits them alone.
  void count_overlapping() {
    for (size_t i = 0; i < buffers_.size(); ++i) {
      overlapping_[i] = 0;
      for (const Neighbour& n : neighbours_[i]) {
        if (byte_overlap((*offsets_)[i], buffers_[i].size, (*offsets_)[n.other], buffers_[n.other].size) > 0) {
          ++overlapping_[i];
        }
      }
    }
  }

  void collect_overlapping() {
    order_.clear();
    for (size_t i = 0; i < buffers_.size(); ++i) {
      if (overlapping_[i] > 0 && !(fixed_ != nullptr && (*fixed_)[i])) order_.push_back(static_cast<int32_t>(i));
    }
  }

  // Fisher-Yates on raw draws: std::shuffle differs between standard
  // libraries, and the WASM and native builds should move alike.
  void shuffle_order() {
    for (size_t k = order_.size(); k > 1; --k) std::swap(order_[k - 1], order_[rng_() % k]);
  }

  double weighted_overlap(int32_t i, int64_t offset) const {
    double cost = 0;
    for (const Neighbour& n : neighbours_[i]) {
      const int64_t bytes = byte_overlap(offset, buffers_[i].size, (*offsets_)[n.other], buffers_[n.other].size);
      if (bytes > 0) cost += n.weight * n.steps * static_cast<double>(bytes);
    }
    return cost;
  }

  // The weighted overlap of buffer i is piecewise linear in its offset and
  // least at a convex corner (where it starts to overlap a neighbour from
  // below, or stops above it; rounded to its alignment) or at an end of its
  // range: one sweep over the corners, in order, finds the least.
  bool move_to_least_overlap(int32_t i) {
    ++work_;
    const PlaceBuffer& buffer = buffers_[i];
    const int64_t current = (*offsets_)[i];
    const double now = weighted_overlap(i, current);
    if (now == 0) return false;
    const int64_t highest = align_down(height_ - buffer.size, buffer.alignment);
    BufferCorners& corners = sorted_corners(i);
    const std::vector<SlopeChange>& slope_changes = corners.slope_changes;
    // The value at offset 0, then along the lines between corners: offset
    // 0 first, the neighbours' corners that lie in [0, highest] in order,
    // and `highest` last.
    double value = weighted_overlap(i, 0);
    double slope = 0;
    int64_t at = 0;
    size_t next = 0;
    while (next < slope_changes.size() && slope_changes[next].at <= 0) slope += slope_changes[next++].rate;
    double best = now;
    int64_t best_offset = current;
    auto try_candidate = [&](int64_t candidate) {
      while (next < slope_changes.size() && slope_changes[next].at <= candidate) {
        value += slope * static_cast<double>(slope_changes[next].at - at);
        at = slope_changes[next].at;
        slope += slope_changes[next++].rate;
      }
      value += slope * static_cast<double>(candidate - at);
      at = candidate;
      // The running sum rounds; a move must gain more than its rounding.
      if (value < best * (1 - 1e-9) - 1e-6 && candidate != current) {
        best = value;
        best_offset = candidate;
      }
    };
    try_candidate(0);
    for (const Candidate& c : corners.candidates) {
      if (c.offset < 0 || c.offset > highest) continue;
      try_candidate(c.offset);
    }
    try_candidate(highest);
    if (best_offset == current) return false;
    place_at(i, best_offset);
    return true;
  }

  // Where buffer i's weighted overlap changes slope (by `rate`), and the
  // offsets just below and just above each neighbour (aligned): recomputed
  // from the neighbours' offsets and weights at every move of i, in the
  // order the last move of i left them sorted. Between two moves of a
  // buffer only a few of its neighbours move (a pass moves the overlapping
  // buffers alone), so the order is nearly right and an insertion sort puts
  // it right in about one pass, where a full sort of each move's corners
  // took about 45% of this search's time (perf, a 10 s minimize of sparse
  // pp-600-s9005). The sorted values are the ones a full sort gives (ties
  // are equal values), so the sweep above adds the same numbers in the same
  // order: under a work limit the moves are the same, at 2.5-2.7 times the
  // speed (the bench's held-out packings of 300 and 600 buffers, 50,000
  // moves from first fit with two seeds each, 126 runs: 47-48 s against
  // 18-19 s, 2026-12-01, 2 cores; docs/placement.md, step 7).
  struct SlopeChange {
    int64_t at;
    double rate;
    int32_t neighbour;  // index into neighbours_[i]
    int32_t kind;       // which of the neighbour's four corners
    bool operator<(const SlopeChange& other) const { return at < other.at || (at == other.at && rate < other.rate); }
  };
  struct Candidate {
    int64_t offset;
    int32_t neighbour;
    int32_t above;  // 0: just below the neighbour, 1: just above it
    bool operator<(const Candidate& other) const { return offset < other.offset; }
  };
  struct BufferCorners {
    std::vector<SlopeChange> slope_changes;
    std::vector<Candidate> candidates;
  };

  BufferCorners& sorted_corners(int32_t i) {
    const PlaceBuffer& buffer = buffers_[i];
    const std::vector<Neighbour>& neighbours = neighbours_[i];
    BufferCorners& corners = corners_[i];
    if (corners.slope_changes.empty() && !neighbours.empty()) {
      for (int32_t k = 0; k < static_cast<int32_t>(neighbours.size()); ++k) {
        for (int32_t kind = 0; kind < 4; ++kind) corners.slope_changes.push_back({0, 0, k, kind});
        corners.candidates.push_back({0, k, 0});
        corners.candidates.push_back({0, k, 1});
      }
    }
    for (SlopeChange& change : corners.slope_changes) {
      const Neighbour& n = neighbours[change.neighbour];
      const int64_t low = (*offsets_)[n.other];
      const int64_t high = low + buffers_[n.other].size;
      const int64_t shorter = std::min(buffer.size, buffers_[n.other].size);
      const double rate = n.weight * n.steps;
      switch (change.kind) {
        case 0: change.at = low - buffer.size; change.rate = rate; break;
        case 1: change.at = low - buffer.size + shorter; change.rate = -rate; break;
        case 2: change.at = high - shorter; change.rate = -rate; break;
        default: change.at = high; change.rate = rate; break;
      }
    }
    for (Candidate& c : corners.candidates) {
      const int32_t other = neighbours[c.neighbour].other;
      const int64_t low = (*offsets_)[other];
      c.offset = c.above ? align_up(low + buffers_[other].size, buffer.alignment)
                         : align_down(low - buffer.size, buffer.alignment);
    }
    sort_nearly_sorted(&corners.slope_changes);
    sort_nearly_sorted(&corners.candidates);
    return corners;
  }

  // Insertion sort while the input is nearly sorted; a full sort where it
  // is not (a buffer's first move, or after a squeeze moved many).
  template <typename T>
  static void sort_nearly_sorted(std::vector<T>* items) {
    std::vector<T>& v = *items;
    size_t descents = 0;
    for (size_t k = 1; k < v.size(); ++k) descents += v[k] < v[k - 1] ? 1 : 0;
    if (descents == 0) return;
    if (descents * 16 > v.size()) {
      std::sort(v.begin(), v.end());
      return;
    }
    for (size_t k = 1; k < v.size(); ++k) {
      if (!(v[k] < v[k - 1])) continue;
      T item = v[k];
      size_t j = k;
      while (j > 0 && item < v[j - 1]) {
        v[j] = v[j - 1];
        --j;
      }
      v[j] = item;
    }
  }

  void place_at(int32_t i, int64_t offset) {
    const int64_t size = buffers_[i].size;
    for (const Neighbour& n : neighbours_[i]) {
      const int64_t other = (*offsets_)[n.other], other_size = buffers_[n.other].size;
      const int32_t was = byte_overlap((*offsets_)[i], size, other, other_size) > 0 ? 1 : 0;
      const int32_t is = byte_overlap(offset, size, other, other_size) > 0 ? 1 : 0;
      overlapping_[i] += is - was;
      overlapping_[n.other] += is - was;
    }
    (*offsets_)[i] = offset;
  }

  // At a local minimum (`order_` holds the overlapping buffers): raises the
  // weight of each overlapping pair by its utility (overlap over weight)
  // over the largest, so that the pairs that cost most and were penalised
  // least rise most.
  void raise_weights() {
    ++work_;
    double most = 0;
    for (int32_t i : order_) {
      for (const Neighbour& n : neighbours_[i]) most = std::max(most, utility(i, n));
    }
    if (most == 0) return;
    for (int32_t i : order_) {
      for (Neighbour& n : neighbours_[i]) {
        if (n.other < i) continue;
        const double rise = utility(i, n) / most;
        if (rise == 0) continue;
        n.weight += rise;
        neighbours_[n.other][n.twin].weight += rise;
      }
    }
  }

  double utility(int32_t i, const Neighbour& n) const {
    const int64_t bytes =
        byte_overlap((*offsets_)[i], buffers_[i].size, (*offsets_)[n.other], buffers_[n.other].size);
    return bytes > 0 ? static_cast<double>(bytes) * n.steps / n.weight : 0;
  }

  const std::vector<PlaceBuffer>& buffers_;
  const std::vector<char>* fixed_ = nullptr;
  std::mt19937_64 rng_;
  int64_t work_limit_;
  int64_t work_ = 0;
  SearchBudget* budget_;
  std::vector<std::vector<Neighbour>> neighbours_;
  std::vector<int32_t> overlapping_;
  std::vector<int32_t> order_;
  std::vector<BufferCorners> corners_;  // per buffer, filled at its first move
  std::vector<int64_t>* offsets_ = nullptr;
  int64_t height_ = 0;
};

}  // namespace

bool separate_around_fixed(const std::vector<PlaceBuffer>& buffers, int64_t height, const std::vector<char>& fixed,
                           uint64_t seed, SearchBudget* budget, std::vector<int64_t>* offsets) {
  if (buffers.empty()) return true;
  if (budget->deadline_seconds <= 0 && budget->stall_seconds <= 0) return false;
  OverlapSearch search(buffers, seed, 0, budget);
  search.hold_fixed(&fixed);
  std::vector<int64_t> trial = *offsets;
  if (!search.remove_overlap(height, &trial)) return false;
  *offsets = trial;
  return true;
}

bool improve_by_overlap_search(const std::vector<PlaceBuffer>& buffers, int64_t lower_bound, int64_t work_limit,
                               uint64_t seed, SearchBudget* budget, std::vector<int64_t>* offsets) {
  int64_t height = placement_height(buffers, *offsets);
  if (height <= lower_bound || buffers.empty()) return false;
  // Without a deadline or a work limit nothing would end a height that
  // cannot be reached.
  if (work_limit <= 0 && budget->deadline_seconds <= 0 && budget->stall_seconds <= 0) return false;
  const int64_t step =
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(kStepShare * static_cast<double>(lower_bound))));
  OverlapSearch search(buffers, seed, work_limit, budget);
  std::vector<int64_t> trial = *offsets;
  bool lowered = false;
  while (height > lower_bound) {
    if (!search.remove_overlap(std::max(lower_bound, height - step), &trial)) break;
    *offsets = trial;
    height = placement_height(buffers, *offsets);
    lowered = true;
    budget->note_improvement();
  }
  return lowered;
}

}  // namespace placement_detail
}  // namespace tp
