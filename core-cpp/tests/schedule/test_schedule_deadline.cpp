// Schedule deadlines: the baselines check the clock as they
// go and a cut one is dropped, `given` always runs, and `ours` under a limit
// too small for anything but `given` still returns a valid order no worse
// than it. These tests never measure time: they use a deadline already past,
// or a limit far below what the work needs, and check what comes back.
#include <gtest/gtest.h>

#include "planning_graph_for_tests.h"

#include <chrono>
#include <string>

#include "graph/graph_families.h"
#include "liveness/liveness.h"
#include "schedule/schedule.h"
#include "schedule/schedule_baselines.h"

namespace {

// One input read by n ops, each writing its own output, all graph outputs.
tp::Graph fan_out(int n) {
  tp::Graph g;
  const int32_t x = tp::add_tensor(&g, "x", 256);
  g.inputs.push_back(x);
  for (int i = 0; i < n; ++i) {
    const int32_t t = tp::add_tensor(&g, "t" + std::to_string(i), 64 + (i % 7) * 32);
    tp::add_op(&g, "o" + std::to_string(i), {x}, {t});
    g.outputs.push_back(t);
  }
  return g;
}

tp::Deadline already_passed() { return tp::Deadline::at(std::chrono::steady_clock::now() - std::chrono::seconds(1)); }

TEST(ScheduleDeadline, APassedDeadlineCutsEveryBaselineButGiven) {
  const tp::PlanningGraph pg = planning(tp::make_graph_family(tp::kFamilyRandomLayered, 300, 3));
  EXPECT_EQ(tp::run_baseline(pg, tp::kScheduleGiven, already_passed()), tp::schedule_given(pg));
  for (int32_t m = 1; m < tp::kBaselineCount; ++m) {
    EXPECT_TRUE(tp::run_baseline(pg, m, already_passed()).empty()) << tp::schedule_method_name(m);
  }
}

TEST(ScheduleDeadline, ABaselineThatFinishesInTimeIsUnchangedByItsDeadline) {
  for (int32_t family = 0; family < tp::kGraphFamilyCount; ++family) {
    const tp::PlanningGraph pg = planning(tp::make_graph_family(family, 400, 5));
    const tp::Deadline later = tp::Deadline::at(std::chrono::steady_clock::now() + std::chrono::hours(1));
    for (int32_t m = 0; m < tp::kBaselineCount; ++m) {
      EXPECT_EQ(tp::run_baseline(pg, m, later), tp::run_baseline(pg, m)) << tp::graph_family_name(family) << " "
                                                                         << tp::schedule_method_name(m);
    }
  }
}

TEST(ScheduleDeadline, OursUnderATinyLimitReturnsAValidOrderNoWorseThanGiven) {
  // 3 * 10^4 ops: every baseline after given and the search are cut or never
  // start under a microsecond's limit.
  const tp::PlanningGraph pg = planning(fan_out(30000));
  tp::ScheduleOptions options;
  options.time_limit_s = 1e-6;
  tp::ScheduleResult result;
  ASSERT_TRUE(tp::schedule_graph(pg, options, &result).is_ok());
  EXPECT_TRUE(tp::check_schedule(pg, result.order).is_ok());
  EXPECT_EQ(result.peak, tp::schedule_peak(pg, result.order));
  EXPECT_LE(result.peak, tp::schedule_peak(pg, tp::schedule_given(pg)));
  EXPECT_GE(result.baseline_peaks[tp::kScheduleGiven], 0);
  int32_t dropped = 0;
  for (int32_t m = 1; m < tp::kBaselineCount; ++m) dropped += result.baseline_peaks[m] < 0 ? 1 : 0;
  EXPECT_GT(dropped, 0);
}

TEST(ScheduleDeadline, OursWithoutALimitRunsEveryBaseline) {
  const tp::PlanningGraph pg = planning(fan_out(2000));
  tp::ScheduleOptions options;
  options.time_limit_s = 0;  // baselines only, no limit
  tp::ScheduleResult result;
  ASSERT_TRUE(tp::schedule_graph(pg, options, &result).is_ok());
  for (int32_t m = 0; m < tp::kBaselineCount; ++m) EXPECT_GE(result.baseline_peaks[m], 0) << tp::schedule_method_name(m);
}

TEST(ScheduleDeadline, AWorkLimitIsNeverCutByTheClock) {
  // Deterministic mode: the same order however slow the machine.
  const tp::PlanningGraph pg = planning(tp::make_graph_family(tp::kFamilyTransformer, 600, 2));
  tp::ScheduleOptions options;
  options.work_limit = 2000;
  options.time_limit_s = 1e-6;  // ignored under a work limit
  tp::ScheduleResult a, b;
  ASSERT_TRUE(tp::schedule_graph(pg, options, &a).is_ok());
  options.time_limit_s = 100;
  ASSERT_TRUE(tp::schedule_graph(pg, options, &b).is_ok());
  EXPECT_EQ(a.order, b.order);
  for (int32_t m = 0; m < tp::kBaselineCount; ++m) EXPECT_GE(a.baseline_peaks[m], 0) << tp::schedule_method_name(m);
}

}  // namespace
