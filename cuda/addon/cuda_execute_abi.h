// The CUDA executor through the execution ABI (c_api.h "execution"): the
// parameters of tp_execute_reference, decoded by the same decoder
// (execute_abi.h), and its result arrays. scripts/gen-native-abi.mjs parses
// this header like c_api.h and emits the addon's wrappers: cuda_execute is
// an asynchronous one (a promise, the GPU work on a worker thread).
#ifndef TENSORPLAN_CUDA_EXECUTE_ABI_H
#define TENSORPLAN_CUDA_EXECUTE_ABI_H

#include "abi/execute_abi.h"
#include "execute/cuda_executor.h"
#include "tensorplan/c_api.h"

/* Both take exactly tp_execute_reference's parameters (TP_EXECUTE_ABI_PARAMS
 * is the macro tp_execute_reference is defined with, so the compiler holds
 * them equal); scripts/gen-native-abi.mjs reads that list from c_api.h. */

/* Runs the plan with the CUDA executor in `arena` (NULL: one device
 * allocation made for the call). Its result arrays are tp_execute_reference's
 * (the same encoder writes them). */
#define TP_RESULT_FIELDS_tp_cuda_execute(X) TP_RESULT_FIELDS_tp_execute_reference(X)
TP_API tp_status tp_cuda_execute(TP_EXECUTE_ABI_PARAMS, tpc::DeviceArena* arena, tp_result** out);

/* Bytes of the one device allocation the plan needs (its arena, then its
 * persistent tensors). */
#define TP_RESULT_FIELDS_tp_cuda_plan_device_bytes(X) \
  X(F64, bytes) /* [1] */
TP_API tp_status tp_cuda_plan_device_bytes(TP_EXECUTE_ABI_PARAMS, tp_result** out);

#endif  // TENSORPLAN_CUDA_EXECUTE_ABI_H
