// tensorplan's XLA baselines against openxla/xla's own memory schedulers:
// commit 62046af07625, xla/hlo/transforms/simplifiers/hlo_memory_scheduler.cc
// (ListScheduler::CreateSchedule, DFSMemoryScheduler::Run,
// PostOrderScheduler::Run) and commit b75ac6f3c2c0, xla/hlo/ir/
// hlo_computation.cc (MakeInstructionPostOrder). No XLA build exists here, so
// every expected order below was derived by hand by following that source on
// the graph's HLO view (docs/scheduling.md, "XLA's baselines": a parameter per
// graph input, a ROOT tuple over the graph outputs); each comment shows the
// derivation and what the rule tensorplan had before gave instead.
#include <gtest/gtest.h>

#include "planning_graph_for_tests.h"

#include "graph/graph.h"
#include "schedule/schedule_baselines.h"

namespace {

using tp::Graph;

TEST(ScheduleXla, ListBreaksPriorityTiesToTheNewestReadyInstruction) {
  // Parameter x (read by P and Q), P: x -> p, Q: x -> q, both outputs.
  // Ready: x (0, 2 users). Scheduling x inserts P then Q, both (0 - 1024, 1
  // user: ROOT). The multimap's last element among equal keys is the newest,
  // Q. (Lowest index first, as before, gave P, Q.)
  Graph g;
  const int32_t x = tp::add_tensor(&g, "x", 256);
  const int32_t p = tp::add_tensor(&g, "p", 1024), q = tp::add_tensor(&g, "q", 1024);
  tp::add_op(&g, "P", {x}, {p});
  tp::add_op(&g, "Q", {x}, {q});
  g.inputs = {x};
  g.outputs = {p, q};
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_xla_list(pg), (std::vector<int32_t>{1, 0}));
}

TEST(ScheduleXla, ListRunsTheCounterexampleInItsOwnComment) {
  // hlo_memory_scheduler.cc's comment graph (unit 256 B): A -> a (1) read by
  // B, D, E; B -> b (2) -> C -> c (1) -> G; D -> d (1), E -> e (1) -> F -> f
  // (2) -> G. A first (only ready). B (-2, 1), D (-1, 1), E (-1, 1): E is the
  // newest of the tied pair. After E, a has 2 uses left. D next; a drops to
  // 1 use, so B's priority becomes (1 - 2, 1) and it is re-inserted; F is
  // ready with (1 + 1 - 2 = 0, 1) and wins; then B, C, G.
  // (Lowest index on ties, as before: A D E F B C G, the comment's sequence.)
  Graph g;
  const int32_t a = tp::add_tensor(&g, "a", 256), b = tp::add_tensor(&g, "b", 512), c = tp::add_tensor(&g, "c", 256);
  const int32_t d = tp::add_tensor(&g, "d", 256), e = tp::add_tensor(&g, "e", 256), f = tp::add_tensor(&g, "f", 512);
  const int32_t o = tp::add_tensor(&g, "o", 256);
  tp::add_op(&g, "A", {}, {a});
  tp::add_op(&g, "B", {a}, {b});
  tp::add_op(&g, "C", {b}, {c});
  tp::add_op(&g, "D", {a}, {d});
  tp::add_op(&g, "E", {a}, {e});
  tp::add_op(&g, "F", {d, e}, {f});
  tp::add_op(&g, "G", {c, f}, {o});
  g.outputs = {o};
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_xla_list(pg), (std::vector<int32_t>{0, 4, 3, 5, 1, 2, 6}));
}

TEST(ScheduleXla, ListIgnoresTheBytesOfParameters) {
  // Parameter x (4096 B) read only by P: x -> p (1024); Q -> q (512); both
  // outputs. x's value is a kParameter's: never counted as freed. Ready at the
  // start: x (0, 1) and Q (-512, 1); x first, then P is ready at (-1024, 1)
  // and Q (-512) wins. (Counting x as freed, as before, put P at +3072 first.)
  Graph g;
  const int32_t x = tp::add_tensor(&g, "x", 4096);
  const int32_t p = tp::add_tensor(&g, "p", 1024), q = tp::add_tensor(&g, "q", 512);
  tp::add_op(&g, "P", {x}, {p});
  tp::add_op(&g, "Q", {}, {q});
  g.inputs = {x};
  g.outputs = {p, q};
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_xla_list(pg), (std::vector<int32_t>{1, 0}));
}

TEST(ScheduleXla, DfsBreaksTiesByName) {
  // "zeta" (0) and "alpha" (1) each make one 256-byte output; both have one
  // user (ROOT): extra_users 0, total_sizes 256. The tie goes to the smaller
  // name, alpha. (By index, as before: zeta first.)
  Graph g;
  const int32_t p = tp::add_tensor(&g, "p", 256), q = tp::add_tensor(&g, "q", 256);
  tp::add_op(&g, "zeta", {}, {p});
  tp::add_op(&g, "alpha", {}, {q});
  g.outputs = {p, q};
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_xla_dfs(pg), (std::vector<int32_t>{1, 0}));
  // MakeInstructionPostOrder visits ROOT's operands in order.
  EXPECT_EQ(tp::schedule_xla_post_order(pg), (std::vector<int32_t>{0, 1}));
}

TEST(ScheduleXla, DfsVisitsUnreachableRootsBeforeRoot) {
  // A -> a (a graph output), D -> d (nobody reads it, not an output): D is an
  // unreachable root, visited before ROOT. (Before, both were sinks with equal
  // stats and A came first by index.)
  Graph g;
  const int32_t a = tp::add_tensor(&g, "a", 256), d = tp::add_tensor(&g, "d", 256);
  tp::add_op(&g, "A", {}, {a});
  tp::add_op(&g, "D", {}, {d});
  g.outputs = {a};
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_xla_dfs(pg), (std::vector<int32_t>{1, 0}));
}

TEST(ScheduleXla, DfsVisitsMoreExtraUsersBeforeLargerSizes) {
  // S -> s (256) read by L and R; L -> l (256), R -> r (2048); J reads l, r ->
  // j (256, output); K -> k (4096, output). Stats in post order S, L, R, J, K:
  // extra_users S 1, L 1, R 1, J 2, K 0; total_sizes S 256, L 512, R 2304,
  // J min(3072, 2816 defined so far) = 2816, K 4096. ROOT visits J (2 extra
  // users) before K although K is larger; under J, R (2304) before L (512).
  Graph g;
  const int32_t s = tp::add_tensor(&g, "s", 256), l = tp::add_tensor(&g, "l", 256), r = tp::add_tensor(&g, "r", 2048);
  const int32_t j = tp::add_tensor(&g, "j", 256), k = tp::add_tensor(&g, "k", 4096);
  tp::add_op(&g, "S", {}, {s});
  tp::add_op(&g, "L", {s}, {l});
  tp::add_op(&g, "R", {s}, {r});
  tp::add_op(&g, "J", {l, r}, {j});
  tp::add_op(&g, "K", {}, {k});
  g.outputs = {j, k};
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_xla_dfs(pg), (std::vector<int32_t>{0, 2, 1, 3, 4}));
}

TEST(ScheduleXla, PostOrderVisitsControlPredecessorsLastToFirst) {
  // R (0) must run after P (1) and Q (2) (control edges, in that order); the
  // outputs are r, p, q, so ROOT's operands are R, P, Q. The DFS stack gets
  // R's operands (none), then its control predecessors P, Q: Q is on top and
  // is emitted first, then P, then R. (Before: from the sink R, preds in
  // index order: P, Q, R.)
  Graph g;
  const int32_t r = tp::add_tensor(&g, "r", 256), p = tp::add_tensor(&g, "p", 256), q = tp::add_tensor(&g, "q", 256);
  tp::add_op(&g, "R", {}, {r});
  tp::add_op(&g, "P", {}, {p});
  tp::add_op(&g, "Q", {}, {q});
  g.ops[0].control_deps = {1, 2};
  g.outputs = {r, p, q};
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_xla_post_order(pg), (std::vector<int32_t>{2, 1, 0}));
}

}  // namespace
