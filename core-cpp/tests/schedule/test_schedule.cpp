// PLANNING.md §3: baselines, ours, and the exact search.
#include <gtest/gtest.h>

#include "planning_graph_for_tests.h"
#include "schedule/brute_force_schedule.h"

#include <chrono>
#include <functional>
#include <random>

#include "graph/graph_families.h"
#include "graph/graph_validate.h"
#include "liveness/liveness.h"
#include "schedule/schedule.h"
#include "schedule/compact_order.h"
#include "schedule/schedule_baselines.h"
#include "schedule/schedule_exact.h"
#include "schedule/schedule_search.h"

namespace {

using tp::Graph;

// Random small DAG with random sizes and workspaces, and sometimes a view,
// an in-place op or a group, so the search sees every alias kind.
Graph random_small_graph(std::mt19937_64& rng, int n) {
  Graph g;
  std::vector<int32_t> avail;
  std::vector<uint8_t> mutated, plain;  // per tensor: already mutated in place; free of alias roles
  auto new_tensor = [&](const std::string& name, int64_t bytes) {
    int32_t t = tp::add_tensor(&g, name, bytes);
    mutated.push_back(0);
    plain.push_back(1);
    return t;
  };
  const int inputs = 1 + static_cast<int>(rng() % 2);
  for (int i = 0; i < inputs; ++i) {
    avail.push_back(new_tensor("in" + std::to_string(i), 256 * static_cast<int64_t>(1 + rng() % 8)));
    g.inputs.push_back(avail.back());
  }
  std::vector<int32_t> produced;
  for (int i = 0; i < n; ++i) {
    std::vector<int32_t> reads;
    const int k = 1 + static_cast<int>(rng() % 2);
    for (int j = 0; j < k; ++j) reads.push_back(avail[rng() % avail.size()]);
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    const int kind = static_cast<int>(rng() % 8);
    const int32_t first = reads[0];
    if (kind == 0 && !mutated[first]) {
      // In place: same bytes as the input it overwrites.
      int32_t out = new_tensor("t" + std::to_string(i), g.tensors[first].bytes);
      tp::add_op(&g, "op" + std::to_string(i), reads, {out});
      g.in_place.push_back({out, first});
      mutated[first] = 1;
      plain[out] = 0;
      // Program order: after the mutation only the new name may be read, not
      // the old one nor any view of it (their readers run before the mutation).
      std::vector<int32_t> old_names = {first};
      for (size_t q = 0; q < old_names.size(); ++q) {
        for (const tp::ViewAlias& v : g.views) {
          if (v.base == old_names[q]) old_names.push_back(v.tensor);
        }
      }
      for (int32_t old : old_names) {
        const auto at = std::find(avail.begin(), avail.end(), old);
        if (at != avail.end()) avail.erase(at);
      }
      avail.push_back(out);
    } else if (kind == 1 && g.tensors[first].bytes >= 512) {
      // A view of the second half of its input.
      const int64_t half = g.tensors[first].bytes / 2;
      int32_t out = new_tensor("t" + std::to_string(i), half);
      tp::add_op(&g, "op" + std::to_string(i), {first}, {out});
      g.views.push_back({out, first, half});
      plain[out] = 0;
      avail.push_back(out);
    } else {
      int32_t out = new_tensor("t" + std::to_string(i), 256 * static_cast<int64_t>(1 + rng() % 16));
      tp::add_op(&g, "op" + std::to_string(i), reads, {out}, rng() % 4 == 0 ? 256 * static_cast<int64_t>(rng() % 8) : 0);
      produced.push_back(out);
      avail.push_back(out);
    }
  }
  // Sometimes two plain products share one bulk allocation.
  if (produced.size() >= 2 && rng() % 3 == 0) {
    int32_t a = produced[rng() % produced.size()], b = produced[rng() % produced.size()];
    if (a != b && plain[a] && plain[b]) g.groups.push_back({{a, b}});
  }
  g.outputs = {avail.back()};
  if (rng() % 2 == 0) g.outputs.push_back(avail[rng() % avail.size()]);
  std::sort(g.outputs.begin(), g.outputs.end());
  g.outputs.erase(std::unique(g.outputs.begin(), g.outputs.end()), g.outputs.end());
  return g;
}

TEST(Schedule, EveryBaselineIsTopologicalOnEveryFamily) {
  for (int32_t family = 0; family < tp::kGraphFamilyCount; ++family) {
    for (int32_t n : {30, 300}) {
      tp::PlanningGraph pg = planning(tp::make_graph_family(family, n, 11 + n));
      for (int32_t m = 0; m < tp::kBaselineCount; ++m) {
        std::vector<int32_t> order = tp::run_baseline(pg, m);
        tp::Status status = tp::check_schedule(pg, order);
        EXPECT_TRUE(status.is_ok()) << tp::graph_family_name(family) << " " << tp::schedule_method_name(m)
                                    << ": " << status.message();
      }
    }
  }
}

TEST(Schedule, GivenKeepsTopologicalIndexOrderElseLowestIndexFirst) {
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 8);
  int32_t y = tp::add_tensor(&g, "y", 8);
  int32_t z = tp::add_tensor(&g, "z", 8);
  tp::add_op(&g, "second", {y}, {z});
  tp::add_op(&g, "first", {x}, {y});
  tp::add_op(&g, "free", {x}, {tp::add_tensor(&g, "w", 8)});
  g.inputs = {x};
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_given(pg), (std::vector<int32_t>{1, 0, 2}));
}

// Two independent chains, each a -> BIG -> small. Running them interleaved
// holds both BIG tensors at once; running one chain to completion does not.
Graph two_chains() {
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 256);
  int32_t big1 = tp::add_tensor(&g, "big1", 1 << 20);
  int32_t big2 = tp::add_tensor(&g, "big2", 1 << 20);
  int32_t s1 = tp::add_tensor(&g, "s1", 256);
  int32_t s2 = tp::add_tensor(&g, "s2", 256);
  tp::add_op(&g, "p1", {x}, {big1});
  tp::add_op(&g, "p2", {x}, {big2});
  tp::add_op(&g, "c1", {big1}, {s1});
  tp::add_op(&g, "c2", {big2}, {s2});
  g.inputs = {x};
  g.outputs = {s1, s2};
  return g;
}

TEST(Schedule, LpmfAvoidsHoldingTwoBigTensors) {
  tp::PlanningGraph pg = planning(two_chains());
  const int64_t given = tp::schedule_peak(pg, tp::schedule_given(pg));
  const int64_t lpmf = tp::schedule_peak(pg, tp::schedule_inductor_lpmf(pg));
  EXPECT_EQ(given, 256 + 2 * (1 << 20));
  EXPECT_EQ(lpmf, 256 + (1 << 20) + 256);
  // After p1 the gap is 0, so LPMF takes the op with key (0, net): c1 frees big1.
  EXPECT_EQ(tp::schedule_inductor_lpmf(pg), (std::vector<int32_t>{0, 2, 1, 3}));
}

TEST(Schedule, BfsIsFifoByLastPredecessorStep) {
  // p1 and p2 ready at start; c1 becomes ready at step 0, c2 at step 1: BFS
  // runs p1, p2 (both key -1), then c1, c2.
  tp::PlanningGraph pg = planning(two_chains());
  EXPECT_EQ(tp::schedule_inductor_bfs(pg), (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST(Schedule, InductorDfsVisitsSmallestFirstAndPredecessorsBeforeOps) {
  // size_with_reads (outputs + reads): p2 = c2 = 2^19 + 256 < p1 = c1 =
  // 2^20 + 256. Visiting by increasing size, ties by index: p2, c2, p1, c1.
  Graph g = two_chains();
  g.tensors[2].bytes = 1 << 19;  // big2 smaller: p2 and c2 come first
  tp::PlanningGraph pg = planning(g);
  EXPECT_EQ(tp::schedule_inductor_dfs(pg), (std::vector<int32_t>{1, 3, 0, 2}));
}

TEST(Schedule, XlaPostOrderFinishesEachSinkBeforeTheNext) {
  tp::PlanningGraph pg = planning(two_chains());
  EXPECT_EQ(tp::schedule_xla_post_order(pg), (std::vector<int32_t>{0, 2, 1, 3}));
  EXPECT_EQ(tp::schedule_peak(pg, tp::schedule_xla_list(pg)), 256 + (1 << 20) + 256);
}

TEST(Schedule, ExactMatchesBruteForceOnTinyRandomGraphs) {
  std::mt19937_64 rng(2024);
  int aliased = 0;
  for (int round = 0; round < 150; ++round) {
    const int n = 1 + static_cast<int>(rng() % 8);
    tp::PlanningGraph pg = planning(random_small_graph(rng, n));
    const int64_t optimum = brute_force_optimum(pg);
    // Start the exact search from the worst-ish order so it must work.
    std::vector<int32_t> order = tp::schedule_given(pg);
    bool proved = false;
    tp::ExactStats stats;
    const auto deadline = tp::Deadline::at(std::chrono::steady_clock::now() + std::chrono::seconds(5));
    const int64_t peak = tp::exact_schedule(pg, &order, deadline, 1 << 22, &proved, &stats);
    ASSERT_TRUE(proved) << "round " << round;
    EXPECT_EQ(peak, optimum) << "round " << round;
    EXPECT_EQ(tp::schedule_peak(pg, order), optimum) << "round " << round;
    EXPECT_TRUE(tp::check_schedule(pg, order).is_ok());
    // Both bounds must be sound, or "proved" would be a lie.
    EXPECT_LE(tp::schedule_lower_bound(pg), optimum);
    EXPECT_LE(tp::forced_live_bound(pg, tp::schedule_given(pg)), optimum) << "round " << round;
    aliased += pg.storage_count() < static_cast<int32_t>(pg.graph.tensors.size()) ? 1 : 0;
  }
  EXPECT_GT(aliased, 30);  // the generator really exercises aliases
}

TEST(Schedule, OursNeverWorseThanAnyBaselineAndProvedOnSmallGraphs) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 40; ++round) {
    const int n = 4 + static_cast<int>(rng() % 14);
    tp::PlanningGraph pg = planning(random_small_graph(rng, n));
    tp::ScheduleOptions options;
    options.time_limit_s = 30.0;  // generous: the search stops at its proof
    tp::ScheduleResult result;
    ASSERT_TRUE(tp::schedule_graph(pg, options, &result).is_ok());
    EXPECT_TRUE(tp::check_schedule(pg, result.order).is_ok());
    EXPECT_EQ(tp::schedule_peak(pg, result.order), result.peak);
    for (int32_t m = 0; m < tp::kBaselineCount; ++m) EXPECT_LE(result.peak, result.baseline_peaks[m]);
    EXPECT_TRUE(result.proved_optimal) << "round " << round;
    if (n <= 8) {
      EXPECT_EQ(result.peak, brute_force_optimum(pg)) << "round " << round;
    }
  }
}

TEST(Schedule, OursNeverWorseOnGeneratedFamilies) {
  for (int32_t family = 0; family < tp::kGraphFamilyCount; ++family) {
    for (uint64_t seed : {1u, 2u}) {
      tp::PlanningGraph pg = planning(tp::make_graph_family(family, 200, seed));
      tp::ScheduleOptions options;
      options.time_limit_s = 0.2;
      tp::ScheduleResult result;
      ASSERT_TRUE(tp::schedule_graph(pg, options, &result).is_ok());
      EXPECT_TRUE(tp::check_schedule(pg, result.order).is_ok());
      for (int32_t m = 0; m < tp::kBaselineCount; ++m) {
        EXPECT_LE(result.peak, result.baseline_peaks[m]) << tp::graph_family_name(family);
      }
      EXPECT_GE(result.peak, result.lower_bound);
    }
  }
}

TEST(Schedule, LocalSearchReportsTheTruePeakAndNeverWorsens) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 60; ++round) {
    const int n = 10 + static_cast<int>(rng() % 60);
    tp::PlanningGraph pg = planning(random_small_graph(rng, n));
    std::vector<int32_t> order = tp::schedule_inductor_bfs(pg);
    const int64_t start = tp::schedule_peak(pg, order);
    tp::ImproveStats stats;
    const auto deadline = tp::Deadline::at(std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
    const int64_t peak = tp::improve_schedule(pg, &order, deadline, 7 + round, &stats);
    ASSERT_TRUE(tp::check_schedule(pg, order).is_ok());
    EXPECT_EQ(peak, tp::schedule_peak(pg, order)) << "round " << round;
    EXPECT_LE(peak, start);
  }
}

TEST(Schedule, BestOfMethodsTakeTheMinimumOfTheirMembers) {
  tp::PlanningGraph pg = planning(tp::make_graph_family(tp::kFamilyRandomLayered, 300, 8));
  tp::ScheduleOptions options;
  options.method = tp::kScheduleInductorBest;
  tp::ScheduleResult inductor;
  ASSERT_TRUE(tp::schedule_graph(pg, options, &inductor).is_ok());
  int64_t expected = INT64_MAX;
  for (int m : {0, 1, 2, 3}) expected = std::min(expected, tp::schedule_peak(pg, tp::run_baseline(pg, m)));
  EXPECT_EQ(inductor.peak, expected);
  EXPECT_EQ(inductor.baseline_peaks[4], -1);
  options.method = tp::kScheduleXlaBest;
  tp::ScheduleResult xla;
  ASSERT_TRUE(tp::schedule_graph(pg, options, &xla).is_ok());
  expected = INT64_MAX;
  for (int m : {4, 5, 6}) expected = std::min(expected, tp::schedule_peak(pg, tp::run_baseline(pg, m)));
  EXPECT_EQ(xla.peak, expected);
  EXPECT_EQ(xla.baseline_peaks[0], -1);
}

// The benchmark's target, as a test with a generous limit: the exact search
// proves random 20-op graphs optimal (typically in milliseconds).
TEST(Schedule, ExactProvesRandomTwentyOpGraphs) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    tp::PlanningGraph pg = planning(tp::make_graph_family(tp::kFamilyRandomLayered, 20, 500 + seed));
    tp::ScheduleOptions options;
    options.time_limit_s = 20.0;
    tp::ScheduleResult result;
    ASSERT_TRUE(tp::schedule_graph(pg, options, &result).is_ok());
    EXPECT_TRUE(result.proved_optimal) << "seed " << seed;
    EXPECT_EQ(result.lower_bound, result.peak);
  }
}

TEST(Schedule, TimeLimitIsHonouredOnLargeGraphs) {
  tp::PlanningGraph pg = planning(tp::make_graph_family(tp::kFamilyRandomLayered, 20000, 5));
  tp::ScheduleOptions options;
  options.time_limit_s = 0.3;
  tp::ScheduleResult result;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(tp::schedule_graph(pg, options, &result).is_ok());
  EXPECT_LT(result.search_seconds, 0.3 + 0.25);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
}

TEST(Schedule, BadOptionsAreErrors) {
  tp::PlanningGraph pg = planning(two_chains());
  tp::ScheduleResult result;
  tp::ScheduleOptions options;
  options.method = 42;
  tp::Status s = tp::schedule_graph(pg, options, &result);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("method = 42"), std::string::npos);
  options.method = tp::kScheduleOurs;
  options.time_limit_s = -1;
  EXPECT_FALSE(tp::schedule_graph(pg, options, &result).is_ok());
}

TEST(Schedule, EmptyGraphSchedulesToNothing) {
  tp::PlanningGraph pg = planning(Graph());
  tp::ScheduleResult result;
  ASSERT_TRUE(tp::schedule_graph(pg, tp::ScheduleOptions(), &result).is_ok());
  EXPECT_TRUE(result.order.empty());
  EXPECT_EQ(result.peak, 0);
  EXPECT_TRUE(result.proved_optimal);
}

// Compacted orders (compact_order.h) on graphs with in-place outputs, views
// and workspaces: a valid order of every op, no step above the given order's
// peak, an area (step bytes summed) that never grows and is what it reports,
// the same order for the same seed.
TEST(Schedule, CompactOrderKeepsThePeakAndNeverGrowsTheArea) {
  std::mt19937_64 rng(31);
  int shrunk = 0;
  for (int round = 0; round < 200; ++round) {
    const tp::PlanningGraph pg = planning(random_small_graph(rng, 2 + static_cast<int>(rng() % 30)));
    const std::vector<int32_t> given = tp::schedule_given(pg);
    std::vector<int32_t> order = given;
    tp::CompactStats stats;
    tp::compact_order(pg, &order, 2000, round, &stats);
    ASSERT_TRUE(tp::check_schedule(pg, order).is_ok()) << "round " << round;
    EXPECT_EQ(stats.peak, tp::schedule_peak(pg, given));
    EXPECT_LE(tp::schedule_peak(pg, order), stats.peak) << "round " << round;
    double area = 0;
    for (const int64_t bytes : tp::step_bytes(pg, order)) area += static_cast<double>(bytes);
    EXPECT_EQ(area, stats.area_after) << "round " << round;
    EXPECT_LE(stats.area_after, stats.area_before) << "round " << round;
    EXPECT_LE(stats.moves_kept, stats.moves_tried);
    shrunk += stats.area_after < stats.area_before ? 1 : 0;
    std::vector<int32_t> again = given;
    tp::CompactStats again_stats;
    tp::compact_order(pg, &again, 2000, round, &again_stats);
    EXPECT_EQ(again, order) << "round " << round;
  }
  EXPECT_GT(shrunk, 50);  // the search really moves ops on these graphs
}

}  // namespace

// A work-bounded search must not depend on the clock: two runs, one on a busy
// thread, give the same order (the same holds across machines and backends).
TEST(Schedule, WorkLimitedSearchIsDeterministic) {
  for (int32_t family = 0; family < tp::kGraphFamilyCount; ++family) {
    tp::PlanningGraph pg;
    ASSERT_TRUE(tp::build_planning_graph(tp::make_graph_family(family, 400, 5), &pg).is_ok());
    tp::ScheduleOptions options;
    options.work_limit = 20000;
    tp::ScheduleResult first, second;
    ASSERT_TRUE(tp::schedule_graph(pg, options, &first).is_ok());
    volatile double spin = 0;
    for (int i = 0; i < 3000000; ++i) spin = spin + i;  // change the timing, not the work
    ASSERT_TRUE(tp::schedule_graph(pg, options, &second).is_ok());
    EXPECT_EQ(first.order, second.order) << tp::graph_family_name(family);
    EXPECT_EQ(first.peak, second.peak);
    EXPECT_LE(first.peak, *std::min_element(first.baseline_peaks.begin(), first.baseline_peaks.end()));
  }
}

// Independent ops, one graph output each (what ORT's contrib fixture is): the
// outputs are all live at the last step, so their sum bounds every order and
// the given order is proved at once. Before this bound the per-op bound was one
// output, the exact search met its state limit among 2^40 down-sets, and a
// fast (work-bounded) plan of a 27-op model took seconds.
TEST(Schedule, GraphOutputsAtTheEndBoundIndependentOps) {
  Graph g;
  const int32_t in = tp::add_tensor(&g, "in", 64);
  g.inputs.push_back(in);
  int64_t outputs = 0;
  for (int i = 0; i < 40; ++i) {
    const int64_t bytes = 256 * (1 + i % 5);
    const int32_t out = tp::add_tensor(&g, "out" + std::to_string(i), bytes);
    tp::add_op(&g, "op" + std::to_string(i), {in}, {out});
    g.outputs.push_back(out);
    outputs += bytes;
  }
  tp::PlanningGraph pg = planning(g);
  EXPECT_GE(tp::schedule_lower_bound(pg), outputs);
  tp::ScheduleOptions options;
  options.time_limit_s = 0;
  options.work_limit = 1000;
  tp::ScheduleResult result;
  ASSERT_TRUE(tp::schedule_graph(pg, options, &result).is_ok());
  EXPECT_TRUE(result.proved_optimal);
  EXPECT_EQ(result.peak, result.lower_bound);
  EXPECT_EQ(result.exact_states, 0);
}
