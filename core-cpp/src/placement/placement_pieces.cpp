// The independent pieces of an instance, and how a piece takes a lower
// placement and keeps its other starts.
#include <algorithm>
#include <utility>
#include <vector>

#include "placement/placement_pieces.h"

namespace tp {
namespace placement_detail {

std::vector<Piece> split_at_free_steps(const std::vector<PlaceBuffer>& buffers) {
  std::vector<int32_t> order;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].size > 0) order.push_back(static_cast<int32_t>(i));
  }
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return buffers[static_cast<size_t>(a)].lower < buffers[static_cast<size_t>(b)].lower;
  });
  std::vector<Piece> pieces;
  int64_t reach = 0;
  for (int32_t i : order) {
    const PlaceBuffer& b = buffers[static_cast<size_t>(i)];
    if (pieces.empty() || b.lower >= reach) {
      pieces.emplace_back();
      reach = b.upper;
    }
    pieces.back().members.push_back(i);
    pieces.back().buffers.push_back(b);
    reach = std::max(reach, b.upper);
  }
  for (Piece& p : pieces) {
    p.lower_bound = placement_lower_bound(p.buffers);
    // Pairs alive together, counted by a sweep (each pair once, at the later birth).
    std::vector<std::pair<int64_t, int>> events;
    for (const PlaceBuffer& b : p.buffers) {
      events.emplace_back(b.lower, 1);
      events.emplace_back(b.upper, 0);
    }
    std::sort(events.begin(), events.end());
    int64_t alive = 0;
    for (const auto& e : events) {
      if (e.second == 0) {
        --alive;
      } else {
        p.pairs += alive;
        ++alive;
      }
    }
  }
  return pieces;
}

std::vector<int64_t> pieces_offsets(const std::vector<Piece>& pieces, size_t buffer_count) {
  std::vector<int64_t> offsets(buffer_count, 0);
  for (const Piece& piece : pieces) {
    for (size_t k = 0; k < piece.members.size(); ++k) offsets[static_cast<size_t>(piece.members[k])] = piece.offsets[k];
  }
  return offsets;
}

int64_t pieces_height(const std::vector<Piece>& pieces) {
  int64_t height = 0;
  for (const Piece& p : pieces) height = std::max(height, p.height);
  return height;
}

bool adopt_if_lower(Piece* piece, std::vector<int64_t>* offsets) {
  if (offsets->empty()) return false;
  const int64_t height = placement_height(piece->buffers, *offsets);
  if (height >= piece->height) return false;
  piece->offsets = std::move(*offsets);
  piece->height = height;
  piece->method = PlaceMethod::kSearch;
  return true;
}

namespace {

// How many of a piece's other constructive placements it keeps as starts,
// and on pieces of how many buffers at most (beyond, the constructive phase
// keeps to the area order; placement_construct.cpp). On 31 sparse packings
// of about 80 buffers (seeds 510-539 and 9001), several starts reached the
// optimum on 30 where the best start alone reached it on 28 of 30 (seeds
// 520 and 9001 it missed). Which starts the search uses is decided there
// (neighbourhood_starts, placement_search_phase.cpp).
constexpr size_t kMaxStarts = 7;
constexpr size_t kMostBuffersForStarts = 5000;

// Keeps `offsets` among the piece's starts when it is one of the lowest
// kMaxStarts so far (ties: the earlier one stays).
void keep_as_start(Piece* piece, const std::vector<int64_t>& offsets, int64_t height) {
  if (piece->buffers.size() > kMostBuffersForStarts) return;
  auto& heights = piece->start_heights;
  const auto position = std::upper_bound(heights.begin(), heights.end(), height) - heights.begin();
  if (static_cast<size_t>(position) >= kMaxStarts) return;
  heights.insert(heights.begin() + position, height);
  piece->starts.insert(piece->starts.begin() + position, offsets);
  if (heights.size() > kMaxStarts) {
    heights.pop_back();
    piece->starts.pop_back();
  }
}

}  // namespace

void adopt_if_lower(Piece* piece, const std::vector<int64_t>& whole_offsets, PlaceMethod method) {
  std::vector<int64_t> offsets(piece->members.size());
  for (size_t k = 0; k < piece->members.size(); ++k) offsets[k] = whole_offsets[static_cast<size_t>(piece->members[k])];
  const int64_t height = placement_height(piece->buffers, offsets);
  keep_as_start(piece, offsets, height);
  if (piece->method == PlaceMethod::kNone || height < piece->height) {
    piece->offsets = std::move(offsets);
    piece->height = height;
    piece->method = method;
  }
}

}  // namespace placement_detail
}  // namespace tp
