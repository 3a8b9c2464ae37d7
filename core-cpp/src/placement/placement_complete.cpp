// Completing a partial placement (offsets of -1 for the unplaced buffers)
// into a whole one: the fallback that a decision search which gives up
// hands back (placement_wells.cpp, placement_exact.cpp). The placed buffers
// stay where they are; the rest go on top of them.
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {

void placed_spans_alive_with(int32_t i, const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets,
                             LifetimeIndex* placed, std::vector<int32_t>* alive,
                             std::vector<std::pair<int64_t, int64_t>>* spans) {
  alive->clear();
  placed->collect(i, alive);
  spans->clear();
  for (int32_t j : *alive) {
    const int64_t at = offsets[static_cast<size_t>(j)];
    spans->emplace_back(at, at + buffers[static_cast<size_t>(j)].size);
  }
}

int64_t lowest_fit(const PlaceBuffer& b, std::vector<std::pair<int64_t, int64_t>>* spans) {
  std::sort(spans->begin(), spans->end());
  int64_t offset = 0;
  for (const auto& [low, high] : *spans) {
    if (low >= offset + b.size) break;  // the gap below this span fits
    offset = std::max(offset, align_up(high, b.alignment));
  }
  return offset;
}

namespace {

// Puts every buffer whose offset is -1 at its lowest offset clear of the
// buffers already placed and alive with it, in `order`. Returns the height.
int64_t complete_in_order(const std::vector<PlaceBuffer>& buffers, const std::vector<int32_t>& order,
                          std::vector<int64_t>* offsets) {
  LifetimeIndex placed(buffers);
  for (size_t c = 0; c < buffers.size(); ++c) {
    if ((*offsets)[c] >= 0) placed.insert(static_cast<int32_t>(c));
  }
  std::vector<int32_t> alive;
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (int32_t b : order) {
    placed_spans_alive_with(b, buffers, *offsets, &placed, &alive, &spans);
    (*offsets)[static_cast<size_t>(b)] = lowest_fit(buffers[static_cast<size_t>(b)], &spans);
    placed.insert(b);
  }
  return placement_height(buffers, *offsets);
}

// Completes the partial placement as the well search (placement_wells.cpp)
// would go on if it could leave bytes free: the lowest run of sections at one
// floor level (the leftmost of equal ones) takes the unplaced buffer lying
// within it whose top meets the most edges around it (the floor just left and
// right of the run, as the well search's edge score), then the largest by
// size x lifetime; a run that holds none is raised to its lower neighbour,
// leaving that band free. Returns the height, or -1 without a completion.
int64_t complete_by_skyline(const std::vector<PlaceBuffer>& buffers, std::vector<int64_t>* offsets) {
  const TimeSections axis = time_sections(buffers);
  const int32_t sections = axis.count();
  std::vector<int64_t> floor(static_cast<size_t>(sections), 0);
  std::vector<int32_t> rest;
  for (size_t b = 0; b < buffers.size(); ++b) {
    if ((*offsets)[b] < 0) {
      rest.push_back(static_cast<int32_t>(b));
      continue;
    }
    for (int32_t s = axis.first[b]; s < axis.end[b]; ++s) {
      floor[static_cast<size_t>(s)] = std::max(floor[static_cast<size_t>(s)], (*offsets)[b] + buffers[b].size);
    }
  }
  const int64_t kWall = std::numeric_limits<int64_t>::max();
  while (!rest.empty()) {
    int32_t start = 0;
    for (int32_t s = 1; s < sections; ++s) {
      if (floor[static_cast<size_t>(s)] < floor[static_cast<size_t>(start)]) start = s;
    }
    const int64_t y = floor[static_cast<size_t>(start)];
    int32_t stop = start;
    while (stop < sections && floor[static_cast<size_t>(stop)] == y) ++stop;
    const int64_t left = start == 0 ? kWall : floor[static_cast<size_t>(start - 1)];
    const int64_t right = stop == sections ? kWall : floor[static_cast<size_t>(stop)];
    size_t pick = rest.size();
    int best_score = -1;
    double best_area = -1;
    for (size_t i = 0; i < rest.size(); ++i) {
      const size_t b = static_cast<size_t>(rest[i]);
      if (axis.first[b] < start || axis.end[b] > stop) continue;
      const int64_t at = align_up(y, buffers[b].alignment);
      const int64_t top = at + buffers[b].size;
      const int score = (axis.first[b] == start && top == left ? 1 : 0) + (axis.end[b] == stop && top == right ? 1 : 0);
      const double area = static_cast<double>(buffers[b].size) * static_cast<double>(buffers[b].upper - buffers[b].lower);
      if (score > best_score || (score == best_score && area > best_area)) {
        pick = i;
        best_score = score;
        best_area = area;
      }
    }
    if (pick == rest.size()) {
      const int64_t raised = std::min(left, right);
      if (raised == kWall) return -1;  // cannot happen: every buffer lies within all sections
      for (int32_t s = start; s < stop; ++s) floor[static_cast<size_t>(s)] = raised;
      continue;
    }
    const size_t b = static_cast<size_t>(rest[pick]);
    const int64_t at = align_up(y, buffers[b].alignment);
    (*offsets)[b] = at;
    for (int32_t s = axis.first[b]; s < axis.end[b]; ++s) floor[static_cast<size_t>(s)] = at + buffers[b].size;
    rest[pick] = rest.back();
    rest.pop_back();
  }
  return placement_height(buffers, *offsets);
}

}  // namespace

std::vector<int64_t> complete_partial_placement(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& partial) {
  std::vector<int32_t> rest;
  for (size_t b = 0; b < partial.size(); ++b) {
    if (partial[b] < 0) rest.push_back(static_cast<int32_t>(b));
  }
  if (partial.empty() || rest.size() == partial.size() ||
      static_cast<double>(rest.size()) * static_cast<double>(buffers.size()) > 4e7) {
    return {};
  }
  std::vector<int64_t> best = partial;
  int64_t best_height = complete_by_skyline(buffers, &best);
  if (best_height < 0) best.clear();
  for (int rule = 0; rule < 3; ++rule) {
    auto key = [&](int32_t b) {
      const PlaceBuffer& x = buffers[static_cast<size_t>(b)];
      const double lifetime = static_cast<double>(x.upper - x.lower);
      return rule == 0 ? static_cast<double>(x.size) : rule == 1 ? static_cast<double>(x.size) * lifetime : lifetime;
    };
    std::vector<int32_t> order = rest;
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return key(a) > key(b); });
    std::vector<int64_t> offsets = partial;
    const int64_t height = complete_in_order(buffers, order, &offsets);
    if (best.empty() || height < best_height) {
      best = std::move(offsets);
      best_height = height;
    }
  }
  return best;
}

std::vector<int64_t> complete_above_partial(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& partial,
                                            int64_t lowest, int64_t highest, int64_t node_limit, SearchBudget* budget) {
  std::vector<PlaceBuffer> rest;
  std::vector<size_t> rest_index;
  PlacedFloor floor;
  for (size_t b = 0; b < partial.size(); ++b) {
    if (buffers[b].size == 0) continue;
    if (partial[b] < 0) {
      rest.push_back(buffers[b]);
      rest_index.push_back(b);
    } else {
      floor.buffers.push_back(buffers[b]);
      floor.offsets.push_back(partial[b]);
    }
  }
  std::vector<int64_t> best;
  if (rest.empty() || floor.buffers.empty()) return best;
  // Bisection between what is proved and what is placed: a capacity the
  // search refutes or gives up on raises the low end (a give-up is only
  // taken as a no here: this is a heuristic completion, not a proof).
  std::vector<int64_t> rest_offsets;
  SearchScratch scratch;
  while (lowest < highest && !budget->expired()) {
    const int64_t capacity = lowest + (highest - 1 - lowest) / 2;
    const SearchOutcome outcome =
        search_at_capacity(rest, capacity, node_limit, budget, &rest_offsets, &floor, nullptr, &scratch);
    if (outcome != SearchOutcome::kFound) {
      lowest = capacity + 1;
      continue;
    }
    best = partial;
    for (size_t k = 0; k < rest.size(); ++k) best[rest_index[k]] = rest_offsets[k];
    highest = placement_height(buffers, best);
  }
  return best;
}

}  // namespace placement_detail
}  // namespace tp
