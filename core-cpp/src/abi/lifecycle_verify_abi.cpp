// tp_verify_trace: an executor's allocation trace checked against the plan (lifecycle_verify.h).
#include <string>
#include <vector>

#include "abi/graph_arrays.h"
#include "base/result.h"
#include "graph/graph_validate.h"
#include "plan/lifecycle_verify.h"
#include "tensorplan/c_api.h"

extern "C" tp_status tp_verify_trace(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                                     int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                                     const int32_t* name_offsets, int32_t name_offsets_count, const int32_t* order,
                                     int32_t order_count, const int32_t* trace_steps, const int32_t* trace_tensors,
                                     const int32_t* trace_kinds, int32_t trace_count, tp_result** out) {
  using namespace tp;
  PlanningGraph pg;
  std::vector<int32_t> steps;
  std::vector<TraceEvent> trace;
  std::vector<LifecycleIssue> issues;
  Status status = decode_planning_graph(TP_GRAPH_ARGS, &pg);
  if (status.is_ok()) status = decode_order(order, order_count, &steps);
  if (status.is_ok()) status = check_array_arg(trace_steps, trace_count, "trace_steps");
  if (status.is_ok()) status = check_array_arg(trace_tensors, trace_count, "trace_tensors");
  if (status.is_ok()) status = check_array_arg(trace_kinds, trace_count, "trace_kinds");
  for (int32_t k = 0; status.is_ok() && k < trace_count; ++k) {
    if (trace_kinds[k] != TP_TRACE_ALLOC && trace_kinds[k] != TP_TRACE_FREE) {
      status = Status::invalid("trace_kinds[" + std::to_string(k) + "] = " + std::to_string(trace_kinds[k]) +
                               ": must be 0 (allocated) or 1 (freed)");
      break;
    }
    trace.push_back(TraceEvent{trace_steps[k], trace_tensors[k], trace_kinds[k] == TP_TRACE_ALLOC});
  }
  if (status.is_ok()) status = verify_lifecycle(pg, steps, trace, &issues);
  ResultBuilder result(TP_RESULT_SPEC(tp_verify_trace));
  if (status.is_ok()) {
    std::vector<int32_t> kinds, storages, tensors, at;
    std::string report;
    for (const LifecycleIssue& issue : issues) {
      kinds.push_back(issue.kind);
      storages.push_back(issue.storage);
      tensors.push_back(issue.tensor);
      at.push_back(issue.step);
      report += describe_issue(pg, issue) + "\n";
    }
    result.add(kinds);
    result.add(storages);
    result.add(tensors);
    result.add(at);
    result.add_text(report);
  }
  return finish_call(status, &result, out);
}
