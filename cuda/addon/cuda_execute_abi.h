// The CUDA executor through the execution ABI (c_api.h "execution"): the
// parameters of tp_execute_reference, decoded by the same decoder
// (execute_abi.h), and its result arrays. scripts/gen-native-abi.mjs parses
// this header like c_api.h and emits the addon's wrappers: cuda_execute is
// an asynchronous one (a promise, the GPU work on a worker thread).
#ifndef TENSORPLAN_CUDA_EXECUTE_ABI_H
#define TENSORPLAN_CUDA_EXECUTE_ABI_H

#include "execute/cuda_executor.h"
#include "tensorplan/c_api.h"

/* Runs the plan with the CUDA executor in `arena` (NULL: one device
 * allocation made for the call). Its result arrays are tp_execute_reference's
 * (the same encoder writes them). */
#define TP_RESULT_FIELDS_tp_cuda_execute(X) \
  X(U8, outputs)         /* bytes of every graph output, concatenated */ \
  X(F64, output_offsets) /* [O+1] */ \
  X(I32, trace_steps)    /* [E] lifecycle trace as tp_verify_trace takes it */ \
  X(I32, trace_tensors)  /* [E] */ \
  X(I32, trace_kinds)    /* [E] TP_TRACE_EVENT_LIST */ \
  X(F64, stats)          /* [2] {allocations made, peak bytes allocated} */
TP_API tp_status tp_cuda_execute(const int32_t* graph_i32, int32_t graph_i32_count,
                                  const double* graph_f64, int32_t graph_f64_count,
                                  const uint8_t* names, int32_t names_length,
                                  const int32_t* name_offsets, int32_t name_offsets_count,
                                  const int32_t* order, int32_t order_count,
                                  const int32_t* tensor_dtype, int32_t tensor_dtype_count,
                                  const int32_t* shape_offsets, int32_t shape_offsets_count,
                                  const double* shape_dims, int32_t shape_dims_count,
                                  const int32_t* op_codes, int32_t op_codes_count,
                                  const int32_t* attribute_offsets, int32_t attribute_offsets_count,
                                  const double* attributes, int32_t attributes_count,
                                  const int32_t* storage_tensor, const double* storage_offset,
                                  int32_t storage_count, double arena_bytes, int32_t mode,
                                  const int32_t* input_tensors, const double* input_offsets,
                                  int32_t input_count, const uint8_t* input_data,
                                  int32_t input_data_length, tpc::DeviceArena* arena, tp_result** out);

/* Bytes of the one device allocation the plan needs (its arena, then its
 * persistent tensors). */
#define TP_RESULT_FIELDS_tp_cuda_plan_device_bytes(X) \
  X(F64, bytes) /* [1] */
TP_API tp_status tp_cuda_plan_device_bytes(const int32_t* graph_i32, int32_t graph_i32_count,
                                       const double* graph_f64, int32_t graph_f64_count,
                                       const uint8_t* names, int32_t names_length,
                                       const int32_t* name_offsets, int32_t name_offsets_count,
                                       const int32_t* order, int32_t order_count,
                                       const int32_t* tensor_dtype, int32_t tensor_dtype_count,
                                       const int32_t* shape_offsets, int32_t shape_offsets_count,
                                       const double* shape_dims, int32_t shape_dims_count,
                                       const int32_t* op_codes, int32_t op_codes_count,
                                       const int32_t* attribute_offsets, int32_t attribute_offsets_count,
                                       const double* attributes, int32_t attributes_count,
                                       const int32_t* storage_tensor, const double* storage_offset,
                                       int32_t storage_count, double arena_bytes, int32_t mode,
                                       const int32_t* input_tensors, const double* input_offsets,
                                       int32_t input_count, const uint8_t* input_data,
                                       int32_t input_data_length, tp_result** out);

#endif  // TENSORPLAN_CUDA_EXECUTE_ABI_H
