// Device query and the smoke kernel. The runtime is linked statically and
// libcuda is never linked: the runtime opens the driver itself when first
// used, so on a machine without a driver these calls return
// cudaErrorInsufficientDriver (35) instead of the addon failing to load.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "device/cuda_device.h"

namespace {

void describe(cudaError_t error, const char* call, char* out, size_t out_len) {
  std::snprintf(out, out_len, "%s returned %d (%s: %s)", call, static_cast<int>(error),
                cudaGetErrorName(error), cudaGetErrorString(error));
}

__global__ void saxpy_kernel(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

}  // namespace

extern "C" void tpc_probe_devices(tpc_probe* probe) {
  std::memset(probe, 0, sizeof *probe);
  probe->compiled = 1;
  cudaRuntimeGetVersion(&probe->runtime_version);
  cudaDriverGetVersion(&probe->driver_version);
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    probe->error_code = static_cast<int32_t>(error);
    describe(error, "cudaGetDeviceCount", probe->reason, sizeof probe->reason);
    if (error == cudaErrorInsufficientDriver || error == cudaErrorNoDevice) {
      size_t used = std::strlen(probe->reason);
      std::snprintf(probe->reason + used, sizeof probe->reason - used,
                    probe->driver_version == 0 ? "; no NVIDIA driver is installed" : "; no usable GPU");
    }
    return;
  }
  if (count == 0) {
    std::snprintf(probe->reason, sizeof probe->reason, "the driver reports no CUDA device");
    return;
  }
  probe->device_count = count < TPC_MAX_DEVICES ? count : TPC_MAX_DEVICES;
  for (int i = 0; i < probe->device_count; ++i) {
    cudaDeviceProp prop;
    error = cudaGetDeviceProperties(&prop, i);
    if (error != cudaSuccess) {
      probe->error_code = static_cast<int32_t>(error);
      describe(error, "cudaGetDeviceProperties", probe->reason, sizeof probe->reason);
      probe->device_count = i;
      return;
    }
    tpc_device* device = &probe->devices[i];
    std::snprintf(device->name, sizeof device->name, "%s", prop.name);
    device->total_memory_bytes = static_cast<double>(prop.totalGlobalMem);
    device->compute_major = prop.major;
    device->compute_minor = prop.minor;
    device->multiprocessors = prop.multiProcessorCount;
  }
}

extern "C" int32_t tpc_smoke_saxpy(float a, const float* x, float* y, int32_t n, char* err, int32_t err_len) {
  float* device_x = nullptr;
  float* device_y = nullptr;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  const char* step = "cudaMalloc";
  cudaError_t error = cudaMalloc(&device_x, bytes);
  if (error == cudaSuccess) error = cudaMalloc(&device_y, bytes);
  if (error == cudaSuccess) { step = "cudaMemcpy(x)"; error = cudaMemcpy(device_x, x, bytes, cudaMemcpyHostToDevice); }
  if (error == cudaSuccess) { step = "cudaMemcpy(y)"; error = cudaMemcpy(device_y, y, bytes, cudaMemcpyHostToDevice); }
  if (error == cudaSuccess) {
    step = "saxpy launch";
    saxpy_kernel<<<(n + 255) / 256, 256>>>(a, device_x, device_y, n);
    error = cudaGetLastError();
  }
  if (error == cudaSuccess) { step = "cudaMemcpy(result)"; error = cudaMemcpy(y, device_y, bytes, cudaMemcpyDeviceToHost); }
  cudaFree(device_x);
  cudaFree(device_y);
  if (error != cudaSuccess) describe(error, step, err, static_cast<size_t>(err_len));
  return static_cast<int32_t>(error);
}
