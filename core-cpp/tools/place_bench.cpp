// Benchmarks placement on every CSV under a directory (MiniMalloc format):
//   place_bench DIR [--time-limit S] [--fast] [--capacity-from-name]
// One row per file: n, LB, each method's height / LB, whether tensorplan's
// solver proved its answer optimal ("not proved" otherwise, with the proved
// bound and the best height in the line below), the milliseconds of each
// method, when ours first reached its height ("best ms"), and why it
// stopped: "proved", "limit" (the time limit) or "stalled" (minimize's stall
// rule: nothing moved for its share of the limit).
// By default tensorplan's solver minimises (proving when it can); --fast runs
// it without minimize, as plan() would by default.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "dsa_csv.h"
#include "placement/placement.h"

namespace {

struct Run {
  tp::Placement placement;
  double ms = 0;
  double cpu_ms = 0;  // process CPU time: robust when the machine is shared
  bool ok = false;
};

Run run(const std::vector<tp::PlaceBuffer>& buffers, tp::PlaceAlgorithm algorithm, double time_limit, bool minimize,
        int64_t capacity = 0) {
  tp::PlaceOptions options;
  options.capacity = capacity;
  options.algorithm = algorithm;
  options.time_limit_seconds = time_limit;
  options.minimize = minimize;
  Run r;
  const std::clock_t cpu_start = std::clock();
  tp::Status status = tp::place(buffers, options, &r.placement);
  r.cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  r.ok = status.is_ok();
  if (!r.ok) std::fprintf(stderr, "error: %s\n", status.message().c_str());
  r.ms = r.placement.stats.seconds * 1000.0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: %s DIR [--time-limit S] [--fast] [--capacity-from-name]\n";
  // A DIR that looks like an option (--help, a misplaced flag) is refused
  // rather than searched for files.
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, usage, argv[0]);
    return 2;
  }
  double time_limit = 10.0;
  bool minimize = true;
  bool capacity_from_name = false;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--time-limit") == 0) {
      // A limit that does not parse would otherwise be read as 0: no limit
      // at all, and a minimize that may run for hours.
      char* end = nullptr;
      const double seconds = i + 1 < argc ? std::strtod(argv[i + 1], &end) : 0;
      if (i + 1 >= argc || end == argv[i + 1] || *end != '\0' || !std::isfinite(seconds) || seconds <= 0) {
        std::fprintf(stderr, "--time-limit: \"%s\" is not a finite positive number of seconds\n", i + 1 < argc ? argv[i + 1] : "");
        return 2;
      }
      time_limit = seconds;
      ++i;
    } else if (std::strcmp(argv[i], "--fast") == 0) {
      minimize = false;
    } else if (std::strcmp(argv[i], "--capacity-from-name") == 0) {
      capacity_from_name = true;
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      std::fprintf(stderr, usage, argv[0]);
      return 2;
    }
  }
  std::vector<std::string> files;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(argv[1], error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_regular_file() && it->path().extension() == ".csv") files.push_back(it->path().string());
  }
  if (error) {
    std::fprintf(stderr, "cannot read %s: %s\n", argv[1], error.message().c_str());
    return 2;
  }
  std::sort(files.begin(), files.end());
  std::printf("%-40s %7s %14s %9s %9s %9s %9s %10s %9s %9s %9s %10s %10s %10s %8s %s\n", "file", "n", "LB", "greedy",
              "xla-best", "first-fit", "ours", "proved", "greedy ms", "xla ms", "ff ms", "ours ms", "ours cpu", "best ms",
              "stop", "method/nodes");
  double total_ours_ms = 0, total_ours_cpu_ms = 0;
  for (const std::string& path : files) {
    std::vector<tp::PlaceBuffer> buffers;
    const std::string problem = tp_tools::read_dsa_csv(path, &buffers);
    if (!problem.empty()) {
      std::fprintf(stderr, "%s\n", problem.c_str());
      continue;
    }
    const Run greedy = run(buffers, tp::PlaceAlgorithm::kGreedySize, time_limit, false);
    const Run xla = run(buffers, tp::PlaceAlgorithm::kXlaBest, time_limit, false);
    const Run first_fit = run(buffers, tp::PlaceAlgorithm::kFirstFit, time_limit, false);
    // "A.1048576.csv": decision mode at the capacity in the name.
    int64_t capacity = 0;
    if (capacity_from_name) {
      const std::string stem = std::filesystem::path(path).stem().string();
      const size_t dot = stem.find('.');
      if (dot != std::string::npos) capacity = std::atoll(stem.c_str() + dot + 1);
    }
    const Run ours = run(buffers, tp::PlaceAlgorithm::kOurs, time_limit, minimize, capacity);
    if (!greedy.ok || !xla.ok || !first_fit.ok || !ours.ok) continue;
    total_ours_ms += ours.ms;
    total_ours_cpu_ms += ours.cpu_ms;
    const double lb = static_cast<double>(std::max<int64_t>(1, ours.placement.lower_bound));
    std::string name = std::filesystem::path(path).parent_path().filename().string() + "/" +
                       std::filesystem::path(path).filename().string();
    const tp::Placement& p = ours.placement;
    const char* stop = p.proved_optimal || p.proved_infeasible ? "proved"
                       : p.stats.stalled                       ? "stalled"
                       : p.stats.timed_out                     ? "limit"
                                                               : "done";
    std::printf("%-40s %7zu %14lld %9.4f %9.4f %9.4f %9.5f %10s %9.1f %9.1f %9.1f %10.1f %10.1f %10.1f %8s %s/%lld\n",
                name.c_str(), buffers.size(), static_cast<long long>(p.lower_bound),
                static_cast<double>(greedy.placement.height) / lb, static_cast<double>(xla.placement.height) / lb,
                static_cast<double>(first_fit.placement.height) / lb, static_cast<double>(p.height) / lb,
                p.proved_optimal ? "yes" : "not proved", greedy.ms, xla.ms, first_fit.ms, ours.ms, ours.cpu_ms,
                p.stats.seconds_to_best * 1000.0, stop, tp::place_method_name(p.stats.method),
                static_cast<long long>(p.stats.nodes));
    std::printf("%-40s bound %lld, best %lld, %s; best baseline %lld\n", "", static_cast<long long>(p.proved_lower_bound),
                static_cast<long long>(p.height), p.proved_optimal ? "proved optimal" : "not proved",
                static_cast<long long>(std::min({greedy.placement.height, xla.placement.height, first_fit.placement.height})));
    std::fflush(stdout);
  }
  std::printf("total ours ms: %.1f (cpu %.1f)\n", total_ours_ms, total_ours_cpu_ms);
  return 0;
}
