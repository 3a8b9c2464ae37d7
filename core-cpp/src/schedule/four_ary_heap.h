// A min-heap with four children per node, for the exact schedule search's
// queue (schedule_exact.cpp): its entries are 48 bytes and it holds up to
// hundreds of thousands of them, where a binary heap's pop spent a quarter of
// a proof's time walking twice as many levels, each a cache miss. Pops come
// in exactly the order of std::priority_queue with the same comparison when
// that order is strict (the search's is, up to entries that are equal in
// every field).
#ifndef TENSORPLAN_SCHEDULE_FOUR_ARY_HEAP_H
#define TENSORPLAN_SCHEDULE_FOUR_ARY_HEAP_H

#include <cstddef>
#include <utility>
#include <vector>

namespace tp {

// `Less(a, b)`: a comes out before b.
template <typename T, typename Less>
class FourAryHeap {
 public:
  explicit FourAryHeap(Less less) : less_(less) {}

  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const T& top() const { return items_.front(); }

  void push(const T& item) {
    size_t hole = items_.size();
    items_.push_back(item);
    while (hole > 0) {
      const size_t parent = (hole - 1) / 4;
      if (!less_(item, items_[parent])) break;
      items_[hole] = std::move(items_[parent]);
      hole = parent;
    }
    items_[hole] = item;
  }

  void pop() {
    T last = std::move(items_.back());
    items_.pop_back();
    if (items_.empty()) return;
    const size_t n = items_.size();
    size_t hole = 0;
    for (;;) {
      const size_t first = 4 * hole + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = first + 4 < n ? first + 4 : n;
      for (size_t c = first + 1; c < end; ++c) {
        if (less_(items_[c], items_[best])) best = c;
      }
      if (!less_(items_[best], last)) break;
      items_[hole] = std::move(items_[best]);
      hole = best;
    }
    items_[hole] = std::move(last);
  }

 private:
  std::vector<T> items_;
  Less less_;
};

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_FOUR_ARY_HEAP_H
