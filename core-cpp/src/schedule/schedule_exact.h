// Exact search for one segment of an order: the ops between two
// forced cuts (schedule_cuts.h), with the ops before the segment run and the
// ops after it not yet run. Best-first over down-sets of the segment with
// memoisation (one entry per set: the bytes alive after a set depend only on
// the set, so only the lowest peak reaching it matters), pruned by the
// incumbent (the segment's peak in the order given) and by lower bounds on
// every completion of a set: the largest per-op bound of the ops it has yet
// to run, raised by the storages the set leaves alive (one alive after the
// set stays alive through the step of each op it must outlive), and the
// least such bound over the users of a storage not yet born that may run
// first (it is born at that user's step, the others run later). A set whose
// ready op frees at least what it brings to life, at a step within the set's
// bound, gets that op as its only child (some optimal order runs it next);
// so does a set from which a valley run starts: up to 8 ops that climb no
// higher than the set's bound and leave fewer bytes alive than any part of
// them an order could run first (ExactStats::valley_runs counts those sets).
// Where the segment has interchangeable branches (segment_symmetry.h), the
// sets that differ only in which branch got how far are memoised once.
// Segments of up to kExactSegmentMaxOps ops.
#ifndef TENSORPLAN_SCHEDULE_EXACT_H
#define TENSORPLAN_SCHEDULE_EXACT_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"
#include "schedule/deadline.h"
#include "schedule/schedule_search.h"

namespace tp {

constexpr int32_t kExactSegmentMaxOps = 2048;
// The largest segment prove_by_segments searches under a work limit.
constexpr int32_t kWorkBoundedSegmentMaxOps = 1024;

// Bytes alive at each step of `order`: those alive before it, plus what the
// op brings to life, plus its workspace (PLANNING.md §2); the peak is their max.
std::vector<int64_t> step_bytes(const PlanningGraph& pg, const std::vector<int32_t>& order);

// Per op, bytes alive at its step in every order: forced_live_bound at that
// op alone (it includes everything the op touches and its workspace).
// O(V * (V + E + storages + touches)).
std::vector<int64_t> forced_live_per_op(const PlanningGraph& pg);

// Per op, the bound of schedule_lower_bound at that op alone.
std::vector<int64_t> touched_bytes_per_op(const PlanningGraph& pg);

// Searches the orders of order[begin, end), which must lie between two forced
// cuts of `*order` (forced_cuts), for the lowest segment peak (largest
// step_bytes inside the segment). `op_bound[v]` must be a lower bound on the
// bytes alive at op v's step in every order. Rewrites the slice only when it
// finds a strictly lower peak, and returns the segment's peak afterwards.
// `*proved`: that peak is the segment's optimum (the search finished before
// the deadline and within `max_states` memoised sets, or a bound met it).
// Segments of more than kExactSegmentMaxOps ops are returned as they are.
// Each set popped from the queue costs 1 + (ops left) / 4 work units of
// `deadline` (a child costs a few hundred ns).
int64_t exact_segment(const PlanningGraph& pg, std::vector<int32_t>* order, int32_t begin, int32_t end,
                      const std::vector<int64_t>& op_bound, Deadline deadline, int64_t max_states, bool* proved,
                      ExactStats* stats);

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_EXACT_H
