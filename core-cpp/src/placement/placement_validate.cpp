// The independent placement validator. It shares no code with the planners on
// purpose: a bug in the planners' bookkeeping must not hide itself here.
//
// A sweep over time keeps the buffers alive at the current step in a set
// ordered by offset. Buffers in the set never overlap each other, so a new
// buffer overlaps one of them exactly when it overlaps its neighbour below or
// its neighbour above: O(n log n) overall, cheap enough to run on every result.
#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "placement/placement.h"

namespace tp {
namespace {

std::string buffer_name(size_t index) { return "buffers[" + std::to_string(index) + "]"; }

std::string describe(const PlaceBuffer& b, int64_t offset) {
  return "steps [" + std::to_string(b.lower) + ", " + std::to_string(b.upper) + "), bytes [" +
         std::to_string(offset) + ", " + std::to_string(offset + b.size) + ")";
}

}  // namespace

Status validate_placement(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets,
                          int64_t capacity, std::vector<std::string>* violations, size_t max_violations) {
  std::vector<std::string> found;
  size_t total = 0;
  auto report = [&](std::string message) {
    ++total;
    if (found.size() < max_violations) found.push_back(std::move(message));
  };
  if (offsets.size() != buffers.size()) {
    report("offsets has " + std::to_string(offsets.size()) + " entries for " +
           std::to_string(buffers.size()) + " buffers");
  } else {
    for (size_t i = 0; i < buffers.size(); ++i) {
      const PlaceBuffer& b = buffers[i];
      const int64_t offset = offsets[i];
      if (offset < 0) report(buffer_name(i) + ".offset = " + std::to_string(offset) + ": negative");
      const int64_t alignment = b.alignment < 1 ? 1 : b.alignment;
      if (offset % alignment != 0) {
        report(buffer_name(i) + ".offset = " + std::to_string(offset) + ": not a multiple of its alignment " +
               std::to_string(alignment));
      }
      if (offset > kMaxExactInteger - b.size) {
        report(buffer_name(i) + ".offset = " + std::to_string(offset) + ": end exceeds 2^53");
      } else if (capacity > 0 && offset + b.size > capacity) {
        report(buffer_name(i) + " ends at " + std::to_string(offset + b.size) + ": beyond the capacity " +
               std::to_string(capacity));
      }
    }
    // Events: at equal times, deaths come before births (intervals are half-open).
    struct Event {
      int64_t time;
      int kind;  // 0 = death, 1 = birth
      size_t index;
    };
    std::vector<Event> events;
    events.reserve(buffers.size() * 2);
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (buffers[i].size <= 0 || buffers[i].upper <= buffers[i].lower) continue;  // occupies nothing
      events.push_back({buffers[i].lower, 1, i});
      events.push_back({buffers[i].upper, 0, i});
    }
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      return std::tie(a.time, a.kind, a.index) < std::tie(b.time, b.kind, b.index);
    });
    // (start, end, index) of the buffers alive now, disjoint by construction.
    std::set<std::tuple<int64_t, int64_t, size_t>> alive;
    std::vector<char> inserted(buffers.size(), 0);
    for (const Event& e : events) {
      const PlaceBuffer& b = buffers[e.index];
      const int64_t start = offsets[e.index];
      const int64_t end = start + b.size;
      if (e.kind == 0) {
        if (inserted[e.index]) alive.erase(std::make_tuple(start, end, e.index));
        continue;
      }
      auto above = alive.lower_bound(std::make_tuple(start, std::numeric_limits<int64_t>::min(), size_t{0}));
      size_t clash = buffers.size();
      if (above != alive.end() && std::get<0>(*above) < end) clash = std::get<2>(*above);
      if (clash == buffers.size() && above != alive.begin()) {
        auto below = std::prev(above);
        if (std::get<1>(*below) > start) clash = std::get<2>(*below);
      }
      if (clash != buffers.size()) {
        report(buffer_name(e.index) + " (" + describe(b, start) + ") overlaps " + buffer_name(clash) + " (" +
               describe(buffers[clash], offsets[clash]) + ")");
        continue;  // keep the set disjoint; the clash is reported
      }
      alive.insert(std::make_tuple(start, end, e.index));
      inserted[e.index] = 1;
    }
  }
  if (total == 0) return Status::ok();
  std::string message = "invalid placement: " + found[0];
  if (total > 1) message += " (and " + std::to_string(total - 1) + " more)";
  if (violations != nullptr) *violations = std::move(found);
  return Status::invalid(message);
}

}  // namespace tp
