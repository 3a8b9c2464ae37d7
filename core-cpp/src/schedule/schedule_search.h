// tensorplan's own scheduler pieces (PLANNING.md §3): a lower bound on the
// peak of any schedule, a local search that improves a given order with
// moves evaluated incrementally, and an exact best-first search over
// down-sets (the sets of already-run ops) that proves the optimum on small
// graphs. All three honour a deadline and return the best order found so far.
#ifndef TENSORPLAN_SCHEDULE_SEARCH_H
#define TENSORPLAN_SCHEDULE_SEARCH_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"
#include "schedule/deadline.h"

namespace tp {

// No schedule can have a lower peak: every op needs all storages it touches
// plus its workspace at once, on top of the storages that are alive at every
// step (graph inputs that are also graph outputs).
int64_t schedule_lower_bound(const PlanningGraph& pg);

// A stronger bound from ordering facts, evaluated at the given ops: at op v's
// step, a storage is alive in every schedule if it exists before v (a graph
// input, or some user is an ancestor of v or v itself) and is still needed
// after v (a graph output, or some user is a descendant of v or v itself).
// A storage that is one of the two but not both, with a user w unordered
// with v (neither its ancestor nor its descendant; the last such user in its
// list), is alive at v's step when w runs on one side of v: it exists before
// v and w needs it (w after v), or w brings it to life and an op at or after
// v needs it (w before v). Per such w, the lesser of those two sums is added.
// Costs O(V + E + touches) per op in `at_ops`.
int64_t forced_live_bound(const PlanningGraph& pg, const std::vector<int32_t>& at_ops);

// forced_live_bound at one op per call, its O(V) scratch kept between calls.
class ForcedLiveBound {
 public:
  explicit ForcedLiveBound(const PlanningGraph& pg);
  int64_t at(int32_t v);

 private:
  const PlanningGraph& pg_;
  std::vector<uint8_t> mark_;  // bit 1: ancestor-or-self, bit 2: descendant-or-self
  std::vector<int32_t> stack_;
  // Per op unordered with v: bytes alive at v's step if it runs before v,
  // and if it runs after; choosers_ lists the ops with an entry.
  std::vector<int64_t> if_before_, if_after_;
  std::vector<int32_t> choosers_;
};

// Move-based improvement around the peak step: single ops moved earlier or
// later within their dependency window, and compound moves (the last user of
// a storage alive at the peak hoisted before it with its ancestors; a
// producer sunk after it with its descendants). A move is accepted when it
// lowers (peak, steps at the peak); the live profile of a moved order is
// recomputed only inside the window the move reorders. Stops at a local
// optimum (after random kicks stop helping) or at the deadline; never returns
// a worse order. `seed` drives the kicks.
struct ImproveStats {
  int64_t moves_tried = 0;
  int64_t moves_accepted = 0;
};
int64_t improve_schedule(const PlanningGraph& pg, std::vector<int32_t>* order, Deadline deadline,
                         uint64_t seed, ImproveStats* stats);

// Exact search for graphs of at most kExactMaxOps ops: best-first over
// down-sets with memoisation, pruned by `incumbent_peak` (the peak of
// `*order` on entry) and by the lower bound. On return `*order` holds the best
// order found; `*proved` says whether it is proved optimal (the search ran to
// completion before the deadline and within `max_states`).
constexpr int32_t kExactMaxOps = 64;
struct ExactStats {
  int64_t states = 0;
  bool hit_state_limit = false;
  // exact_segment: no order of the segment has a lower peak (its optimum when
  // proved; else what the search ruled out before it stopped, or the per-op
  // bound of its ops).
  int64_t bound = 0;
  // Sets given a single child because a valley run starts there
  // (schedule_exact.h).
  int64_t valley_runs = 0;
};
int64_t exact_schedule(const PlanningGraph& pg, std::vector<int32_t>* order, Deadline deadline,
                       int64_t max_states, bool* proved, ExactStats* stats);

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_SEARCH_H
