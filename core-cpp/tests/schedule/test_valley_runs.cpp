// Valley runs in the exact schedule search (schedule_exact.h). A
// set from which a run of ops climbs no higher than the set's key and ends
// lower than after any part of it gets the run's first op as its only child.
// Checked against brute force over every order on small graphs built of
// branches that climb and fall, and on branches whose fall needs several ops
// (the one-op rule alone does not fire there).
#include <gtest/gtest.h>

#include "planning_graph_for_tests.h"
#include "schedule/brute_force_schedule.h"

#include <chrono>
#include <random>
#include <string>

#include "liveness/liveness.h"
#include "schedule/schedule_baselines.h"
#include "schedule/schedule_exact.h"
#include "schedule/schedule_search.h"

namespace {

using tp::Graph;

tp::Deadline generous() { return tp::Deadline::at(std::chrono::steady_clock::now() + std::chrono::seconds(20)); }

// `branches` chains off graph inputs: each op reads the chain's last value,
// sometimes an earlier one of its chain (so that value dies later), or any
// value of an earlier chain (so what a run frees may depend on ops outside
// it); a join reads every chain's last value. Byte sizes vary widely, so
// chains climb and fall.
Graph climbing_branches(std::mt19937_64& rng, int branches, int max_ops) {
  Graph g;
  auto bytes = [&]() { return 256 * static_cast<int64_t>(1 + rng() % 12); };
  std::vector<std::vector<int32_t>> chains;
  for (int b = 0; b < branches; ++b) {
    const int32_t in = tp::add_tensor(&g, "in" + std::to_string(b), bytes());
    g.inputs.push_back(in);
    chains.push_back({in});
  }
  int op_id = 0;
  for (int b = 0; b < branches; ++b) {
    const int ops = 1 + static_cast<int>(rng() % max_ops);
    for (int i = 0; i < ops; ++i) {
      std::vector<int32_t> reads = {chains[b].back()};
      if (rng() % 3 == 0) reads.push_back(chains[b][rng() % chains[b].size()]);
      if (rng() % 3 == 0 && b > 0) {
        const auto& other = chains[rng() % b];
        reads.push_back(other[rng() % other.size()]);
      }
      std::sort(reads.begin(), reads.end());
      reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
      const int32_t out = tp::add_tensor(&g, "t" + std::to_string(op_id), bytes());
      tp::add_op(&g, "op" + std::to_string(op_id++), reads, {out}, rng() % 4 == 0 ? bytes() : 0);
      chains[b].push_back(out);
    }
  }
  std::vector<int32_t> last;
  for (const auto& chain : chains) last.push_back(chain.back());
  const int32_t out = tp::add_tensor(&g, "out", bytes());
  tp::add_op(&g, "join", last, {out});
  g.outputs.push_back(out);
  return g;
}

// `branches` copies, with sizes scaled by the branch number, of: `a` reads
// the branch's input x and writes t1; `b` reads t1 and writes t2; `c` reads
// x, t1 and t2 and writes a small y; a join reads every y. Within a branch
// the bytes climb by t1, then t2, and fall below the start only after `c`
// (which frees x, t1 and t2): no single op frees what it brings to life
// until c, so the one-op rule leaves every interleaving of the branches open.
Graph three_step_valleys(int branches) {
  Graph g;
  std::vector<int32_t> ys;
  for (int b = 0; b < branches; ++b) {
    const int64_t unit = 256 * (b + 1);
    const std::string n = std::to_string(b);
    const int32_t x = tp::add_tensor(&g, "x" + n, 2 * unit);
    g.inputs.push_back(x);
    const int32_t t1 = tp::add_tensor(&g, "t1_" + n, 4 * unit);
    const int32_t t2 = tp::add_tensor(&g, "t2_" + n, 4 * unit);
    const int32_t y = tp::add_tensor(&g, "y" + n, unit);
    tp::add_op(&g, "a" + n, {x}, {t1});
    tp::add_op(&g, "b" + n, {t1}, {t2});
    tp::add_op(&g, "c" + n, {x, t1, t2}, {y});
    ys.push_back(y);
  }
  const int32_t out = tp::add_tensor(&g, "out", 256);
  tp::add_op(&g, "join", ys, {out});
  g.outputs.push_back(out);
  return g;
}

// Loosening the rule fails this: checking only the run's prefixes (not every
// part of it an order could run first), letting a step climb 4096 bytes
// above the key, or allowing the run to end 512 bytes above its lowest point.
TEST(ValleyRuns, SearchWithValleyRunsIsTheBruteForceOptimum) {
  std::mt19937_64 rng(1818);
  int64_t valley_runs = 0;
  int rounds_with_runs = 0;
  for (int round = 0; round < 4000; ++round) {
    const tp::PlanningGraph pg = planning(climbing_branches(rng, 2 + static_cast<int>(rng() % 2), 4));
    if (pg.op_count() > 10) continue;  // brute force stays fast
    const int64_t optimum = brute_force_optimum(pg);
    std::vector<int32_t> order = tp::schedule_given(pg);
    bool proved = false;
    tp::ExactStats stats;
    const int64_t peak = tp::exact_schedule(pg, &order, generous(), 1 << 22, &proved, &stats);
    ASSERT_TRUE(proved) << "round " << round;
    EXPECT_EQ(peak, optimum) << "round " << round;
    EXPECT_EQ(tp::schedule_peak(pg, order), optimum) << "round " << round;
    EXPECT_TRUE(tp::check_schedule(pg, order).is_ok()) << "round " << round;
    valley_runs += stats.valley_runs;
    rounds_with_runs += stats.valley_runs > 0 ? 1 : 0;
  }
  // The generator really gives the rule work: a test of the rule that never
  // fires would pass whatever the rule did.
  EXPECT_GT(rounds_with_runs, 10);
  EXPECT_GT(valley_runs, 20);
}

TEST(ValleyRuns, BranchesThatFallOnlyAfterSeveralOpsAreProvedInFewSets) {
  // Four branches: small enough for brute force (13 ops), so the optimum is
  // checked, not assumed.
  {
    const tp::PlanningGraph pg = planning(three_step_valleys(4));
    const int64_t optimum = brute_force_optimum(pg);
    std::vector<int32_t> order = tp::schedule_given(pg);
    bool proved = false;
    tp::ExactStats stats;
    const int64_t peak = tp::exact_schedule(pg, &order, generous(), 1 << 22, &proved, &stats);
    ASSERT_TRUE(proved);
    EXPECT_EQ(peak, optimum);
    EXPECT_GT(stats.valley_runs, 0);
  }
  // Fourteen branches (43 ops): 4^14 sets of the branches' progress. The
  // search proved it after 1826 memoised sets without valley runs, 325 with.
  const tp::PlanningGraph pg = planning(three_step_valleys(14));
  std::vector<int32_t> order = tp::schedule_given(pg);
  bool proved = false;
  tp::ExactStats stats;
  const int64_t peak = tp::exact_schedule(pg, &order, generous(), 1 << 22, &proved, &stats);
  ASSERT_TRUE(proved);
  EXPECT_LE(stats.states, 600);
  EXPECT_GE(stats.valley_runs, 14);
  EXPECT_EQ(tp::schedule_peak(pg, order), peak);
  EXPECT_TRUE(tp::check_schedule(pg, order).is_ok());
  // No worse than running the branches one after another, largest first.
  std::vector<int32_t> sequential;
  for (int b = 13; b >= 0; --b) {
    for (int32_t k = 0; k < 3; ++k) sequential.push_back(3 * b + k);
  }
  sequential.push_back(42);
  ASSERT_TRUE(tp::check_schedule(pg, sequential).is_ok());
  EXPECT_LE(peak, tp::schedule_peak(pg, sequential));
}

}  // namespace
