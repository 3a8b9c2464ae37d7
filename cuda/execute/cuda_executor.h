// The CUDA executor (docs/op-set.md "CUDA"): runs a plan on device 0 in ONE
// device allocation (the plan's arena, followed by the persistent tensors)
// on one stream, with kernels for the whole op set. It is a device of the
// core's one executor loop (tensorplan/execute_lifecycle.h), so its trace,
// stats and errors are the reference executor's. Built from cuda_executor.cu
// where nvcc exists; cuda_executor_stub.cpp otherwise (every call then fails
// with the reason).
#ifndef TENSORPLAN_CUDA_EXECUTOR_H
#define TENSORPLAN_CUDA_EXECUTOR_H

#include <cstdint>

#include "execute/execute_lifecycle.h"
#include "base/status.h"

namespace tpc {

// One device allocation and one stream. Reusable across executions of plans
// that fit in it.
struct DeviceArena;

tp::Status arena_create(int64_t bytes, DeviceArena** out);
void arena_destroy(DeviceArena* arena);
int64_t arena_size(const DeviceArena* arena);

// Device bytes a plan needs in one allocation: the arena, then every
// persistent storage at a 256-byte aligned offset after it.
int64_t plan_device_bytes(const tp::PlanningGraph& pg, int64_t arena_bytes);

// cudaMalloc calls the executor made since the process started (tests check
// "exactly one device allocation per plan" with it).
int64_t device_allocation_count();

// Executes like tp::execute_reference. kArena: in `arena` (or, when null, in
// one allocation made for this call and freed after it). kSeparate: one
// cudaMalloc per storage at its birth and cudaFree at its death (the
// baseline of the benchmark); `arena` is ignored.
// Every op runs as device kernels; quantize and dequantize are those of
// quantize_kernels.h (bit-exact with the reference).
tp::Status execute_cuda(const tp::PlanningGraph& pg, const tp::OpSemantics& semantics, const tp::ExecRequest& request,
                        DeviceArena* arena, tp::ExecResult* out);

}  // namespace tpc

#endif  // TENSORPLAN_CUDA_EXECUTOR_H
