// The jostle: every buffer pushed as high as it goes under the current
// height, then every buffer dropped as low as it goes, after the jostle
// heuristic for strip packing of Dowsland, Dowsland and Bennell ("Jostling
// for position: local improvement for irregular cutting patterns", Journal
// of the Operational Research Society 49, 1998), which packs the pieces
// against one end of the strip and then the other, each time in the order
// the last packing left them.
//
// Why it is safe. The first pass takes the buffers by their top, highest
// first, and puts each at the highest aligned offset under the height where
// it overlaps none of those already taken. A buffer taken earlier and alive
// with this one has the higher top, so it lay above this one, and it only
// went up: this buffer's own offset is still free, and its new one is no
// lower. The second pass takes them by offset, lowest first, down to the
// lowest free aligned offset, and for the same reason no buffer goes up.
// So the placement stays valid and never rises above the height it had.
//
// Why it helps. The neighbourhood search (placement_neighbourhood.cpp)
// frees windows closed upwards, and the holes deep below a fixed buffer are
// out of its reach. Pushed up and dropped again, the buffers settle in
// another order: the holes move, and the windows that failed meet others.
#include <algorithm>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {

namespace {

int64_t align_down(int64_t value, int64_t alignment) {
  if (alignment <= 1) return value;
  int64_t rounded = value / alignment * alignment;
  if (rounded > value) rounded -= alignment;  // value < 0 rounds towards zero
  return rounded;
}

// A permutation of the buffers with bytes, by `key` and ties by a hash of
// the index mixed with `salt` (so equal keys do not always go in index order).
template <typename Key>
std::vector<int32_t> order_by(const std::vector<PlaceBuffer>& buffers, uint64_t salt, Key key) {
  std::vector<int32_t> order;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].size > 0) order.push_back(static_cast<int32_t>(i));
  }
  auto tie = [salt](int32_t i) { return (static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull) ^ salt; };
  std::sort(order.begin(), order.end(), [&](int32_t x, int32_t y) {
    const int64_t kx = key(x), ky = key(y);
    return kx != ky ? kx < ky : tie(x) < tie(y);
  });
  return order;
}

}  // namespace

void jostle_placement(const std::vector<PlaceBuffer>& buffers, uint64_t salt, std::vector<int64_t>* offsets) {
  std::vector<int64_t>& at = *offsets;
  const int64_t height = placement_height(buffers, at);
  std::vector<int32_t> alive;
  std::vector<std::pair<int64_t, int64_t>> taken;  // [offset, top) of those alive with the buffer

  // Up, by top, highest first.
  {
    const std::vector<int32_t> order =
        order_by(buffers, salt, [&](int32_t i) { return -(at[static_cast<size_t>(i)] + buffers[static_cast<size_t>(i)].size); });
    LifetimeIndex index(buffers);
    for (int32_t i : order) {
      const PlaceBuffer& b = buffers[static_cast<size_t>(i)];
      alive.clear();
      index.collect(i, &alive);
      taken.clear();
      for (int32_t j : alive) taken.emplace_back(at[static_cast<size_t>(j)], at[static_cast<size_t>(j)] + buffers[static_cast<size_t>(j)].size);
      // Highest top first: a span wholly above the candidate is passed by.
      std::sort(taken.begin(), taken.end(), [](const std::pair<int64_t, int64_t>& x, const std::pair<int64_t, int64_t>& y) {
        return x.second > y.second;
      });
      int64_t offset = align_down(height - b.size, b.alignment);
      for (const auto& span : taken) {
        if (span.second <= offset) break;                                        // all the rest lie below
        if (span.first < offset + b.size) offset = align_down(span.first - b.size, b.alignment);  // overlaps: go under it
      }
      // Never below its own offset, which is free (above): the max only
      // states what the order guarantees.
      at[static_cast<size_t>(i)] = std::max(offset, at[static_cast<size_t>(i)]);
      index.insert(i);
    }
  }
  // Down, by offset, lowest first.
  {
    const std::vector<int32_t> order = order_by(buffers, salt, [&](int32_t i) { return at[static_cast<size_t>(i)]; });
    LifetimeIndex index(buffers);
    for (int32_t i : order) {
      const PlaceBuffer& b = buffers[static_cast<size_t>(i)];
      alive.clear();
      index.collect(i, &alive);
      taken.clear();
      for (int32_t j : alive) taken.emplace_back(at[static_cast<size_t>(j)], at[static_cast<size_t>(j)] + buffers[static_cast<size_t>(j)].size);
      std::sort(taken.begin(), taken.end());
      int64_t offset = 0;
      for (const auto& span : taken) {
        if (span.first >= offset + b.size) break;                    // a gap below this span fits
        if (span.second > offset) offset = align_up(span.second, b.alignment);
      }
      at[static_cast<size_t>(i)] = std::min(offset, at[static_cast<size_t>(i)]);
      index.insert(i);
    }
  }
}

}  // namespace placement_detail
}  // namespace tp
