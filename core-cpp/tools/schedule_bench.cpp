// Scheduling benchmark: generated graph families at 10^2..10^5 ops
// with fixed seeds. For each graph: the peak of every baseline, ours, ours /
// best baseline, the lower bound, and seconds per method; then random 20-op
// graphs solved exactly, with every method's gap to the optimum.
//
// Usage: schedule_bench [--quick] [--max-ops N] [--limit S]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "graph/graph_families.h"
#include "graph/graph_validate.h"
#include "liveness/liveness.h"
#include "schedule/schedule.h"
#include "schedule/schedule_search.h"

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const char* kShort[] = {"given", "ind.lpmf", "ind.bfs", "ind.dfs", "xla.list", "xla.dfs", "xla.post"};

double max_rss_mib() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // Linux reports KiB
}

struct TimeRow {
  std::string label;
  std::vector<double> ms;
  double ours_ms;
  double total_ms;
  double build_ms;
  double rss_mib;
};

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int32_t max_ops = 100000;
  double limit = 1.0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--max-ops") == 0 && i + 1 < argc) max_ops = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--limit") == 0 && i + 1 < argc) limit = std::atof(argv[++i]);
  }
  std::printf("# schedule_bench: peaks in MiB (arena, 256-B aligned), times in ms; ours time limit %.2f s\n", limit);
  std::printf("%-15s %7s %5s |", "family", "ops", "seed");
  for (const char* name : kShort) std::printf(" %9s", name);
  std::printf(" | %9s %9s %7s %6s | %8s %8s %8s %s\n", "ours", "LB", "ours/bb", "proved", "bl_ms", "ours_ms",
              "total_ms", "best-baseline");
  int graphs = 0, never_worse = 0, strictly_better = 0, nontrivial = 0;
  std::vector<TimeRow> times;
  std::vector<int32_t> sizes = {100, 1000, 10000, 100000};
  for (int32_t family = 0; family < tp::kGraphFamilyCount; ++family) {
    for (int32_t n : sizes) {
      if (n > max_ops) continue;
      const int seeds = quick ? 1 : (n <= 1000 ? 3 : 1);
      for (int seed = 1; seed <= seeds; ++seed) {
        tp::Graph graph = tp::make_graph_family(family, n, static_cast<uint64_t>(seed));
        tp::PlanningGraph pg;
        const double build_start = now_s();
        tp::Status status = tp::build_planning_graph(graph, &pg);
        const double build_ms = (now_s() - build_start) * 1e3;
        if (!status.is_ok()) {
          std::printf("%s %d: %s\n", tp::graph_family_name(family), n, status.message().c_str());
          return 1;
        }
        tp::ScheduleOptions options;
        options.method = tp::kScheduleOurs;
        // The 2 s target for 10^5 ops covers everything, so the search gets what the baselines leave.
        options.time_limit_s = n >= 100000 ? std::min(limit, 1.0) : limit;
        tp::ScheduleResult result;
        const double start = now_s();
        status = tp::schedule_graph(pg, options, &result);
        const double total_ms = (now_s() - start) * 1e3;
        if (!status.is_ok()) {
          std::printf("error: %s\n", status.message().c_str());
          return 1;
        }
        int64_t best = INT64_MAX;
        int32_t best_method = 0;
        double baseline_ms = 0;
        std::printf("%-15s %7d %5d |", tp::graph_family_name(family), pg.op_count(), seed);
        for (int32_t m = 0; m < tp::kBaselineCount; ++m) {
          std::printf(" %9.3f", result.baseline_peaks[m] / 1048576.0);
          baseline_ms += result.baseline_seconds[m] * 1e3;
          if (result.baseline_peaks[m] < best) {
            best = result.baseline_peaks[m];
            best_method = m;
          }
        }
        const double ratio = best > 0 ? static_cast<double>(result.peak) / static_cast<double>(best) : 1.0;
        std::printf(" | %9.3f %9.3f %7.4f %6s | %8.1f %8.1f %8.1f %s\n", result.peak / 1048576.0,
                    result.lower_bound / 1048576.0, ratio, result.proved_optimal ? "yes" : "no", baseline_ms,
                    result.search_seconds * 1e3, total_ms, kShort[best_method]);
        TimeRow row;
        row.label = std::string(tp::graph_family_name(family)) + " " + std::to_string(pg.op_count()) + " s" +
                    std::to_string(seed);
        for (int32_t m = 0; m < tp::kBaselineCount; ++m) row.ms.push_back(result.baseline_seconds[m] * 1e3);
        row.ours_ms = result.search_seconds * 1e3;
        row.total_ms = total_ms;
        row.build_ms = build_ms;
        row.rss_mib = max_rss_mib();
        times.push_back(row);
        ++graphs;
        if (result.peak <= best) ++never_worse;
        if (best > result.lower_bound) {
          ++nontrivial;
          if (result.peak < best) ++strictly_better;
        }
        std::fflush(stdout);
      }
    }
  }
  std::printf("\n# ours <= best baseline on %d/%d graphs; strictly lower on %d of the %d where the best baseline is above LB\n",
              never_worse, graphs, strictly_better, nontrivial);

  std::printf("\n# time per method (ms); ours = search after the baselines; total = all baselines + ours;\n"
              "# build = validation + storage resolution; rss = process max RSS so far (MiB)\n");
  std::printf("%-28s", "graph");
  for (const char* name : kShort) std::printf(" %9s", name);
  std::printf(" %9s %9s %9s %8s\n", "ours", "total", "build", "rss");
  for (const TimeRow& row : times) {
    std::printf("%-28s", row.label.c_str());
    for (double ms : row.ms) std::printf(" %9.2f", ms);
    std::printf(" %9.2f %9.2f %9.2f %8.1f\n", row.ours_ms, row.total_ms, row.build_ms, row.rss_mib);
  }

  // Exact optimum on random 20-op graphs, 1 s each.
  const int count = quick ? 20 : 100;
  for (int32_t family : {tp::kFamilyRandomLayered, tp::kFamilyDiamond}) {
    int proved = 0;
    double worst_s = 0, total_s = 0;
    std::vector<double> gap_sum(tp::kBaselineCount + 1, 0), gap_max(tp::kBaselineCount + 1, 0);
    std::vector<int> at_optimum(tp::kBaselineCount + 1, 0);
    int32_t min_ops = INT32_MAX, max_ops_seen = 0;
    for (int seed = 1; seed <= count; ++seed) {
      tp::Graph graph = tp::make_graph_family(family, 20, 1000 + static_cast<uint64_t>(seed));
      tp::PlanningGraph pg;
      if (!tp::build_planning_graph(graph, &pg).is_ok()) return 1;
      min_ops = std::min(min_ops, pg.op_count());
      max_ops_seen = std::max(max_ops_seen, pg.op_count());
      tp::ScheduleOptions options;
      options.time_limit_s = 1.0;
      tp::ScheduleResult result;
      const double start = now_s();
      if (!tp::schedule_graph(pg, options, &result).is_ok()) return 1;
      const double took = now_s() - start;
      worst_s = std::max(worst_s, took);
      total_s += took;
      if (!result.proved_optimal) continue;
      ++proved;
      const double optimum = static_cast<double>(result.peak);
      for (int32_t m = 0; m <= tp::kBaselineCount; ++m) {
        // Index kBaselineCount: the best baseline.
        int64_t peak = INT64_MAX;
        if (m < tp::kBaselineCount) {
          peak = result.baseline_peaks[m];
        } else {
          for (int32_t b = 0; b < tp::kBaselineCount; ++b) peak = std::min(peak, result.baseline_peaks[b]);
        }
        const double gap = optimum > 0 ? static_cast<double>(peak) / optimum - 1.0 : 0.0;
        gap_sum[m] += gap;
        gap_max[m] = std::max(gap_max[m], gap);
        if (peak == result.peak) ++at_optimum[m];
      }
    }
    std::printf("\n# exact: %s graphs of %d-%d ops, 1 s limit each: proved optimal on %d/%d (%.0f%%); "
                "mean %.1f ms, worst %.1f ms\n",
                tp::graph_family_name(family), min_ops, max_ops_seen, proved, count, 100.0 * proved / count,
                1e3 * total_s / count, 1e3 * worst_s);
    std::printf("# gap to the optimum over the %d proved graphs (peak / optimum - 1):\n", proved);
    std::printf("%-12s %10s %10s %12s\n", "method", "mean gap", "max gap", "at optimum");
    for (int32_t m = 0; m <= tp::kBaselineCount; ++m) {
      std::printf("%-12s %9.2f%% %9.2f%% %7d/%d\n", m < tp::kBaselineCount ? kShort[m] : "best-basel.",
                  proved ? 100.0 * gap_sum[m] / proved : 0.0, 100.0 * gap_max[m], at_optimum[m], proved);
    }
    std::printf("%-12s %9.2f%% %9.2f%% %7d/%d\n", "ours", 0.0, 0.0, proved, proved);
  }
  return 0;
}
