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
// The same holds after any prefix of either pass (a buffer not yet taken in
// the first pass lies below every one taken that is alive with it, and in
// the second above), so a pass that meets the deadline stops where it is.
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

constexpr size_t kBuffersPerCheck = 64;

int64_t top_of(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& at, int32_t i) {
  return at[static_cast<size_t>(i)] + buffers[static_cast<size_t>(i)].size;
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

// The highest aligned offset for b under `height` that overlaps none of
// `spans` (sorted here by top, highest first: a span wholly above the
// candidate is passed by, one wholly below ends the scan).
int64_t highest_fit(const PlaceBuffer& b, int64_t height, std::vector<std::pair<int64_t, int64_t>>* spans) {
  std::sort(spans->begin(), spans->end(), [](const std::pair<int64_t, int64_t>& x, const std::pair<int64_t, int64_t>& y) {
    return x.second > y.second;
  });
  int64_t offset = align_down(height - b.size, b.alignment);
  for (const auto& span : *spans) {
    if (span.second <= offset) break;
    if (span.first < offset + b.size) offset = align_down(span.first - b.size, b.alignment);
  }
  return offset;
}

}  // namespace

void jostle_placement(const std::vector<PlaceBuffer>& buffers, uint64_t salt, SearchBudget* budget,
                      std::vector<int64_t>* offsets) {
  std::vector<int64_t>& at = *offsets;
  const int64_t height = placement_height(buffers, at);
  std::vector<int32_t> alive;
  std::vector<std::pair<int64_t, int64_t>> spans;
  // The clock, every kBuffersPerCheck buffers: a buffer costs a scan of
  // those alive with it, which on a piece where thousands live together
  // adds up.
  size_t visited = 0;
  auto out_of_time = [&]() { return budget != nullptr && visited++ % kBuffersPerCheck == 0 && budget->expired(); };
  // Up, by top, highest first. A buffer never goes below its own offset,
  // which is free (above): the max only states what the order guarantees,
  // as the min does on the way down.
  LifetimeIndex up(buffers);
  for (int32_t i : order_by(buffers, salt, [&](int32_t k) { return -top_of(buffers, at, k); })) {
    if (out_of_time()) return;
    placed_spans_alive_with(i, buffers, at, &up, &alive, &spans);
    at[static_cast<size_t>(i)] = std::max(highest_fit(buffers[static_cast<size_t>(i)], height, &spans), at[static_cast<size_t>(i)]);
    up.insert(i);
  }
  // Down, by offset, lowest first.
  LifetimeIndex down(buffers);
  for (int32_t i : order_by(buffers, salt, [&](int32_t k) { return at[static_cast<size_t>(k)]; })) {
    if (out_of_time()) return;
    placed_spans_alive_with(i, buffers, at, &down, &alive, &spans);
    at[static_cast<size_t>(i)] = std::min(lowest_fit(buffers[static_cast<size_t>(i)], &spans), at[static_cast<size_t>(i)]);
    down.insert(i);
  }
}

}  // namespace placement_detail
}  // namespace tp
