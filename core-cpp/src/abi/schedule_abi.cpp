// tp_graph_schedule: an op order for a graph (schedule.h).
#include <string>
#include <vector>

#include "abi/graph_arrays.h"
#include "base/result.h"
#include "graph/graph_validate.h"
#include "schedule/schedule.h"
#include "tensorplan/c_api.h"

extern "C" tp_status tp_graph_schedule(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                                       int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                                       const int32_t* name_offsets, int32_t name_offsets_count, int32_t method,
                                       double time_limit_s, double work_limit, tp_result** out) {
  using namespace tp;
  PlanningGraph pg;
  ScheduleOptions options;
  options.started = Deadline::Clock::now();  // the time limit covers decoding the graph
  ScheduleResult schedule;
  Status status = decode_planning_graph(TP_GRAPH_ARGS, &pg);
  if (status.is_ok()) status = check_method_and_limit(method, time_limit_s, &options);
  if (status.is_ok()) status = to_byte_count(work_limit, "work_limit", &options.work_limit);
  if (status.is_ok()) status = schedule_graph(pg, options, &schedule);
  ResultBuilder result(TP_RESULT_SPEC(tp_graph_schedule));
  if (status.is_ok()) {
    result.add(schedule.order);
    result.add(std::vector<double>{static_cast<double>(schedule.peak), static_cast<double>(schedule.lower_bound),
                                   schedule.proved_optimal ? 1.0 : 0.0, static_cast<double>(schedule.chosen_baseline),
                                   schedule.search_seconds, static_cast<double>(schedule.exact_states)});
    std::vector<double> peaks(schedule.baseline_peaks.begin(), schedule.baseline_peaks.end());
    result.add(peaks);
    result.add(schedule.baseline_seconds);
  }
  return finish_call(status, &result, out);
}
