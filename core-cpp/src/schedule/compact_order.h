// Compacting an order (joint schedule and placement): among orders
// with the same peak, look for one whose bytes alive summed over its steps
// (its memory-time area) is smaller. The peak says how much must fit at the
// busiest step; the area says how long buffers stay alive, and shorter lives
// leave a placement more room: on the bench's random layered graphs, the
// compacted copies of our order place into arenas 2-8% smaller at the same
// peak (docs/plans.md, "Joint schedule and placement").
#ifndef TENSORPLAN_SCHEDULE_COMPACT_ORDER_H
#define TENSORPLAN_SCHEDULE_COMPACT_ORDER_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"

namespace tp {

struct CompactStats {
  int64_t peak = 0;         // of the order given, and of the order returned
  double area_before = 0;  // sum of step_bytes over the order given
  double area_after = 0;   // the same over the order returned
  int64_t moves_tried = 0;
  int64_t moves_kept = 0;
};

// Work a compaction may spend at most, whatever the moves asked for: a move
// costs ops + touches units, so 3000 moves of a 10^4-op graph stay within it
// (about 0.5 s natively).
constexpr int64_t kCompactMaxWork = 100000000;

// Local search from `*order` (a topological order of every op): moves one op
// to a random step between its last predecessor and its first successor, and
// keeps the move when no step rises above the order's peak and the area does
// not grow. Tries at most `moves` moves, within a work budget of `moves`
// times the cost of one (ops + touches units: it re-simulates the order),
// capped at kCompactMaxWork; each op drawn costs its degree + 1 units, so a
// graph with no room to move ends too. Deterministic for a given seed.
void compact_order(const PlanningGraph& pg, std::vector<int32_t>* order, int64_t moves, uint64_t seed,
                   CompactStats* stats);

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_COMPACT_ORDER_H
