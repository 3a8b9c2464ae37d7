// Random perfect packings (see perfect_packing.h) and the guillotine check.
#include "placement/perfect_packing.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace tp {
namespace {

struct Rect {
  int64_t x0, x1;  // time [x0, x1)
  int64_t y0, y1;  // space [y0, y1)
  int64_t width() const { return x1 - x0; }
  int64_t depth() const { return y1 - y0; }
};

// Draws come straight from the 64-bit engine (std distributions differ
// between standard libraries; these do not).
class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed * 0x9E3779B97F4A7C15ull + 0x1234567ull) {}
  // Uniform in [0, n), n >= 1 (the modulo bias is negligible for n << 2^64).
  int64_t below(int64_t n) { return static_cast<int64_t>(rng_() % static_cast<uint64_t>(n)); }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(rng_() >> 11) * (1.0 / 9007199254740992.0); }
  // A cut position strictly inside (lo, hi), hi - lo >= 2, kept away from the
  // ends (10%..90%) so that no piece is a sliver unless the range is tiny.
  int64_t inside(int64_t lo, int64_t hi) {
    const int64_t len = hi - lo;
    const int64_t margin = std::max<int64_t>(1, len / 10);
    return lo + margin + below(std::max<int64_t>(1, len - 2 * margin + 1));
  }
  // Two cut positions lo < a < b < hi (hi - lo >= 3).
  void two_inside(int64_t lo, int64_t hi, int64_t* a, int64_t* b) {
    *a = lo + 1 + below(hi - lo - 2);
    *b = *a + 1 + below(hi - *a - 1);
  }

 private:
  std::mt19937_64 rng_;
};

// A pinwheel: four arms around the centre [xa, xb) x [ya, yb).
void pinwheel(const Rect& r, Draw* draw, std::vector<Rect>* out) {
  int64_t xa = 0, xb = 0, ya = 0, yb = 0;
  draw->two_inside(r.x0, r.x1, &xa, &xb);
  draw->two_inside(r.y0, r.y1, &ya, &yb);
  out->push_back({r.x0, xb, r.y0, ya});  // bottom arm
  out->push_back({xb, r.x1, r.y0, yb});  // right arm
  out->push_back({xa, r.x1, yb, r.y1});  // top arm
  out->push_back({r.x0, xa, ya, r.y1});  // left arm
  out->push_back({xa, xb, ya, yb});      // centre
}

// The first straight cut across the rectangle [lo, hi) of `rects` along one
// axis (time when `time`), or -1: a position c with every rectangle wholly on
// one side. Sweeps the rectangles by their start.
int64_t straight_cut(const std::vector<Rect>& rects, bool time) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  spans.reserve(rects.size());
  for (const Rect& r : rects) spans.emplace_back(time ? r.x0 : r.y0, time ? r.x1 : r.y1);
  std::sort(spans.begin(), spans.end());
  int64_t reach = spans.front().second;
  for (size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first >= reach) return spans[i].first;
    reach = std::max(reach, spans[i].second);
  }
  return -1;
}

// Recursively applies straight cuts; adds the sizes of the blocks that have
// none (and more than one rectangle) to *free_count.
void count_guillotine_free(std::vector<Rect> rects, int32_t* free_count) {
  while (rects.size() > 1) {
    bool time = true;
    int64_t cut = straight_cut(rects, true);
    if (cut < 0) {
      time = false;
      cut = straight_cut(rects, false);
    }
    if (cut < 0) {
      *free_count += static_cast<int32_t>(rects.size());
      return;
    }
    std::vector<Rect> low, high;
    for (const Rect& r : rects) ((time ? r.x1 : r.y1) <= cut ? low : high).push_back(r);
    // Recurse into the smaller side, loop on the larger (bounded stack).
    if (low.size() < high.size()) std::swap(low, high);
    count_guillotine_free(std::move(high), free_count);
    rects = std::move(low);
  }
}

std::vector<Rect> rects_of(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets) {
  std::vector<Rect> rects;
  for (size_t i = 0; i < buffers.size() && i < offsets.size(); ++i) {
    if (buffers[i].size == 0) continue;
    rects.push_back({buffers[i].lower, buffers[i].upper, offsets[i], offsets[i] + buffers[i].size});
  }
  return rects;
}

}  // namespace

namespace {

std::vector<Rect> partition(int32_t count, int64_t span, int64_t height, const PerfectPackingShape& shape,
                            Draw* draw_ptr) {
  Draw& draw = *draw_ptr;
  std::vector<Rect> rects;
  if (shape.pinwheel_one_in > 0) {
    pinwheel({0, span, 0, height}, &draw, &rects);
  } else {
    rects.push_back({0, span, 0, height});
  }
  while (static_cast<int32_t>(rects.size()) < count) {
    // A rectangle by area (time and space normalised to the whole), found by
    // a linear scan: O(count^2) in all, trivial at the sizes used.
    double total = 0;
    std::vector<double> weight(rects.size());
    for (size_t i = 0; i < rects.size(); ++i) {
      const Rect& r = rects[i];
      const bool splittable = r.width() >= 2 || r.depth() >= 2;
      double area = static_cast<double>(r.width()) / static_cast<double>(span) *
                    (static_cast<double>(r.depth()) / static_cast<double>(height));
      if (shape.area_exponent != 1.0) area = std::pow(area, shape.area_exponent);
      weight[i] = splittable ? area : 0.0;
      total += weight[i];
    }
    if (total <= 0) break;  // every rectangle is one step by one unit
    double pick = draw.unit() * total;
    size_t chosen = 0;
    while (chosen + 1 < rects.size() && (pick >= weight[chosen] || weight[chosen] == 0)) pick -= weight[chosen++];
    const Rect r = rects[chosen];
    rects.erase(rects.begin() + static_cast<std::ptrdiff_t>(chosen));
    const bool room_for_pinwheel = count - static_cast<int32_t>(rects.size()) >= 5;
    if (shape.pinwheel_one_in > 0 && room_for_pinwheel && r.width() >= 3 && r.depth() >= 3 &&
        draw.below(shape.pinwheel_one_in) == 0) {
      pinwheel(r, &draw, &rects);
      continue;
    }
    // A straight cut across the relatively longer side (as a share of the
    // whole, time weighted by time_bias), so that with no bias pieces stay
    // roughly square in normalised units.
    const double wide = shape.time_bias * static_cast<double>(r.width()) / static_cast<double>(span);
    const double deep = static_cast<double>(r.depth()) / static_cast<double>(height);
    const bool cut_time = r.depth() < 2 || (r.width() >= 2 && (shape.time_cut_share > 0
                                                                    ? draw.unit() < shape.time_cut_share
                                                                    : draw.unit() * (wide + deep) < wide));
    if (cut_time) {
      const int64_t c = draw.inside(r.x0, r.x1);
      rects.push_back({r.x0, c, r.y0, r.y1});
      rects.push_back({c, r.x1, r.y0, r.y1});
    } else {
      const int64_t c = draw.inside(r.y0, r.y1);
      rects.push_back({r.x0, r.x1, r.y0, c});
      rects.push_back({r.x0, r.x1, c, r.y1});
    }
  }
  return rects;
}

}  // namespace

PerfectPacking random_perfect_packing(int32_t count, uint64_t seed) {
  return random_perfect_packing(count, seed, PerfectPackingShape());
}

PerfectPacking random_perfect_packing(int32_t count, uint64_t seed, const PerfectPackingShape& shape) {
  PerfectPacking result;
  count = std::max<int32_t>(5, count);
  result.height = int64_t{1} << 20;
  result.span = std::max<int64_t>(1, shape.steps_per_buffer) * static_cast<int64_t>(count);
  const int64_t unit = std::max<int64_t>(1, std::min<int64_t>(shape.alignment, result.height));
  const double density = std::min(1.0, std::max(0.05, shape.density));
  const int32_t drawn = density < 1.0 ? static_cast<int32_t>(std::ceil(count / density)) : count;
  Draw draw(seed);
  // Space is cut in units of `unit` bytes, scaled up at the end.
  const int64_t units = result.height / unit;
  // Refining the root pinwheel's arms can, rarely, line cuts up into a
  // straight line across the whole rectangle; such a partition is drawn again
  // (from the same stream, so the result stays a function of the seed). A
  // guillotine partition has such lines by design.
  std::vector<Rect> rects = partition(drawn, result.span, units, shape, &draw);
  while (shape.pinwheel_one_in > 0 && (straight_cut(rects, true) >= 0 || straight_cut(rects, false) >= 0)) {
    rects = partition(drawn, result.span, units, shape, &draw);
  }
  if (density < 1.0) {
    // Keep every rectangle alive at one step (so that step stays full) and
    // each other one with probability `density`.
    const int64_t full = draw.below(result.span);
    std::vector<Rect> kept;
    for (const Rect& r : rects) {
      if ((r.x0 <= full && full < r.x1) || draw.unit() < density) kept.push_back(r);
    }
    rects = std::move(kept);
  }
  // Shuffle (Fisher-Yates on raw draws) so the input order carries no hint.
  for (size_t i = rects.size(); i > 1; --i) std::swap(rects[i - 1], rects[static_cast<size_t>(draw.below(static_cast<int64_t>(i)))]);
  int32_t alignment_powers = 0;  // powers of two 1, 2, ..., unit: log2(unit) + 1 of them
  while ((int64_t{1} << alignment_powers) < unit) ++alignment_powers;
  for (const Rect& r : rects) {
    PlaceBuffer b;
    b.lower = r.x0;
    b.upper = r.x1;
    b.size = r.depth() * unit;
    if (unit > 1) b.alignment = unit >> draw.below(alignment_powers + 1);
    result.buffers.push_back(b);
    result.offsets.push_back(r.y0 * unit);
  }
  return result;
}

const std::vector<const char*>& perfect_packing_family_names() {
  static const std::vector<const char*> names = {"mixed",  "time-cuts", "space-cuts", "guillotine",      "pinwheels",
                                                 "sparse", "skewed",    "aligned",    "time-cuts-skewed"};
  return names;
}

bool perfect_packing_family(const char* name, PerfectPackingShape* shape) {
  const std::string family = name;
  PerfectPackingShape s;
  if (family == "mixed") {
    // The defaults: cuts across the longer side, a quarter of them pinwheels.
  } else if (family == "time-cuts") {
    // Six time cuts to one space cut: short lifetimes of tall buffers.
    s.time_cut_share = 0.85;
  } else if (family == "space-cuts") {
    // Six space cuts to one time cut: long lifetimes of thin buffers.
    s.time_cut_share = 0.15;
  } else if (family == "guillotine") {
    // Straight cuts only.
    s.pinwheel_one_in = 0;
  } else if (family == "pinwheels") {
    // Half the cuts are pinwheels.
    s.pinwheel_one_in = 2;
  } else if (family == "sparse") {
    // A fifth of the rectangles removed outside one full step: free space.
    s.density = 0.8;
  } else if (family == "skewed") {
    // The rectangle to cut drawn uniformly, not by area: a few large
    // buffers stay among many small ones.
    s.area_exponent = 0;
  } else if (family == "aligned") {
    // Space cut at multiples of 4 KiB, alignments from 1 byte to 4 KiB.
    s.alignment = 4096;
  } else if (family == "time-cuts-skewed") {
    // Both of the above: many short lifetimes, sizes from slivers to most of
    // the height.
    s.time_cut_share = 0.85;
    s.area_exponent = 0;
  } else {
    return false;
  }
  *shape = s;
  return true;
}

int32_t guillotine_free_buffers(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets) {
  int32_t free_count = 0;
  std::vector<Rect> rects = rects_of(buffers, offsets);
  if (!rects.empty()) count_guillotine_free(std::move(rects), &free_count);
  return free_count;
}

bool has_straight_cut(const std::vector<PlaceBuffer>& buffers, const std::vector<int64_t>& offsets) {
  const std::vector<Rect> rects = rects_of(buffers, offsets);
  if (rects.size() < 2) return false;
  return straight_cut(rects, true) >= 0 || straight_cut(rects, false) >= 0;
}

}  // namespace tp
