// PLANNING.md §2: liveness, the step rule, alignment, aliases and attribution.
#include <gtest/gtest.h>

#include "planning_graph_for_tests.h"

#include <numeric>
#include <random>

#include "graph/planning_graph.h"
#include "liveness/liveness.h"

namespace {

using tp::Graph;

tp::Liveness liveness(const tp::PlanningGraph& pg, const std::vector<int32_t>& order) {
  tp::Liveness live;
  tp::Status status = tp::compute_liveness(pg, order, &live);
  EXPECT_TRUE(status.is_ok()) << status.message();
  return live;
}

TEST(Liveness, EmptyGraphHasZeroPeak) {
  tp::PlanningGraph pg = planning(Graph());
  tp::Liveness live = liveness(pg, {});
  EXPECT_EQ(live.peak, 0);
  EXPECT_EQ(live.peak_step, -1);
  EXPECT_EQ(tp::schedule_peak(pg, {}), 0);
}

TEST(Liveness, ChainStepRuleAndAttribution) {
  // x(1024) -a-> y(2048) -b-> z(512); a has 1000 bytes of workspace (-> 1024).
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 1024);
  int32_t y = tp::add_tensor(&g, "y", 2048);
  int32_t z = tp::add_tensor(&g, "z", 512);
  int32_t a = tp::add_op(&g, "a", {x}, {y}, 1000);
  int32_t b = tp::add_op(&g, "b", {y}, {z});
  g.inputs = {x};
  g.outputs = {z};
  tp::PlanningGraph pg = planning(g);
  tp::Liveness live = liveness(pg, {a, b});
  ASSERT_EQ(live.live_bytes.size(), 2u);
  EXPECT_EQ(live.live_bytes[0], 1024 + 2048 + 1024);  // x, y just born, workspace
  EXPECT_EQ(live.live_bytes[1], 2048 + 512);          // x died after step 0
  EXPECT_EQ(live.peak, 4096);
  EXPECT_EQ(live.peak_step, 0);
  EXPECT_EQ(live.peak_workspace, 1024);
  ASSERT_EQ(live.peak_live.size(), 2u);
  EXPECT_EQ(live.peak_live[0].storage, pg.storage.tensor_storage[y]);
  EXPECT_EQ(live.peak_live[0].producer_op, a);
  EXPECT_EQ(live.peak_live[0].last_op, b);
  EXPECT_EQ(live.peak_live[1].producer_op, -1);  // graph input
  EXPECT_EQ(live.birth[pg.storage.tensor_storage[x]], 0);
  EXPECT_EQ(live.death[pg.storage.tensor_storage[x]], 0);
  EXPECT_EQ(live.death[pg.storage.tensor_storage[z]], 2);  // graph output: survives
  EXPECT_EQ(tp::schedule_peak(pg, {a, b}), live.peak);
}

TEST(Liveness, AlignmentRoundsEveryStorage) {
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 1);
  int32_t y = tp::add_tensor(&g, "y", 1, 64);
  tp::add_op(&g, "a", {x}, {y});
  g.inputs = {x};
  g.default_alignment = 512;
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(liveness(pg, {0}).peak, 512 + 64);
}

TEST(Liveness, UnreadOutputDiesAfterItsOwnStep) {
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 256);
  int32_t junk = tp::add_tensor(&g, "junk", 4096);
  int32_t y = tp::add_tensor(&g, "y", 256);
  tp::add_op(&g, "a", {x}, {junk});
  tp::add_op(&g, "b", {x}, {y});
  g.inputs = {x};
  g.outputs = {x, y};
  tp::PlanningGraph pg = planning(g);
  tp::Liveness live = liveness(pg, {0, 1});
  EXPECT_EQ(live.live_bytes[0], 256 + 4096);
  EXPECT_EQ(live.live_bytes[1], 256 + 256);
}

TEST(Liveness, ViewKeepsBaseAliveAndInPlaceCostsNothing) {
  // x -a-> big; view v = big[0:256]; big is dead as a name after "view" but
  // its storage lives until the last reader of v ("c").
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 256);
  int32_t big = tp::add_tensor(&g, "big", 8192);
  int32_t v = tp::add_tensor(&g, "v", 256);
  int32_t w = tp::add_tensor(&g, "w", 256);
  int32_t u = tp::add_tensor(&g, "u", 256);
  int32_t out = tp::add_tensor(&g, "out", 256);
  tp::add_op(&g, "a", {x}, {big});
  tp::add_op(&g, "view", {big}, {v});
  tp::add_op(&g, "b", {x}, {w});
  tp::add_op(&g, "relu_", {w}, {u});
  tp::add_op(&g, "c", {v, u}, {out});
  g.inputs = {x};
  g.outputs = {out};
  g.views.push_back({v, big, 0});
  g.in_place.push_back({u, w});
  tp::PlanningGraph pg = planning(g);
  tp::Liveness live = liveness(pg, {0, 1, 2, 3, 4});
  const int32_t big_storage = pg.storage.tensor_storage[big];
  EXPECT_EQ(live.death[big_storage], 4);
  EXPECT_EQ(pg.storage.tensor_storage[u], pg.storage.tensor_storage[w]);
  // step 3 (relu_): x died after b (step 2); big + w.
  EXPECT_EQ(live.live_bytes[3], 8192 + 256);
  EXPECT_EQ(live.live_bytes[4], 8192 + 256 + 256);
}

TEST(Liveness, GroupBornWithFirstMemberFreedWithLast) {
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 256);
  int32_t m0 = tp::add_tensor(&g, "m0", 1024);
  int32_t m1 = tp::add_tensor(&g, "m1", 1024);
  int32_t y = tp::add_tensor(&g, "y", 256);
  int32_t z = tp::add_tensor(&g, "z", 256);
  tp::add_op(&g, "p0", {x}, {m0});
  tp::add_op(&g, "use0", {m0}, {y});
  tp::add_op(&g, "p1", {y}, {m1});
  tp::add_op(&g, "use1", {m1}, {z});
  g.inputs = {x};
  g.outputs = {z};
  g.groups.push_back({{m0, m1}});
  tp::PlanningGraph pg = planning(g);
  tp::Liveness live = liveness(pg, {0, 1, 2, 3});
  const int32_t s = pg.storage.tensor_storage[m0];
  EXPECT_EQ(live.birth[s], 0);
  EXPECT_EQ(live.death[s], 3);
  EXPECT_EQ(pg.storage.storages[s].aligned_bytes, 2048);
  EXPECT_EQ(live.live_bytes[1], 2048 + 256);  // x died after p0
}

TEST(Liveness, PersistentOutsideArenaButReported) {
  Graph g;
  int32_t w = tp::add_tensor(&g, "w", 1 << 20);
  int32_t x = tp::add_tensor(&g, "x", 256);
  int32_t y = tp::add_tensor(&g, "y", 256);
  tp::add_op(&g, "mm", {x, w}, {y});
  g.inputs = {x};
  g.persistent = {w};
  g.outputs = {y};
  tp::PlanningGraph pg = planning(g);
  tp::Liveness live = liveness(pg, {0});
  EXPECT_EQ(live.peak, 512);
  EXPECT_EQ(live.persistent_bytes, 1 << 20);
  EXPECT_EQ(live.peak_live.size(), 2u);
}

TEST(Liveness, RejectsNonTopologicalOrBrokenOrders) {
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 8);
  int32_t y = tp::add_tensor(&g, "y", 8);
  int32_t z = tp::add_tensor(&g, "z", 8);
  tp::add_op(&g, "a", {x}, {y});
  tp::add_op(&g, "b", {y}, {z});
  g.inputs = {x};
  tp::PlanningGraph pg = planning(g);
  tp::Liveness live;
  tp::Status s = tp::compute_liveness(pg, {1, 0}, &live);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("\"b\" at step 0 depends on \"a\" at step 1"), std::string::npos) << s.message();
  EXPECT_FALSE(tp::compute_liveness(pg, {0, 0}, &live).is_ok());
  EXPECT_FALSE(tp::compute_liveness(pg, {0}, &live).is_ok());
  EXPECT_FALSE(tp::compute_liveness(pg, {0, 5}, &live).is_ok());
}

// Invariants on random graphs: live bytes equal a brute-force recount from
// birth/death, the peak is their max, and the fast path agrees.
TEST(Liveness, RandomGraphsMatchBruteForceRecount) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 100; ++round) {
    Graph g;
    const int n = 1 + static_cast<int>(rng() % 12);
    int32_t in = tp::add_tensor(&g, "in", 1 + rng() % 5000);
    g.inputs = {in};
    std::vector<int32_t> available = {in};
    for (int i = 0; i < n; ++i) {
      std::vector<int32_t> reads;
      const int k = 1 + static_cast<int>(rng() % 3);
      for (int j = 0; j < k; ++j) reads.push_back(available[rng() % available.size()]);
      std::sort(reads.begin(), reads.end());
      reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
      int32_t t = tp::add_tensor(&g, "t" + std::to_string(i), static_cast<int64_t>(rng() % 5000));
      tp::add_op(&g, "op" + std::to_string(i), reads, {t}, static_cast<int64_t>(rng() % 3 == 0 ? rng() % 3000 : 0));
      available.push_back(t);
    }
    g.outputs = {available.back()};
    tp::PlanningGraph pg = planning(g);
    std::vector<int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    tp::Liveness live = liveness(pg, order);
    int64_t peak = 0;
    for (int step = 0; step < n; ++step) {
      int64_t sum = pg.op_workspace[order[step]];
      for (int32_t s = 0; s < pg.storage_count(); ++s) {
        if (live.birth[s] >= 0 && live.birth[s] <= step && step <= live.death[s]) {
          sum += pg.storage.storages[s].aligned_bytes;
        }
      }
      EXPECT_EQ(live.live_bytes[step], sum);
      peak = std::max(peak, sum);
    }
    EXPECT_EQ(live.peak, peak);
    EXPECT_EQ(tp::schedule_peak(pg, order), peak);
    int64_t attributed = live.peak_workspace;
    for (size_t i = 0; i < live.peak_live.size(); ++i) {
      attributed += live.peak_live[i].bytes;
      if (i > 0) {
        EXPECT_GE(live.peak_live[i - 1].bytes, live.peak_live[i].bytes);
      }
    }
    EXPECT_EQ(attributed, live.peak);
  }
}

}  // namespace
