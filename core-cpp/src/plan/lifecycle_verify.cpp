#include "plan/lifecycle_verify.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "liveness/liveness.h"

namespace tp {

Status verify_lifecycle(const PlanningGraph& pg, const std::vector<int32_t>& order,
                        const std::vector<TraceEvent>& trace, std::vector<LifecycleIssue>* out) {
  Liveness live;
  TP_RETURN_IF_ERROR(compute_liveness(pg, order, &live));
  const int32_t steps = live.step_count;
  const int32_t tensor_count = static_cast<int32_t>(pg.graph.tensors.size());
  using Event = std::tuple<int32_t, int32_t, int32_t>;  // (step, is_death, storage)
  std::set<Event> expected, traced;
  for (int32_t s = 0; s < pg.storage_count(); ++s) {
    const Storage& st = pg.storage.storages[s];
    if (live.birth[s] < 0 || st.persistent) continue;
    if (!st.graph_input) expected.insert(Event(live.birth[s], 0, s));
    if (!st.graph_output) expected.insert(Event(live.death[s], 1, s));
  }
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceEvent& e = trace[i];
    const std::string field = "trace[" + std::to_string(i) + "]";
    if (e.tensor < 0 || e.tensor >= tensor_count) {
      return Status::invalid(field + ".tensor = " + std::to_string(e.tensor) + ": unknown tensor (the graph has " +
                             std::to_string(tensor_count) + " tensors)");
    }
    if (e.step < 0 || e.step >= steps) {
      return Status::invalid(field + ".step = " + std::to_string(e.step) + ": outside the schedule's " +
                             std::to_string(steps) + " steps");
    }
    traced.insert(Event(e.step, e.birth ? 0 : 1, pg.storage.tensor_storage[e.tensor]));
  }
  std::vector<LifecycleIssue> issues;
  auto report = [&](const Event& e, bool missing) {
    LifecycleIssue issue;
    const bool death = std::get<1>(e) != 0;
    issue.kind = missing ? (death ? kMissingDeath : kMissingBirth) : (death ? kUnexpectedDeath : kUnexpectedBirth);
    issue.step = std::get<0>(e);
    issue.storage = std::get<2>(e);
    issue.tensor = pg.storage.storages[issue.storage].root_tensor;
    issues.push_back(issue);
  };
  for (const Event& e : expected) {
    if (!traced.count(e)) report(e, true);
  }
  for (const Event& e : traced) {
    if (!expected.count(e)) report(e, false);
  }
  std::stable_sort(issues.begin(), issues.end(), [](const LifecycleIssue& a, const LifecycleIssue& b) {
    return std::tie(a.step, a.kind, a.storage) < std::tie(b.step, b.kind, b.storage);
  });
  *out = std::move(issues);
  return Status::ok();
}

std::string describe_issue(const PlanningGraph& pg, const LifecycleIssue& issue) {
  static const char* kWords[] = {"missing birth", "unexpected birth", "missing death", "unexpected death"};
  const char* word = issue.kind >= 0 && issue.kind < 4 ? kWords[issue.kind] : "unknown issue";
  return std::string(word) + " of " + tensor_label(pg.graph, issue.tensor) + " at step " + std::to_string(issue.step);
}

}  // namespace tp
