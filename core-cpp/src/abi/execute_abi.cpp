// tp_execute_reference: decode the graph, its op semantics, the placement and
// the inputs; run the reference executor; encode outputs, trace and stats.
#include <cmath>
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "abi/execute_abi.h"
#include "abi/graph_arrays.h"
#include "graph/graph_validate.h"
#include "execute/reference_executor.h"
#include "base/result.h"

namespace tp {
namespace {

Status decode_semantics(const PlanningGraph& pg, const int32_t* tensor_dtype, int32_t tensor_dtype_count,
                        const int32_t* shape_offsets, int32_t shape_offsets_count, const double* shape_dims,
                        int32_t shape_dims_count, const int32_t* op_codes, int32_t op_codes_count,
                        const int32_t* attr_offsets, int32_t attr_offsets_count, const double* attrs,
                        int32_t attrs_count, OpSemantics* s) {
  const int32_t T = static_cast<int32_t>(pg.graph.tensors.size());
  const int32_t N = pg.op_count();
  TP_RETURN_IF_ERROR(check_array_arg(op_codes, op_codes_count, "op_codes"));
  TP_RETURN_IF_ERROR(check_array_arg(attrs, attrs_count, "attributes"));
  TP_RETURN_IF_ERROR(decode_tensor_shapes(T, tensor_dtype, tensor_dtype_count, shape_offsets, shape_offsets_count,
                                          shape_dims, shape_dims_count, &s->tensor_dtype, &s->tensor_shape));
  if (op_codes_count != N) return Status::invalid("op_codes has " + std::to_string(op_codes_count) + " entries, the graph has " + std::to_string(N) + " ops");
  TP_RETURN_IF_ERROR(
      check_csr(attr_offsets, attr_offsets_count, N, attrs_count, "attribute_offsets", "attributes_count"));
  s->op_codes.assign(op_codes, op_codes + N);
  s->attributes.resize(static_cast<size_t>(N));
  for (int32_t i = 0; i < N; ++i) {
    for (int32_t k = attr_offsets[i]; k < attr_offsets[i + 1]; ++k) {
      if (!std::isfinite(attrs[k])) return Status::invalid("attributes[" + std::to_string(k) + "] = " + format_number(attrs[k]) + ": must be finite");
      s->attributes[static_cast<size_t>(i)].push_back(attrs[k]);
    }
  }
  return check_op_semantics(pg, *s);
}

}  // namespace

Status decode_execute_abi(TP_EXECUTE_ABI_PARAMS, PlanningGraph* pg, OpSemantics* sem, ExecRequest* req) {
  Graph graph;
  TP_RETURN_IF_ERROR(decode_graph_abi(graph_i32, graph_i32_count, graph_f64, graph_f64_count, names, names_length,
                                      name_offsets, name_offsets_count, &graph));
  TP_RETURN_IF_ERROR(build_planning_graph(graph, pg));
  TP_RETURN_IF_ERROR(decode_semantics(*pg, tensor_dtype, tensor_dtype_count, shape_offsets, shape_offsets_count,
                                      shape_dims, shape_dims_count, op_codes, op_codes_count, attribute_offsets,
                                      attribute_offsets_count, attributes, attributes_count, sem));
  TP_RETURN_IF_ERROR(check_array_arg(order, order_count, "order"));
  req->order.assign(order, order + order_count);
  // Bit 0: the memory mode; bit 1: run without the plan check (c_api.h).
  if (mode < 0 || mode > 3) {
    return Status::invalid("mode = " + std::to_string(mode) +
                           ": expected 0 (arena) or 1 (separate), plus 2 to skip the plan check");
  }
  req->mode = static_cast<ExecMode>(mode & 1);
  req->check_plan = (mode & 2) == 0;
  TP_RETURN_IF_ERROR(to_byte_count(arena_bytes, "arena_bytes", &req->arena_bytes));
  TP_RETURN_IF_ERROR(check_array_arg(storage_tensor, storage_count, "storage_tensor"));
  TP_RETURN_IF_ERROR(check_array_arg(storage_offset, storage_count, "storage_offset"));
  const int32_t T = static_cast<int32_t>(pg->graph.tensors.size());
  req->storage_offset.assign(static_cast<size_t>(pg->storage_count()), -1);
  std::vector<int32_t> placed_by(static_cast<size_t>(pg->storage_count()), -1);
  for (int32_t k = 0; k < storage_count; ++k) {
    const int32_t t = storage_tensor[k];
    if (t < 0 || t >= T) return Status::invalid("storage_tensor[" + std::to_string(k) + "] = " + std::to_string(t) + ": no such tensor");
    int64_t off = 0;
    TP_RETURN_IF_ERROR(to_byte_count(storage_offset[k], "storage_offset[" + std::to_string(k) + "]", &off));
    const size_t st = static_cast<size_t>(pg->storage.tensor_storage[static_cast<size_t>(t)]);
    // Two offsets for one storage: validation's STORAGE_DUPLICATE, refused
    // here because the request keeps one offset per storage.
    if (placed_by[st] >= 0) {
      return Status::invalid("the plan is invalid: plan storages " + std::to_string(placed_by[st]) + " and " +
                             std::to_string(k) + " are both the storage of " + tensor_label(pg->graph, t) +
                             " (STORAGE_DUPLICATE)");
    }
    placed_by[st] = k;
    req->storage_offset[st] = off;
  }
  TP_RETURN_IF_ERROR(check_array_arg(input_tensors, input_count, "input_tensors"));
  TP_RETURN_IF_ERROR(check_array_arg(input_offsets, input_count == 0 ? 0 : input_count + 1, "input_offsets"));
  TP_RETURN_IF_ERROR(check_array_arg(input_data, input_data_length, "input_data"));
  for (int32_t k = 0; k < input_count; ++k) {
    int64_t begin = 0, end = 0;
    TP_RETURN_IF_ERROR(to_byte_count(input_offsets[k], "input_offsets[" + std::to_string(k) + "]", &begin));
    TP_RETURN_IF_ERROR(to_byte_count(input_offsets[k + 1], "input_offsets[" + std::to_string(k + 1) + "]", &end));
    // input_offsets has no passed length (it is input_count + 1 long), but its
    // entries must be a CSR into input_data: non-decreasing, within its length.
    if (end < begin || end > input_data_length) {
      return Status::invalid("input_offsets[" + std::to_string(k + 1) + "] = " + std::to_string(end) +
                             ": must be in [input_offsets[" + std::to_string(k) + "] = " + std::to_string(begin) +
                             ", input_data_length = " + std::to_string(input_data_length) + "]");
    }
    req->input_tensors.push_back(input_tensors[k]);
    req->input_bytes.emplace_back(input_data + begin, input_data + end);
  }
  return Status::ok();
}

void encode_exec_result(ExecResult* res, ResultBuilder* result) {
  std::vector<double> offsets(res->output_offsets.begin(), res->output_offsets.end());
  std::vector<int32_t> steps, tensors, kinds;
  for (const TraceEvent& e : res->trace) {
    steps.push_back(e.step);
    tensors.push_back(e.tensor);
    kinds.push_back(e.birth ? TP_TRACE_ALLOC : TP_TRACE_FREE);
  }
  result->adopt(std::move(res->output_data));
  result->add(offsets);
  result->add(steps);
  result->add(tensors);
  result->add(kinds);
  result->add(std::vector<double>{static_cast<double>(res->stats.allocations), static_cast<double>(res->stats.peak_bytes)});
}

}  // namespace tp

extern "C" tp_status tp_execute_reference(TP_EXECUTE_ABI_PARAMS, tp_result** out) {
  using namespace tp;
  ResultBuilder result(TP_RESULT_SPEC(tp_execute_reference));
  auto run = [&]() -> Status {
    PlanningGraph pg;
    OpSemantics sem;
    ExecRequest req;
    TP_RETURN_IF_ERROR(decode_execute_abi(TP_EXECUTE_ABI_ARGS, &pg, &sem, &req));
    ExecResult res;
    TP_RETURN_IF_ERROR(execute_reference(pg, sem, req, &res));
    encode_exec_result(&res, &result);
    return Status::ok();
  };
  return finish_call(run(), &result, out);
}
