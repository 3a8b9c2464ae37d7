#include "schedule/compact_order.h"

#include <algorithm>
#include <random>

#include "schedule/schedule_exact.h"

namespace tp {

namespace {

struct Profile {
  int64_t peak = 0;
  double area = 0;  // a sum over up to millions of steps of byte counts: kept as a double, never wrapping
};

Profile profile_of(const PlanningGraph& pg, const std::vector<int32_t>& order) {
  Profile p;
  for (const int64_t bytes : step_bytes(pg, order)) {
    p.peak = std::max(p.peak, bytes);
    p.area += static_cast<double>(bytes);
  }
  return p;
}

}  // namespace

void compact_order(const PlanningGraph& pg, std::vector<int32_t>* order, int64_t moves, uint64_t seed,
                   CompactStats* stats) {
  const int32_t n = pg.op_count();
  Profile current = profile_of(pg, *order);
  stats->peak = current.peak;
  stats->area_before = current.area;
  stats->area_after = current.area;
  if (n < 2) return;
  const int64_t cost = n + static_cast<int64_t>(pg.touches.size());
  const int64_t work_limit = moves > kCompactMaxWork / cost ? kCompactMaxWork : moves * cost;
  std::vector<int32_t> position(n);
  for (int32_t i = 0; i < n; ++i) position[(*order)[i]] = i;
  std::mt19937_64 rng(seed);
  int64_t work = 0;
  while (work < work_limit && stats->moves_tried < moves) {
    const int32_t from = static_cast<int32_t>(rng() % static_cast<uint64_t>(n));
    const int32_t op = (*order)[from];
    // Where the op may go: after its last predecessor, before its first successor.
    int32_t lo = 0, hi = n - 1;
    for (int32_t k = pg.pred_offsets[op]; k < pg.pred_offsets[op + 1]; ++k) lo = std::max(lo, position[pg.preds[k]] + 1);
    for (int32_t k = pg.succ_offsets[op]; k < pg.succ_offsets[op + 1]; ++k) hi = std::min(hi, position[pg.succs[k]] - 1);
    work += 1 + (pg.pred_offsets[op + 1] - pg.pred_offsets[op]) + (pg.succ_offsets[op + 1] - pg.succ_offsets[op]);
    if (hi <= lo) continue;
    const int32_t to = lo + static_cast<int32_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
    if (to == from || work + cost > work_limit) continue;
    work += cost;
    auto move = [&](int32_t a, int32_t b) {  // the op at step a goes to step b
      if (a < b) std::rotate(order->begin() + a, order->begin() + a + 1, order->begin() + b + 1);
      else std::rotate(order->begin() + b, order->begin() + a, order->begin() + a + 1);
      for (int32_t i = std::min(a, b); i <= std::max(a, b); ++i) position[(*order)[i]] = i;
    };
    move(from, to);
    ++stats->moves_tried;
    const Profile moved = profile_of(pg, *order);
    if (moved.peak <= stats->peak && moved.area <= current.area) {
      current = moved;
      ++stats->moves_kept;
    } else {
      move(to, from);
    }
  }
  stats->area_after = current.area;
}

}  // namespace tp
