// Stand-in for cuda_executor.cu when the addon is built without nvcc.
#ifndef TP_WITH_CUDA
#include "execute/cuda_executor.h"

namespace tpc {

struct DeviceArena {};

namespace {
tp::Status unavailable() {
  return tp::Status::unsupported("the native addon was built without CUDA (nvcc was not found at build time)");
}
}  // namespace

tp::Status arena_create(int64_t, DeviceArena** out) {
  *out = nullptr;
  return unavailable();
}
void arena_destroy(DeviceArena*) {}
int64_t arena_size(const DeviceArena*) { return 0; }
int64_t plan_device_bytes(const tp::PlanningGraph&, int64_t arena_bytes) { return arena_bytes; }
int64_t device_allocation_count() { return 0; }
tp::Status execute_cuda(const tp::PlanningGraph&, const tp::OpSemantics&, const tp::ExecRequest&, DeviceArena*,
                        tp::ExecResult*) {
  return unavailable();
}

}  // namespace tpc
#endif
