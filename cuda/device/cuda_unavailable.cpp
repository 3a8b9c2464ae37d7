// Stand-in for cuda_device.cu when the addon is built without nvcc: the
// addon still loads and says plainly why CUDA is unavailable.
#ifndef TP_WITH_CUDA
#include <cstdio>
#include <cstring>

#include "device/cuda_device.h"

extern "C" void tpc_probe_devices(tpc_probe* probe) {
  std::memset(probe, 0, sizeof *probe);
  std::snprintf(probe->reason, sizeof probe->reason,
                "the native addon was built without CUDA (nvcc was not found at build time)");
}

extern "C" int32_t tpc_smoke_saxpy(float, const float*, float*, int32_t, char* err, int32_t err_len) {
  std::snprintf(err, static_cast<size_t>(err_len), "the native addon was built without CUDA");
  return -1;
}
#endif
