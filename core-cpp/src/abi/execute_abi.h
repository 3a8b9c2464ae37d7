// The flat-array form of an execution request (c_api.h "execution"), shared
// by tp_execute_reference and the addon's CUDA execute, so both decode the
// same bytes the same way.
#ifndef TENSORPLAN_EXECUTE_ABI_H
#define TENSORPLAN_EXECUTE_ABI_H

#include <cstdint>

#include "graph/planning_graph.h"
#include "execute/reference_executor.h"
#include "base/result.h"
#include "base/status.h"

#define TP_EXECUTE_ABI_PARAMS                                                                                          \
  const int32_t *graph_i32, int32_t graph_i32_count, const double *graph_f64, int32_t graph_f64_count,               \
      const uint8_t *names, int32_t names_length, const int32_t *name_offsets, int32_t name_offsets_count,           \
      const int32_t *order, int32_t order_count, const int32_t *tensor_dtype, int32_t tensor_dtype_count,            \
      const int32_t *shape_offsets, int32_t shape_offsets_count, const double *shape_dims, int32_t shape_dims_count, \
      const int32_t *op_codes, int32_t op_codes_count, const int32_t *attribute_offsets,                            \
      int32_t attribute_offsets_count, const double *attributes, int32_t attributes_count,                          \
      const int32_t *storage_tensor, const double *storage_offset, int32_t storage_count, double arena_bytes,        \
      int32_t mode, const int32_t *input_tensors, const double *input_offsets, int32_t input_count,                 \
      const uint8_t *input_data, int32_t input_data_length
#define TP_EXECUTE_ABI_ARGS                                                                                      \
  graph_i32, graph_i32_count, graph_f64, graph_f64_count, names, names_length, name_offsets, name_offsets_count, \
      order, order_count, tensor_dtype, tensor_dtype_count, shape_offsets, shape_offsets_count, shape_dims,      \
      shape_dims_count, op_codes, op_codes_count, attribute_offsets, attribute_offsets_count, attributes,        \
      attributes_count, storage_tensor, storage_offset, storage_count, arena_bytes, mode, input_tensors,         \
      input_offsets, input_count, input_data, input_data_length

namespace tp {

Status decode_execute_abi(TP_EXECUTE_ABI_PARAMS, PlanningGraph* pg, OpSemantics* semantics, ExecRequest* request);

// Result arrays of tp_execute_reference: outputs, output offsets, trace
// steps, tensors, kinds, stats {allocations, peak bytes}. The output bytes
// move into the result (no copy).
void encode_exec_result(ExecResult* result, ResultBuilder* builder);

}  // namespace tp

#endif  // TENSORPLAN_EXECUTE_ABI_H
