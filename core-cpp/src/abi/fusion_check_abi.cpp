// tp_fusion_check: whether fusing ops keeps the graph acyclic and its peak (fusion_check.h).
#include <string>
#include <vector>

#include "abi/graph_arrays.h"
#include "base/result.h"
#include "graph/graph_validate.h"
#include "schedule/fusion_check.h"
#include "tensorplan/c_api.h"

extern "C" tp_status tp_fusion_check(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                                     int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                                     const int32_t* name_offsets, int32_t name_offsets_count, const int32_t* fused_ops,
                                     int32_t fused_count, double max_read_bytes, int32_t method, double time_limit_s,
                                     tp_result** out) {
  using namespace tp;
  PlanningGraph pg;
  FusionLimits limits;
  std::vector<int32_t> ops;
  FusionCheck check;
  Status status = decode_planning_graph(TP_GRAPH_ARGS, &pg);
  if (status.is_ok()) status = check_array_arg(fused_ops, fused_count, "fused_ops");
  if (status.is_ok()) {
    ops.assign(fused_ops, fused_ops + fused_count);
    status = to_byte_count(max_read_bytes, "max_read_bytes", &limits.max_read_bytes);
  }
  if (status.is_ok()) status = check_method_and_limit(method, time_limit_s, &limits.schedule);
  if (status.is_ok()) status = check_fusion(pg, ops, limits, &check);
  ResultBuilder result(TP_RESULT_SPEC(tp_fusion_check));
  if (status.is_ok()) {
    result.add(std::vector<uint8_t>{static_cast<uint8_t>(check.accepted), static_cast<uint8_t>(check.creates_cycle),
                                    static_cast<uint8_t>(check.raises_peak), static_cast<uint8_t>(check.reads_too_large)});
    result.add(std::vector<double>{static_cast<double>(check.peak_before), static_cast<double>(check.peak_after),
                                   static_cast<double>(check.read_bytes), static_cast<double>(check.fused_step_bytes)});
  }
  return finish_call(status, &result, out);
}
