// Forced cuts of a DAG: the steps where the set of ops already
// run is the same in every topological order, so that the order can be
// chosen piece by piece and the peak is the largest of the pieces' peaks.
//
// Why this preserves the optimum. Let P be the first k ops of an order and
// Q the rest. The cut is forced when every op of P is an ancestor of every op
// of Q; then every topological order runs exactly P in its first k steps,
// and any topological order of P followed by any topological order of Q is a
// topological order of the graph (no edge enters P from Q, as P is a down-set
// in one order). The value of a step (PLANNING.md §2: bytes alive before it,
// plus what it brings to life, plus its workspace) depends only on the set D
// of ops run before it and on the op itself: a storage is alive before the
// step when it is a graph input or some user is in D, and it has died when
// it is no graph output and all its users are in D (graph inputs nobody
// reads die after step 0, which depends on D = {} only). Steps inside P have
// D a subset of P; steps inside Q have D = P plus a subset of Q. So
//   peak(order_P + order_Q) = max(f_P(order_P), f_Q(order_Q))
// where f_P depends on order_P alone and f_Q on order_Q alone, and the
// choices are independent: the optimum over all orders is the max of the
// two parts' optima. By induction this holds for any set of forced cuts:
// each segment between consecutive cuts is solved with the ops before it run
// and the ops after it not yet run, and the whole is proved optimal when
// every segment whose peak is the maximum is proved optimal (a proved
// segment's optimum is a lower bound of the whole).
//
// Articulation ops (an op comparable with every other op, which therefore
// runs at the same step in every order) are the special case of a cut on
// each side of the op.
#ifndef TENSORPLAN_SCHEDULE_CUTS_H
#define TENSORPLAN_SCHEDULE_CUTS_H

#include <cstdint>
#include <vector>

#include "graph/planning_graph.h"

namespace tp {

// The forced cut positions of `order` (a topological order), ascending, from
// 0 to op_count(): k is listed when order[0..k) is run first in every
// topological order. A cut is found when every sink of the prefix (an op of
// it with no successor in it) has a direct edge to every source of the rest
// (an op of it with no predecessor in it), which is equivalent to the
// definition: a path from a prefix op to a suffix op leaves the prefix at a
// sink's edge and enters the rest at a source. Cuts with more than
// `max_pairs` sink-source pairs are not checked (and so not reported, which
// only makes the segments coarser). O(V + E) plus the edges of the sinks at
// each checked position.
std::vector<int32_t> forced_cuts(const PlanningGraph& pg, const std::vector<int32_t>& order, int64_t max_pairs = 4096);

}  // namespace tp

#endif  // TENSORPLAN_SCHEDULE_CUTS_H
