// Fusion check: peak and read limits, with total = total + x_i as the canonical case.
#include <gtest/gtest.h>

#include "planning_graph_for_tests.h"

#include "schedule/fusion_check.h"
#include "graph/planning_graph.h"

namespace {

using tp::Graph;

constexpr int64_t kMiB = 1 << 20;

// seed -> init -> total_0; for i: p_i: seed -> x_i (1 MiB); add_i: (total_{i-1}, x_i) -> total_i.
// Ops: init = 0, p_i = 2i - 1, add_i = 2i.
Graph accumulation(int n, bool in_place) {
  Graph g;
  int32_t seed = tp::add_tensor(&g, "seed", 256);
  int32_t total = tp::add_tensor(&g, "total_0", kMiB);
  tp::add_op(&g, "init", {seed}, {total});
  g.inputs = {seed};
  for (int i = 1; i <= n; ++i) {
    int32_t x = tp::add_tensor(&g, "x_" + std::to_string(i), kMiB);
    tp::add_op(&g, "p_" + std::to_string(i), {seed}, {x});
    int32_t next = tp::add_tensor(&g, "total_" + std::to_string(i), kMiB);
    tp::add_op(&g, "add_" + std::to_string(i), {total, x}, {next});
    if (in_place) g.in_place.push_back({next, total});
    total = next;
  }
  g.outputs = {total};
  return g;
}

std::vector<int32_t> adds(int n) {
  std::vector<int32_t> ops;
  for (int i = 1; i <= n; ++i) ops.push_back(2 * i);
  return ops;
}

TEST(FusionCheck, AccumulationFusionRaisesPeakAndReadsTooMuch) {
  for (bool in_place : {false, true}) {
    const int n = 6;
    tp::PlanningGraph pg = planning(accumulation(n, in_place));
    tp::FusionLimits limits;
    limits.max_read_bytes = 4 * kMiB;
    tp::FusionCheck check;
    tp::Status status = tp::check_fusion(pg, adds(n), limits, &check);
    ASSERT_TRUE(status.is_ok()) << status.message();
    EXPECT_FALSE(check.accepted);
    EXPECT_TRUE(check.raises_peak);
    EXPECT_TRUE(check.reads_too_large);
    EXPECT_FALSE(check.creates_cycle);
    // Unfused, the best order holds at most total, x_i and the next total (the
    // in-place variant reuses total's bytes): 2 or 3 MiB plus the seed.
    EXPECT_EQ(check.peak_before, (in_place ? 2 : 3) * kMiB + 256);
    // Fused: total_0 and every x_i are read at once, plus the fused output
    // (which shares total_0's bytes when in place).
    EXPECT_EQ(check.read_bytes, (n + 1) * kMiB);
    // The step of p_n holds total_0, every x_i and the seed; the fused step drops the seed but adds its output.
    EXPECT_EQ(check.peak_after, in_place ? (n + 1) * kMiB + 256 : (n + 2) * kMiB);
    EXPECT_EQ(check.fused_step_bytes, (n + 1 + (in_place ? 0 : 1)) * kMiB);
  }
}

TEST(FusionCheck, ProducerConsumerPairIsAccepted) {
  // Fusing p_i with add_i keeps x_i in registers: the peak does not rise.
  const int n = 4;
  tp::PlanningGraph pg = planning(accumulation(n, false));
  tp::FusionLimits limits;
  limits.max_read_bytes = 2 * kMiB;
  tp::FusionCheck check;
  ASSERT_TRUE(tp::check_fusion(pg, {1, 2}, limits, &check).is_ok());
  EXPECT_TRUE(check.accepted);
  EXPECT_LE(check.peak_after, check.peak_before);
  EXPECT_EQ(check.read_bytes, 256 + kMiB);  // seed and total_0; x_1 vanished
  ASSERT_EQ(check.fused_graph.ops.size(), pg.graph.ops.size() - 1);
}

TEST(FusionCheck, ReadLimitAloneRejects) {
  const int n = 2;
  tp::PlanningGraph pg = planning(accumulation(n, false));
  tp::FusionLimits limits;
  limits.max_read_bytes = kMiB;  // add_1 alone reads 2 MiB
  tp::FusionCheck check;
  ASSERT_TRUE(tp::check_fusion(pg, {2}, limits, &check).is_ok());
  EXPECT_FALSE(check.raises_peak);
  EXPECT_TRUE(check.reads_too_large);
  EXPECT_FALSE(check.accepted);
  limits.max_read_bytes = 0;  // no limit
  ASSERT_TRUE(tp::check_fusion(pg, {2}, limits, &check).is_ok());
  EXPECT_TRUE(check.accepted);
}

TEST(FusionCheck, SetThatAPathLeavesAndReentersIsRejected) {
  // init -> p_1? no: add_1 reads total_0 (init) and x_1 (p_1); fusing init with
  // add_1 is fine, but {init, add_2} is not: add_1 sits between them.
  tp::PlanningGraph pg = planning(accumulation(2, false));
  tp::FusionCheck check;
  ASSERT_TRUE(tp::check_fusion(pg, {0, 4}, tp::FusionLimits(), &check).is_ok());
  EXPECT_TRUE(check.creates_cycle);
  EXPECT_FALSE(check.accepted);
}

TEST(FusionCheck, BadRequestsAreErrors) {
  tp::PlanningGraph pg = planning(accumulation(2, false));
  tp::FusionCheck check;
  EXPECT_FALSE(tp::check_fusion(pg, {}, tp::FusionLimits(), &check).is_ok());
  tp::Status s = tp::check_fusion(pg, {1, 99}, tp::FusionLimits(), &check);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("fused_ops[1] = 99"), std::string::npos) << s.message();
  s = tp::check_fusion(pg, {1, 1}, tp::FusionLimits(), &check);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("listed twice"), std::string::npos) << s.message();
}

}  // namespace
