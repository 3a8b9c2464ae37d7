// First fit in order of first use (PLANNING.md §4): the lifetimes replayed as
// an online allocator sees them (ggml's measure pass, a caching allocator).
// At each step the frees come first (intervals are half-open), then the
// allocations in input order, each at the lowest aligned offset where it fits
// between the blocks alive at that moment.
//
// It is also the solver's floor: it runs in O(n log n) whatever the overlap
// (the free gaps live in a treap that answers "lowest gap of at least s
// bytes" in O(log n)), so on 10^5 buffers all alive together it takes a few
// milliseconds where a scan over the live blocks would take minutes, and the
// solver always has a complete placement before its slower phases start.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace tp {
namespace {

// The free space of the arena as maximal gaps [start, end), keyed by start:
// a treap whose nodes also keep the longest gap of their subtree. The top
// gap runs to kTop, so an allocation always finds a gap.
class FreeGaps {
 public:
  static constexpr int64_t kTop = std::numeric_limits<int64_t>::max() / 4;

  FreeGaps() { insert(0, kTop); }

  // The lowest offset where `size` bytes aligned to `alignment` fit; takes
  // them out of the free space.
  int64_t allocate(int64_t size, int64_t alignment) {
    int64_t from = std::numeric_limits<int64_t>::min();
    while (true) {
      // A gap of at least `size` bytes fits unless alignment pads it out;
      // then look further up (rare: only gaps shorter than size + alignment).
      const int32_t gap = lowest_fitting(root_, from, size);
      const int64_t start = nodes_[static_cast<size_t>(gap)].start;
      const int64_t end = nodes_[static_cast<size_t>(gap)].end;
      const int64_t offset = placement_detail::align_up(start, alignment);
      if (offset <= end - size) {
        // Most allocations take the front of a gap (or all of it): the gap
        // shrinks in place, its neighbours keep their order.
        if (offset == start && offset + size < end) {
          reshape(start, offset + size, end);
        } else if (offset > start) {
          reshape(start, start, offset);
          if (offset + size < end) insert(offset + size, end);
        } else {
          erase(start);
        }
        return offset;
      }
      from = start + 1;
    }
  }

  // Returns [offset, offset + size) to the free space, merged with the gaps
  // on either side.
  void release(int64_t offset, int64_t size) {
    const int64_t end = offset + size;
    const int32_t below = last_starting_before(offset);
    const int32_t above = starting_at(end);
    const bool joins_below = below >= 0 && nodes_[static_cast<size_t>(below)].end == offset;
    if (joins_below && above >= 0) {
      const int64_t below_start = nodes_[static_cast<size_t>(below)].start;
      const int64_t above_end = nodes_[static_cast<size_t>(above)].end;
      erase(end);
      reshape(below_start, below_start, above_end);
    } else if (joins_below) {
      const int64_t below_start = nodes_[static_cast<size_t>(below)].start;
      reshape(below_start, below_start, end);
    } else if (above >= 0) {
      reshape(end, offset, nodes_[static_cast<size_t>(above)].end);
    } else {
      insert(offset, end);
    }
  }

 private:
  struct Node {
    int64_t start, end, longest;
    uint64_t priority;
    int32_t left, right;
  };

  int64_t longest(int32_t t) const { return t < 0 ? -1 : nodes_[static_cast<size_t>(t)].longest; }
  void update(int32_t t) {
    Node& n = nodes_[static_cast<size_t>(t)];
    n.longest = std::max(n.end - n.start, std::max(longest(n.left), longest(n.right)));
  }

  // Splits t into keys < key (left) and keys >= key (right).
  void split(int32_t t, int64_t key, int32_t* left, int32_t* right) {
    if (t < 0) {
      *left = *right = -1;
      return;
    }
    Node& n = nodes_[static_cast<size_t>(t)];
    if (n.start < key) {
      split(n.right, key, &nodes_[static_cast<size_t>(t)].right, right);
      *left = t;
    } else {
      split(n.left, key, left, &nodes_[static_cast<size_t>(t)].left);
      *right = t;
    }
    update(t);
  }

  int32_t merge(int32_t a, int32_t b) {
    if (a < 0) return b;
    if (b < 0) return a;
    if (nodes_[static_cast<size_t>(a)].priority > nodes_[static_cast<size_t>(b)].priority) {
      const int32_t merged = merge(nodes_[static_cast<size_t>(a)].right, b);
      nodes_[static_cast<size_t>(a)].right = merged;
      update(a);
      return a;
    }
    const int32_t merged = merge(a, nodes_[static_cast<size_t>(b)].left);
    nodes_[static_cast<size_t>(b)].left = merged;
    update(b);
    return b;
  }

  void insert(int64_t start, int64_t end) {
    int32_t id;
    if (!unused_.empty()) {
      id = unused_.back();
      unused_.pop_back();
    } else {
      id = static_cast<int32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    // Deterministic priorities (splitmix64 of a counter): the same input
    // gives the same tree, and the offsets never depend on it anyway.
    uint64_t x = ++inserted_ * 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    nodes_[static_cast<size_t>(id)] = Node{start, end, end - start, x ^ (x >> 31), -1, -1};
    int32_t left, right;
    split(root_, start, &left, &right);
    root_ = merge(merge(left, id), right);
  }

  // Gives the gap that starts at `key` the bounds [start, end); the caller
  // guarantees that its order among the gaps does not change, so only the
  // subtree maxima on the path to it need updating.
  void reshape(int64_t key, int64_t start, int64_t end) {
    path_.clear();
    int32_t t = root_;
    while (nodes_[static_cast<size_t>(t)].start != key) {
      path_.push_back(t);
      t = key < nodes_[static_cast<size_t>(t)].start ? nodes_[static_cast<size_t>(t)].left : nodes_[static_cast<size_t>(t)].right;
    }
    nodes_[static_cast<size_t>(t)].start = start;
    nodes_[static_cast<size_t>(t)].end = end;
    update(t);
    for (size_t i = path_.size(); i-- > 0;) update(path_[i]);
  }

  void erase(int64_t start) {
    int32_t left, middle, right;
    split(root_, start, &left, &middle);
    split(middle, start + 1, &middle, &right);
    if (middle >= 0) unused_.push_back(middle);  // one node: starts are unique
    root_ = merge(left, right);
  }

  // The gap with the lowest start >= from among those of at least `size`
  // bytes, or -1.
  int32_t lowest_fitting(int32_t t, int64_t from, int64_t size) const {
    if (t < 0 || longest(t) < size) return -1;
    const Node& n = nodes_[static_cast<size_t>(t)];
    if (n.start < from) return lowest_fitting(n.right, from, size);
    const int32_t in_left = lowest_fitting(n.left, from, size);
    if (in_left >= 0) return in_left;
    if (n.end - n.start >= size) return t;
    return lowest_fitting(n.right, from, size);
  }

  int32_t last_starting_before(int64_t key) const {
    int32_t found = -1;
    for (int32_t t = root_; t >= 0;) {
      const Node& n = nodes_[static_cast<size_t>(t)];
      if (n.start < key) {
        found = t;
        t = n.right;
      } else {
        t = n.left;
      }
    }
    return found;
  }

  int32_t starting_at(int64_t key) const {
    for (int32_t t = root_; t >= 0;) {
      const Node& n = nodes_[static_cast<size_t>(t)];
      if (n.start == key) return t;
      t = key < n.start ? n.left : n.right;
    }
    return -1;
  }

  std::vector<Node> nodes_;
  std::vector<int32_t> unused_;
  std::vector<int32_t> path_;
  int32_t root_ = -1;
  uint64_t inserted_ = 0;
};

}  // namespace

std::vector<int64_t> place_first_fit(const std::vector<PlaceBuffer>& buffers) {
  struct Event {
    int64_t time;
    int kind;  // 0 = free, 1 = allocate
    int32_t index;
  };
  std::vector<Event> events;
  events.reserve(buffers.size() * 2);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].size == 0) continue;
    events.push_back({buffers[i].lower, 1, static_cast<int32_t>(i)});
    events.push_back({buffers[i].upper, 0, static_cast<int32_t>(i)});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.index < b.index;
  });
  std::vector<int64_t> offsets(buffers.size(), 0);
  FreeGaps gaps;
  for (const Event& e : events) {
    const PlaceBuffer& b = buffers[static_cast<size_t>(e.index)];
    if (e.kind == 0) {
      gaps.release(offsets[static_cast<size_t>(e.index)], b.size);
    } else {
      offsets[static_cast<size_t>(e.index)] = gaps.allocate(b.size, b.alignment);
    }
  }
  return offsets;
}

}  // namespace tp
