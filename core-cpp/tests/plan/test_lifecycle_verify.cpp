// PLANNING.md §6 verify: traced births/deaths against the plan's expectations.
#include <gtest/gtest.h>

#include "planning_graph_for_tests.h"

#include "graph/planning_graph.h"
#include "plan/lifecycle_verify.h"

namespace {

using tp::Graph;

// x (input) -a-> y -b-> z (output), plus w written by a and read by c.
Graph graph3() {
  Graph g;
  int32_t x = tp::add_tensor(&g, "x", 256);
  int32_t y = tp::add_tensor(&g, "y", 256);
  int32_t z = tp::add_tensor(&g, "z", 256);
  int32_t w = tp::add_tensor(&g, "w", 256);
  int32_t v = tp::add_tensor(&g, "v", 256);
  tp::add_op(&g, "a", {x}, {y, w});
  tp::add_op(&g, "b", {y}, {z});
  tp::add_op(&g, "c", {w}, {v});
  g.inputs = {x};
  g.outputs = {z, v};
  return g;
}

// The trace an exact executor of order {a, b, c} records.
std::vector<tp::TraceEvent> perfect_trace() {
  return {{0, 1, true}, {0, 3, true}, {0, 0, false}, {1, 2, true}, {1, 1, false}, {2, 4, true}, {2, 3, false}};
}

TEST(LifecycleVerify, PerfectTraceHasNoIssues) {
  tp::PlanningGraph pg = planning(graph3());
  std::vector<tp::LifecycleIssue> issues;
  ASSERT_TRUE(tp::verify_lifecycle(pg, {0, 1, 2}, perfect_trace(), &issues).is_ok());
  EXPECT_TRUE(issues.empty());
}

TEST(LifecycleVerify, ReportsMissingAndUnexpectedWithTensorAndStep) {
  tp::PlanningGraph pg = planning(graph3());
  std::vector<tp::TraceEvent> trace = perfect_trace();
  trace.erase(trace.begin() + 4);  // y is never freed
  trace[5].step = 1;               // w freed one step early... (entry {2, 3, false})
  trace.push_back({2, 2, false});  // z (an output) freed
  std::vector<tp::LifecycleIssue> issues;
  ASSERT_TRUE(tp::verify_lifecycle(pg, {0, 1, 2}, trace, &issues).is_ok());
  ASSERT_EQ(issues.size(), 4u);
  EXPECT_EQ(issues[0].kind, tp::kMissingDeath);
  EXPECT_EQ(issues[0].tensor, 1);
  EXPECT_EQ(issues[0].step, 1);
  EXPECT_EQ(issues[1].kind, tp::kUnexpectedDeath);
  EXPECT_EQ(issues[1].tensor, 3);
  EXPECT_EQ(issues[1].step, 1);
  EXPECT_EQ(issues[2].kind, tp::kMissingDeath);
  EXPECT_EQ(issues[2].tensor, 3);
  EXPECT_EQ(issues[2].step, 2);
  EXPECT_EQ(issues[3].kind, tp::kUnexpectedDeath);
  EXPECT_EQ(issues[3].tensor, 2);
  EXPECT_EQ(tp::describe_issue(pg, issues[0]), "missing death of \"y\" at step 1");
}

TEST(LifecycleVerify, MissingBirthAndAllocationOfAGraphInput) {
  tp::PlanningGraph pg = planning(graph3());
  std::vector<tp::TraceEvent> trace = perfect_trace();
  trace.erase(trace.begin() + 3);   // z never allocated
  trace.push_back({0, 0, true});    // x allocated although it exists before step 0
  std::vector<tp::LifecycleIssue> issues;
  ASSERT_TRUE(tp::verify_lifecycle(pg, {0, 1, 2}, trace, &issues).is_ok());
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].kind, tp::kUnexpectedBirth);
  EXPECT_EQ(issues[0].tensor, 0);
  EXPECT_EQ(issues[1].kind, tp::kMissingBirth);
  EXPECT_EQ(issues[1].tensor, 2);
  EXPECT_EQ(issues[1].step, 1);
}

TEST(LifecycleVerify, AliasesReportAgainstTheirStorage) {
  Graph g = graph3();
  int32_t u = tp::add_tensor(&g, "u", 128);
  g.views.push_back({u, 1, 0});  // u is a view of y that no op writes
  tp::PlanningGraph pg = planning(g);
  std::vector<tp::TraceEvent> trace = perfect_trace();
  trace[4].tensor = u;  // the executor frees y through its view: same storage
  std::vector<tp::LifecycleIssue> issues;
  ASSERT_TRUE(tp::verify_lifecycle(pg, {0, 1, 2}, trace, &issues).is_ok());
  EXPECT_TRUE(issues.empty());
}

TEST(LifecycleVerify, BadTraceEntriesAreErrors) {
  tp::PlanningGraph pg = planning(graph3());
  std::vector<tp::LifecycleIssue> issues;
  tp::Status s = tp::verify_lifecycle(pg, {0, 1, 2}, {{0, 17, true}}, &issues);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("trace[0].tensor = 17"), std::string::npos);
  s = tp::verify_lifecycle(pg, {0, 1, 2}, {{3, 1, true}}, &issues);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("trace[0].step = 3"), std::string::npos);
  EXPECT_FALSE(tp::verify_lifecycle(pg, {1, 0, 2}, {}, &issues).is_ok());
}

}  // namespace
