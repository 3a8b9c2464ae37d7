// The best-fit baselines of PLANNING.md §4, read from the source:
//   greedy-size  TFLite's arena planner (tensorflow/tensorflow f885d7ed7f8d,
//                tensorflow/lite/arena_planner.cc ArenaPlanner::CalculateAllocations
//                order, simple_memory_arena.cc SimpleMemoryArena::Allocate)
//   xla-best     XLA's GlobalDecreasingSizeBestFitHeap (openxla/xla
//                d492e8388d46, xla/service/heap_simulator/heap_simulator.cc)
//                kSpatial and kTemporal, the lower of the two as
//                ChooseBestHeapAlgorithm::Finish keeps it (ties to kSpatial)
// First fit is in placement_first_fit.cpp. ONNX Runtime's memory pattern
// (mem_pattern_planner.h TraceAllocation) is best fit in allocation order
// with the gap below the current peak as a candidate: not one of these.
#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "placement/placement.h"
#include "placement/placement_internal.h"

namespace tp {
namespace placement_detail {

TimeSections time_sections(const std::vector<PlaceBuffer>& buffers) {
  TimeSections sections;
  sections.times.reserve(buffers.size() * 2);
  for (const PlaceBuffer& b : buffers) {
    sections.times.push_back(b.lower);
    sections.times.push_back(b.upper);
  }
  std::sort(sections.times.begin(), sections.times.end());
  sections.times.erase(std::unique(sections.times.begin(), sections.times.end()), sections.times.end());
  const auto section_of = [&](int64_t time) {
    return static_cast<int32_t>(std::lower_bound(sections.times.begin(), sections.times.end(), time) - sections.times.begin());
  };
  sections.first.resize(buffers.size());
  sections.end.resize(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    sections.first[i] = section_of(buffers[i].lower);
    sections.end[i] = section_of(buffers[i].upper);
  }
  return sections;
}

LifetimeIndex::LifetimeIndex(const std::vector<PlaceBuffer>& buffers) {
  TimeSections sections = time_sections(buffers);
  leaves_ = std::max<int>(1, sections.count());
  first_section_ = std::move(sections.first);
  end_section_ = std::move(sections.end);
  covering_.resize(static_cast<size_t>(leaves_) * 4);
  touching_.resize(static_cast<size_t>(leaves_) * 4);
  seen_.assign(buffers.size(), 0);
}

void LifetimeIndex::insert_at(int node, int lo, int hi, int qlo, int qhi, int32_t buffer) {
  if (qhi <= lo || hi <= qlo) return;
  if (qlo <= lo && hi <= qhi) {
    covering_[static_cast<size_t>(node)].push_back(buffer);
    return;
  }
  touching_[static_cast<size_t>(node)].push_back(buffer);
  const int mid = (lo + hi) / 2;
  insert_at(node * 2, lo, mid, qlo, qhi, buffer);
  insert_at(node * 2 + 1, mid, hi, qlo, qhi, buffer);
}

void LifetimeIndex::insert(int32_t buffer) {
  if (first_section_[static_cast<size_t>(buffer)] >= end_section_[static_cast<size_t>(buffer)]) return;
  insert_at(1, 0, leaves_, first_section_[static_cast<size_t>(buffer)], end_section_[static_cast<size_t>(buffer)], buffer);
}

void LifetimeIndex::collect_at(int node, int lo, int hi, int qlo, int qhi, std::vector<int32_t>* out) {
  if (qhi <= lo || hi <= qlo) return;
  auto take = [&](const std::vector<int32_t>& list) {
    for (int32_t b : list) {
      if (seen_[static_cast<size_t>(b)] == stamp_) continue;
      seen_[static_cast<size_t>(b)] = stamp_;
      out->push_back(b);
    }
  };
  take(covering_[static_cast<size_t>(node)]);
  if (qlo <= lo && hi <= qhi) {
    take(touching_[static_cast<size_t>(node)]);
    return;
  }
  const int mid = (lo + hi) / 2;
  collect_at(node * 2, lo, mid, qlo, qhi, out);
  collect_at(node * 2 + 1, mid, hi, qlo, qhi, out);
}

void LifetimeIndex::collect(int32_t buffer, std::vector<int32_t>* out) {
  if (++stamp_ == 0) {
    std::fill(seen_.begin(), seen_.end(), 0);
    stamp_ = 1;
  }
  if (first_section_[static_cast<size_t>(buffer)] >= end_section_[static_cast<size_t>(buffer)]) return;
  collect_at(1, 0, leaves_, first_section_[static_cast<size_t>(buffer)], end_section_[static_cast<size_t>(buffer)], out);
}

std::vector<int64_t> best_fit_in_order(const std::vector<PlaceBuffer>& buffers, const std::vector<int32_t>& order,
                                       SearchBudget* budget, BestFitRule rule) {
  std::vector<int64_t> offsets(buffers.size(), 0);
  LifetimeIndex index(buffers);
  std::vector<int32_t> alive;
  std::vector<std::pair<int64_t, int64_t>> spans;  // (offset, end) of the placed buffers alive with it
  size_t done = 0;
  for (int32_t b : order) {
    // Each step costs O(overlap log overlap): on wide instances the whole
    // pass takes long enough that the deadline must be able to stop it.
    if (budget != nullptr && (++done & 255) == 0 && budget->expired()) return {};
    const PlaceBuffer& buffer = buffers[static_cast<size_t>(b)];
    if (buffer.size == 0) continue;  // occupies nothing: offset 0
    alive.clear();
    index.collect(b, &alive);
    spans.clear();
    for (int32_t other : alive) {
      const int64_t offset = offsets[static_cast<size_t>(other)];
      spans.emplace_back(offset, offset + buffers[static_cast<size_t>(other)].size);
    }
    std::sort(spans.begin(), spans.end());
    int64_t best_offset = -1, best_gap = 0, cursor = 0;
    for (const auto& span : spans) {
      const int64_t start = align_up(cursor, buffer.alignment);
      if (span.first > start && span.first - start >= buffer.size) {
        const int64_t gap = span.first - start;
        if (best_offset < 0 || gap < best_gap) {
          best_offset = start;
          // TFLite keeps the gap measured from the unaligned cursor.
          best_gap = rule == BestFitRule::kTfLite ? span.first - cursor : gap;
          // An exact fit cannot be beaten under XLA's measure (TFLite's can
          // still be undercut by its own mixed measure, so it scans on).
          if (rule == BestFitRule::kXla && gap == buffer.size) break;
        }
      }
      cursor = std::max(cursor, span.second);
    }
    offsets[static_cast<size_t>(b)] = best_offset >= 0 ? best_offset : align_up(cursor, buffer.alignment);
    index.insert(b);
  }
  return offsets;
}

// ArenaPlanner::CalculateAllocations (arena_planner.cc, f885d7ed7f8d): the
// tensors alive over the whole run (allocated at node 0, never freed) first,
// by index; then decreasing size; then earlier first use (std::sort: a full
// tie has no order there, index here).
std::vector<int32_t> size_order(const std::vector<PlaceBuffer>& buffers) {
  std::vector<int32_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  int64_t first = 0, last = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    first = i == 0 ? buffers[i].lower : std::min(first, buffers[i].lower);
    last = i == 0 ? buffers[i].upper : std::max(last, buffers[i].upper);
  }
  auto whole_run = [&](const PlaceBuffer& b) { return b.lower == first && b.upper == last; };
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const PlaceBuffer& x = buffers[static_cast<size_t>(a)];
    const PlaceBuffer& y = buffers[static_cast<size_t>(b)];
    if (whole_run(x) || whole_run(y)) return whole_run(x) && !whole_run(y);
    if (x.size != y.size) return x.size > y.size;
    return x.lower < y.lower;
  });
  return order;
}

// GetSpatialBufferIntervalCompare (heap_simulator.cc, d492e8388d46): size
// descending, duration descending, buffer (index) ascending.
std::vector<int32_t> xla_size_order(const std::vector<PlaceBuffer>& buffers) {
  std::vector<int32_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const PlaceBuffer& x = buffers[static_cast<size_t>(a)];
    const PlaceBuffer& y = buffers[static_cast<size_t>(b)];
    if (x.size != y.size) return x.size > y.size;
    return x.upper - x.lower > y.upper - y.lower;
  });
  return order;
}

// GetTemporalBufferIntervalCompare (heap_simulator.cc, d492e8388d46):
// duration descending, size descending, buffer (index) ascending.
std::vector<int32_t> lifetime_order(const std::vector<PlaceBuffer>& buffers) {
  std::vector<int32_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const PlaceBuffer& x = buffers[static_cast<size_t>(a)];
    const PlaceBuffer& y = buffers[static_cast<size_t>(b)];
    const int64_t lx = x.upper - x.lower, ly = y.upper - y.lower;
    if (lx != ly) return lx > ly;
    return x.size > y.size;
  });
  return order;
}

}  // namespace placement_detail

std::vector<int64_t> place_greedy_by_size(const std::vector<PlaceBuffer>& buffers) {
  return placement_detail::best_fit_in_order(buffers, placement_detail::size_order(buffers));
}

std::vector<int64_t> place_xla_by_size(const std::vector<PlaceBuffer>& buffers) {
  return placement_detail::best_fit_in_order(buffers, placement_detail::xla_size_order(buffers), nullptr,
                                             placement_detail::BestFitRule::kXla);
}

std::vector<int64_t> place_best_fit_by_lifetime(const std::vector<PlaceBuffer>& buffers) {
  return placement_detail::best_fit_in_order(buffers, placement_detail::lifetime_order(buffers), nullptr,
                                             placement_detail::BestFitRule::kXla);
}

}  // namespace tp
