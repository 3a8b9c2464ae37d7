// tp_graph_in_place: the in-place rule (in_place_rule.h) through the C ABI.
#include <string>
#include <vector>

#include "tensorplan/c_api.h"
#include "formats/dtype.h"
#include "abi/graph_arrays.h"
#include "graph/graph_validate.h"
#include "graph/in_place_rule.h"
#include "base/result.h"

namespace tp {
namespace {

// Per tensor: its dtype code (-1: sized in bytes) and, for a dtype, its
// element count (an empty shape is a scalar: 1 element), from the shapes as
// every ABI call that takes them decodes them (decode_tensor_shapes).
Status decode_tensor_sizes(int32_t tensor_count, const int32_t* tensor_dtype, int32_t tensor_dtype_count,
                           const int32_t* shape_offsets, int32_t shape_offsets_count, const double* shape_dims,
                           int32_t shape_dims_count, InPlaceRequest* request) {
  std::vector<std::vector<int64_t>> shapes;
  TP_RETURN_IF_ERROR(decode_tensor_shapes(tensor_count, tensor_dtype, tensor_dtype_count, shape_offsets,
                                          shape_offsets_count, shape_dims, shape_dims_count, &request->dtype, &shapes));
  request->elements.assign(static_cast<size_t>(tensor_count), 0);
  for (int32_t t = 0; t < tensor_count; ++t) {
    const int32_t code = request->dtype[static_cast<size_t>(t)];
    if (code == -1) continue;
    if (!is_valid_dtype_code(code)) {
      return Status::invalid("tensor_dtype[" + std::to_string(t) + "] = " + std::to_string(code) +
                             ": must be a dtype code or -1 (sized in bytes)");
    }
    int64_t elements = 1;
    for (int64_t dim : shapes[static_cast<size_t>(t)]) {
      TP_RETURN_IF_ERROR(checked_mul(elements, dim, "element count of tensors[" + std::to_string(t) + "]", &elements));
    }
    request->elements[static_cast<size_t>(t)] = elements;
  }
  return Status::ok();
}

Status decode_request(const Graph& graph, const uint8_t* candidates, int32_t candidate_count, const int32_t* pinned,
                      int32_t pinned_count, InPlaceRequest* request) {
  TP_RETURN_IF_ERROR(check_array_arg(candidates, candidate_count, "candidates"));
  TP_RETURN_IF_ERROR(check_array_arg(pinned, pinned_count, "pinned"));
  if (candidate_count != static_cast<int32_t>(graph.ops.size())) {
    return Status::invalid("candidate_count = " + std::to_string(candidate_count) + ": expected N = " +
                           std::to_string(graph.ops.size()));
  }
  for (int32_t k = 0; k < candidate_count; ++k) {
    if (candidates[k] > 1) {
      return Status::invalid("candidates[" + std::to_string(k) + "] = " + std::to_string(candidates[k]) + ": must be 0 or 1");
    }
  }
  request->candidate.assign(candidates, candidates + candidate_count);
  request->pinned.assign(pinned, pinned + pinned_count);
  return Status::ok();
}

}  // namespace
}  // namespace tp

extern "C" tp_status tp_graph_in_place(const int32_t* graph_i32, int32_t graph_i32_count, const double* graph_f64,
                                       int32_t graph_f64_count, const uint8_t* names, int32_t names_length,
                                       const int32_t* name_offsets, int32_t name_offsets_count,
                                       const uint8_t* candidates, int32_t candidate_count, const int32_t* pinned,
                                       int32_t pinned_count, const int32_t* tensor_dtype, int32_t tensor_dtype_count,
                                       const int32_t* shape_offsets, int32_t shape_offsets_count,
                                       const double* shape_dims, int32_t shape_dims_count, tp_result** out) {
  using namespace tp;
  Graph graph;
  PlanningGraph pg;
  InPlaceRequest request;
  InPlaceDecision decision;
  Status status = decode_graph_abi(graph_i32, graph_i32_count, graph_f64, graph_f64_count, names, names_length,
                                   name_offsets, name_offsets_count, &graph);
  if (status.is_ok()) status = build_planning_graph(graph, &pg);
  if (status.is_ok()) status = decode_request(pg.graph, candidates, candidate_count, pinned, pinned_count, &request);
  if (status.is_ok()) {
    status = decode_tensor_sizes(static_cast<int32_t>(pg.graph.tensors.size()), tensor_dtype, tensor_dtype_count,
                                 shape_offsets, shape_offsets_count, shape_dims, shape_dims_count, &request);
  }
  if (status.is_ok()) status = decide_in_place(pg, request, &decision);
  ResultBuilder result(TP_RESULT_SPEC(tp_graph_in_place));
  if (status.is_ok()) {
    std::vector<int32_t> offsets{0}, after;
    for (const std::vector<int32_t>& list : decision.after) {
      after.insert(after.end(), list.begin(), list.end());
      offsets.push_back(static_cast<int32_t>(after.size()));
    }
    result.add(decision.input);
    result.add(offsets);
    result.add(after);
  }
  return finish_call(status, &result, out);
}
