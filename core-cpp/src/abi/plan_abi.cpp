// tp_plan_place and tp_plan_validate: decode the graph and the plan's flat
// arrays, run plan_arena / validate_plan, encode the results.
#include <cmath>
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "abi/graph_arrays.h"
#include "graph/graph_validate.h"
#include "plan/plan_arena.h"
#include "plan/plan_validate.h"
#include "base/result.h"

namespace tp {
namespace {

#define TP_PLAN_GRAPH_PARAMS                                                                               \
  const int32_t *graph_i32, int32_t graph_i32_count, const double *graph_f64, int32_t graph_f64_count, \
      const uint8_t *names, int32_t names_length, const int32_t *name_offsets, int32_t name_offsets_count
#define TP_PLAN_GRAPH_ARGS graph_i32, graph_i32_count, graph_f64, graph_f64_count, names, names_length, name_offsets, name_offsets_count

Status decode_place_options(int32_t algorithm, double capacity, double time_limit_s, int32_t minimize,
                            PlaceOptions* options) {
  if (algorithm < 0 || algorithm > 4) {
    return Status::invalid("algorithm = " + std::to_string(algorithm) + ": expected 0 (auto) to 4 (first fit)");
  }
  // -1 = none (PlaceOptions' 0); a plan's arena has no "fits in 0 bytes"
  // answer to give (tp_plan_place reports no feasibility), so 0 is refused.
  if (capacity == -1) {
    options->capacity = 0;
  } else {
    TP_RETURN_IF_ERROR(to_byte_count(capacity, "capacity", &options->capacity));
    if (options->capacity == 0) return Status::invalid("capacity = 0: expected -1 (none) or a positive number of bytes");
  }
  if (!std::isfinite(time_limit_s)) return Status::invalid("time_limit_s = " + format_number(time_limit_s) + ": must be finite");
  options->algorithm = static_cast<PlaceAlgorithm>(algorithm);
  options->time_limit_seconds = time_limit_s;
  options->minimize = minimize != 0;
  return Status::ok();
}

std::vector<double> to_doubles(const std::vector<int64_t>& values) {
  return std::vector<double>(values.begin(), values.end());
}

Status plan_place(TP_PLAN_GRAPH_PARAMS, const int32_t* order, int32_t order_count, const PlaceOptions& options,
                  bool with_baselines, ResultBuilder* result) {
  Graph graph;
  TP_RETURN_IF_ERROR(decode_graph_abi(TP_PLAN_GRAPH_ARGS, &graph));
  PlanningGraph pg;
  TP_RETURN_IF_ERROR(build_planning_graph(graph, &pg));
  TP_RETURN_IF_ERROR(check_array_arg(order, order_count, "order"));
  const std::vector<int32_t> schedule(order, order + order_count);
  TP_RETURN_IF_ERROR(check_schedule(pg, schedule));
  ArenaPlan plan;
  TP_RETURN_IF_ERROR(plan_arena(pg, schedule, options, with_baselines, &plan));

  const size_t storage_count = pg.storage.storages.size();
  std::vector<double> bytes(storage_count);
  std::vector<int32_t> roots(storage_count);
  std::vector<uint8_t> flags(storage_count);
  for (size_t s = 0; s < storage_count; ++s) {
    const Storage& storage = pg.storage.storages[s];
    bytes[s] = static_cast<double>(storage.aligned_bytes);
    roots[s] = storage.root_tensor;
    flags[s] = static_cast<uint8_t>(
        (storage.graph_input ? TP_STORAGE_GRAPH_INPUT : 0) | (storage.graph_output ? TP_STORAGE_GRAPH_OUTPUT : 0) |
        (storage.persistent ? TP_STORAGE_PERSISTENT : 0) | (storage.group >= 0 ? TP_STORAGE_GROUP : 0));
  }
  std::vector<double> workspace_bytes(pg.op_workspace.begin(), pg.op_workspace.end());
  std::vector<int32_t> peak_storages;
  for (const LiveEntry& entry : plan.liveness.peak_live) peak_storages.push_back(entry.storage);
  const Placement& p = plan.placement;
  result->add(to_doubles(plan.storage_offsets));
  result->add(plan.liveness.birth);
  result->add(plan.liveness.death);
  result->add(bytes);
  result->add(roots);
  result->add(flags);
  result->add(plan.producer_op);
  result->add(plan.last_op);
  result->add(to_doubles(plan.workspace_offsets));
  result->add(workspace_bytes);
  result->add(to_doubles(plan.liveness.live_bytes));
  result->add(pg.storage.tensor_storage);
  result->add(to_doubles(pg.storage.tensor_offset));
  result->add(peak_storages);
  result->add(std::vector<double>{static_cast<double>(p.height), static_cast<double>(p.lower_bound),
                                  p.proved_optimal ? 1.0 : 0.0, static_cast<double>(plan.liveness.peak_step),
                                  static_cast<double>(plan.liveness.persistent_bytes), p.stats.seconds,
                                  static_cast<double>(p.stats.nodes), static_cast<double>(p.stats.method),
                                  static_cast<double>(p.stats.best_baseline_height),
                                  static_cast<double>(p.proved_lower_bound), p.stats.timed_out ? 1.0 : 0.0});
  result->add(to_doubles(plan.baseline_heights));
  return Status::ok();
}

Status decode_count(double value, const std::string& field, int64_t* out) {
  if (value == -1) {
    *out = -1;
    return Status::ok();
  }
  return to_byte_count(value, field, out);
}

Status decode_stated_plan(const int32_t* order, int32_t order_count, const int32_t* storage_tensor,
                          const double* storage_offset, const double* storage_bytes, const int32_t* storage_birth,
                          const int32_t* storage_death, int32_t storage_count, const double* workspace_offset,
                          int32_t workspace_count, const double* stated, int32_t stated_count, StatedPlan* plan) {
  TP_RETURN_IF_ERROR(check_array_arg(order, order_count, "order"));
  TP_RETURN_IF_ERROR(check_array_arg(storage_tensor, storage_count, "storage_tensor"));
  TP_RETURN_IF_ERROR(check_array_arg(storage_offset, storage_count, "storage_offset"));
  TP_RETURN_IF_ERROR(check_array_arg(storage_bytes, storage_count, "storage_bytes"));
  TP_RETURN_IF_ERROR(check_array_arg(storage_birth, storage_count, "storage_birth"));
  TP_RETURN_IF_ERROR(check_array_arg(storage_death, storage_count, "storage_death"));
  TP_RETURN_IF_ERROR(check_array_arg(workspace_offset, workspace_count, "workspace_offset"));
  if (stated_count < 1 || stated_count > 3 || stated == nullptr) {
    return Status::invalid("stated_count = " + std::to_string(stated_count) + ": expected 1 to 3 values (arena, peak, lower bound)");
  }
  plan->order.assign(order, order + order_count);
  plan->storages.resize(static_cast<size_t>(storage_count));
  for (int32_t k = 0; k < storage_count; ++k) {
    StatedStorage& s = plan->storages[static_cast<size_t>(k)];
    const std::string field = "storages[" + std::to_string(k) + "]";
    s.tensor = storage_tensor[k];
    // Offsets may be negative in a broken plan: that is a diagnostic, not a bad request.
    if (!std::isfinite(storage_offset[k]) || storage_offset[k] != std::floor(storage_offset[k]) ||
        std::fabs(storage_offset[k]) > static_cast<double>(kMaxExactInteger)) {
      return Status::invalid(field + ".offset = " + format_number(storage_offset[k]) + ": must be an integer within ±2^53");
    }
    s.offset = static_cast<int64_t>(storage_offset[k]);
    TP_RETURN_IF_ERROR(to_byte_count(storage_bytes[k], field + ".bytes", &s.bytes));
    s.birth = storage_birth[k];
    s.death = storage_death[k];
  }
  plan->workspace_offsets.assign(static_cast<size_t>(workspace_count), -1);
  for (int32_t op = 0; op < workspace_count; ++op) {
    TP_RETURN_IF_ERROR(decode_count(workspace_offset[op], "workspace_offset[" + std::to_string(op) + "]",
                                    &plan->workspace_offsets[static_cast<size_t>(op)]));
  }
  TP_RETURN_IF_ERROR(to_byte_count(stated[0], "arena bytes", &plan->arena_bytes));
  if (stated_count > 1) TP_RETURN_IF_ERROR(decode_count(stated[1], "peak bytes", &plan->peak_bytes));
  if (stated_count > 2) TP_RETURN_IF_ERROR(decode_count(stated[2], "lower bound bytes", &plan->lower_bound_bytes));
  return Status::ok();
}

}  // namespace
}  // namespace tp

extern "C" tp_status tp_plan_place(TP_PLAN_GRAPH_PARAMS, const int32_t* order, int32_t order_count, int32_t algorithm,
                                   double capacity, double time_limit_s, int32_t minimize, int32_t with_baselines,
                                   tp_result** out) {
  using namespace tp;
  ResultBuilder result(TP_RESULT_SPEC(tp_plan_place));
  PlaceOptions options;
  Status status = decode_place_options(algorithm, capacity, time_limit_s, minimize, &options);
  if (status.is_ok()) status = plan_place(TP_PLAN_GRAPH_ARGS, order, order_count, options, with_baselines != 0, &result);
  return finish_call(status, &result, out);
}

extern "C" tp_status tp_plan_validate(TP_PLAN_GRAPH_PARAMS, const int32_t* order, int32_t order_count,
                                      const int32_t* storage_tensor, const double* storage_offset,
                                      const double* storage_bytes, const int32_t* storage_birth,
                                      const int32_t* storage_death, int32_t storage_count,
                                      const double* workspace_offset, int32_t workspace_count, const double* stated,
                                      int32_t stated_count, tp_result** out) {
  using namespace tp;
  Graph graph;
  StatedPlan plan;
  std::vector<Diagnostic> diagnostics;
  Status status = decode_graph_abi(TP_PLAN_GRAPH_ARGS, &graph);
  if (status.is_ok()) {
    status = decode_stated_plan(order, order_count, storage_tensor, storage_offset, storage_bytes, storage_birth,
                                storage_death, storage_count, workspace_offset, workspace_count, stated, stated_count, &plan);
  }
  if (status.is_ok()) status = validate_plan(graph, plan, &diagnostics);
  ResultBuilder result(TP_RESULT_SPEC(tp_plan_validate));
  if (status.is_ok()) {
    std::vector<int32_t> codes, storages, others, ops, steps;
    std::vector<std::string> messages;
    for (const Diagnostic& d : diagnostics) {
      codes.push_back(static_cast<int32_t>(d.code));
      storages.push_back(d.storage);
      others.push_back(d.other_storage);
      ops.push_back(d.op);
      steps.push_back(d.step);
      messages.push_back(d.message);
    }
    result.add(codes);
    result.add(storages);
    result.add(others);
    result.add(ops);
    result.add(steps);
    result.add_text_list(messages);
  }
  return finish_call(status, &result, out);
}
