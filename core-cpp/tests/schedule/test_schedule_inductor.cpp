// tensorplan's Inductor baselines against torch 2.14.1 torch/_inductor/memory.py
// (topological_sort_lpmf, topological_sort_bfs, topological_sort_dfs,
// reorder_for_peak_memory). Every expected order below was derived by hand by
// following that source on the graph; the comment shows the derivation and
// what the rule tensorplan had before would give instead.
// scripts/inductor-crosscheck.py runs the real functions on larger graphs.
#include <gtest/gtest.h>

#include "planning_graph_for_tests.h"

#include "graph/graph.h"
#include "liveness/liveness.h"
#include "schedule/schedule.h"
#include "schedule/schedule_baselines.h"

namespace {

using tp::Graph;

// Inputs x (2048 B, read only by B) and y (256 B, read only by A);
// A: y -> a (512), B: x -> b (1024), C: a, b -> o (8192, the graph output).
Graph lpmf_start_graph() {
  Graph g;
  const int32_t x = tp::add_tensor(&g, "x", 2048), y = tp::add_tensor(&g, "y", 256);
  const int32_t a = tp::add_tensor(&g, "a", 512), b = tp::add_tensor(&g, "b", 1024), o = tp::add_tensor(&g, "o", 8192);
  tp::add_op(&g, "A", {y}, {a});
  tp::add_op(&g, "B", {x}, {b});
  tp::add_op(&g, "C", {a, b}, {o});
  g.inputs = {x, y};
  g.outputs = {o};
  return g;
}

TEST(ScheduleInductor, LpmfRunningMaximumStartsAtTheGraphOutputBytes) {
  // live = 2048 + 256 = 2304; max_memory = max(2304, output bytes 8192) =
  // 8192, so memory_gap = 5888 and both A (size 512) and B (size 1024) fit
  // under it: keys (0, size - memory_to_free): A (0, 512 - 256 = 256),
  // B (0, 1024 - 2048 = -1024): B first, then A, then C.
  // (Starting the maximum at the live 2304 gives gap 0, keys (512, ...) and
  // (1024, ...), and A first.)
  tp::PlanningGraph pg = planning(lpmf_start_graph());
  EXPECT_EQ(tp::schedule_inductor_lpmf(pg), (std::vector<int32_t>{1, 0, 2}));
}

TEST(ScheduleInductor, LpmfBreaksTiesByIndex) {
  // Two identical independent chains: every key ties but the index.
  Graph g;
  const int32_t x = tp::add_tensor(&g, "x", 256);
  const int32_t p = tp::add_tensor(&g, "p", 1024), q = tp::add_tensor(&g, "q", 1024);
  tp::add_op(&g, "P", {x}, {p});
  tp::add_op(&g, "Q", {x}, {q});
  g.inputs = {x};
  g.outputs = {p, q};
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_inductor_lpmf(pg), (std::vector<int32_t>{0, 1}));
}

// Sources A, B, C (indices 0-2); D (3) reads A's and C's outputs, E (4)
// reads B's, F (5) reads A's.
Graph bfs_graph() {
  Graph g;
  std::vector<int32_t> t;
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) t.push_back(tp::add_tensor(&g, name, 256));
  const int32_t x = tp::add_tensor(&g, "x", 256);
  tp::add_op(&g, "A", {x}, {t[0]});
  tp::add_op(&g, "B", {x}, {t[1]});
  tp::add_op(&g, "C", {x}, {t[2]});
  tp::add_op(&g, "D", {t[0], t[2]}, {t[3]});
  tp::add_op(&g, "E", {t[1]}, {t[4]});
  tp::add_op(&g, "F", {t[0]}, {t[5]});
  g.inputs = {x};
  g.outputs = {t[3], t[4], t[5]};
  return g;
}

TEST(ScheduleInductor, BfsComparesSortedPredecessorStepsLexicographically) {
  // Priorities: A, B, C [] (steps 0, 1, 2 by index); then F [0] < D [0, 2]
  // (a prefix first) < E [1] (the earliest first predecessor wins).
  // (The step of the last predecessor, F 0 < E 1 < D 2, runs E before D.)
  tp::PlanningGraph pg = planning(bfs_graph());
  EXPECT_EQ(tp::schedule_inductor_bfs(pg), (std::vector<int32_t>{0, 1, 2, 5, 3, 4}));
}

TEST(ScheduleInductor, BfsTiesGoToTheLowerIndex) {
  // A, then B and C, both reading only A's output: equal priorities [0].
  Graph g;
  const int32_t x = tp::add_tensor(&g, "x", 256);
  const int32_t a = tp::add_tensor(&g, "a", 256), b = tp::add_tensor(&g, "b", 256), c = tp::add_tensor(&g, "c", 256);
  tp::add_op(&g, "A", {x}, {a});
  tp::add_op(&g, "B", {a}, {b});
  tp::add_op(&g, "C", {a}, {c});
  g.inputs = {x};
  g.outputs = {b, c};
  tp::PlanningGraph pg = planning(g);
  // B and C both [0]: B (index 1) first.
  EXPECT_EQ(tp::schedule_inductor_bfs(pg), (std::vector<int32_t>{0, 1, 2}));
}

// P1 (0): x, w -> a (512); P2 (1): x -> b (768); x 256 B; a and b are outputs.
Graph dfs_graph(bool weight_persistent, int64_t p1_workspace) {
  Graph g;
  const int32_t x = tp::add_tensor(&g, "x", 256), w = tp::add_tensor(&g, "w", 1 << 20);
  const int32_t a = tp::add_tensor(&g, "a", 512), b = tp::add_tensor(&g, "b", 768);
  tp::add_op(&g, "P1", {x, w}, {a}, p1_workspace);
  tp::add_op(&g, "P2", {x}, {b});
  g.inputs = {x};
  if (weight_persistent) {
    g.persistent = {w};
  } else {
    g.inputs.push_back(w);
  }
  g.outputs = {a, b};
  return g;
}

TEST(ScheduleInductor, DfsKeyLeavesOutPersistentWeights) {
  // size_with_reads = mpi_node.size + pred buffers' bytes; a persistent weight
  // is no freeable input (memory.py get_freeable_input_buf), so P1 = 512 +
  // 256 = 768 < P2 = 768 + 256 = 1024: P1 first. (Counting the weight made
  // P1 2^20 + 768 and put P2 first.)
  tp::PlanningGraph pg = planning(dfs_graph(true, 0));
  EXPECT_EQ(tp::schedule_inductor_dfs(pg), (std::vector<int32_t>{0, 1}));
  // A weight that is a graph input is freeable in tensorplan: it counts.
  tp::PlanningGraph freeable = planning(dfs_graph(false, 0));
  EXPECT_EQ(tp::schedule_inductor_dfs(freeable), (std::vector<int32_t>{1, 0}));
}

TEST(ScheduleInductor, DfsKeyCountsTheWorkspace) {
  // A workspace is a buffer the op makes (in mpi_node.size): P1 = 512 + 1024 +
  // 256 = 1792 > P2 = 1024, so P2 first. (Without it P1 came first.)
  tp::PlanningGraph pg = planning(dfs_graph(true, 1024));
  EXPECT_EQ(tp::schedule_inductor_dfs(pg), (std::vector<int32_t>{1, 0}));
}

TEST(ScheduleInductor, DfsKeyCountsAlignedBytes) {
  // P1 (0): z (200 B) -> a (512); P2 (1): x (100 B) -> b (512). Sizes are
  // what a storage occupies, rounded up to the 256-byte default alignment:
  // P1 = 512 + 256 = P2, a tie, so P1 (index 0) first. With the unaligned
  // input bytes P1 = 712 > P2 = 612 put P2 first.
  Graph g;
  const int32_t z = tp::add_tensor(&g, "z", 200), x = tp::add_tensor(&g, "x", 100);
  const int32_t a = tp::add_tensor(&g, "a", 512), b = tp::add_tensor(&g, "b", 512);
  tp::add_op(&g, "P1", {z}, {a});
  tp::add_op(&g, "P2", {x}, {b});
  g.inputs = {z, x};
  g.outputs = {a, b};
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_inductor_dfs(pg), (std::vector<int32_t>{0, 1}));
}

TEST(ScheduleInductor, BestOfIncludesTheGivenOrderAndKeepsItOnTies) {
  // reorder_for_peak_memory starts its candidate list with the given order
  // ("baseline") and takes min() by peak, so the first of equal peaks wins.
  // On a chain every method gives the one order: `given` is chosen.
  Graph g;
  const int32_t x = tp::add_tensor(&g, "x", 256);
  const int32_t a = tp::add_tensor(&g, "a", 512), b = tp::add_tensor(&g, "b", 1024);
  tp::add_op(&g, "A", {x}, {a});
  tp::add_op(&g, "B", {a}, {b});
  g.inputs = {x};
  g.outputs = {b};
  tp::PlanningGraph pg = planning(g);
  tp::ScheduleOptions options;
  options.method = tp::kScheduleInductorBest;
  tp::ScheduleResult result;
  ASSERT_TRUE(tp::schedule_graph(pg, options, &result).is_ok());
  EXPECT_EQ(result.chosen_baseline, tp::kScheduleGiven);
  for (int32_t m = tp::kScheduleGiven; m <= tp::kScheduleInductorDfs; ++m) EXPECT_EQ(result.baseline_peaks[m], result.peak);
  // Where LPMF beats the given order (two_chains-like), the best is LPMF's.
  tp::PlanningGraph start = planning(lpmf_start_graph());
  ASSERT_TRUE(tp::schedule_graph(start, options, &result).is_ok());
  EXPECT_EQ(result.peak, std::min({result.baseline_peaks[0], result.baseline_peaks[1], result.baseline_peaks[2],
                                   result.baseline_peaks[3]}));
  EXPECT_NE(result.baseline_peaks[tp::kScheduleGiven], -1);
}

}  // namespace
