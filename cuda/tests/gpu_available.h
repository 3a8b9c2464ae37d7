// The GPU runners' one rule for a machine without a usable device: say why
// and exit 0, so a CPU-only CI run of them reads as skipped, not failed.
#ifndef TENSORPLAN_CUDA_TESTS_GPU_AVAILABLE_H
#define TENSORPLAN_CUDA_TESTS_GPU_AVAILABLE_H

#include <cuda_runtime.h>

#include <cstdio>

// True when a CUDA device is usable; otherwise prints "SKIPPED: <reason>".
inline bool gpu_available() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaSuccess && count > 0) return true;
  std::printf("SKIPPED: no usable CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
  return false;
}

#endif  // TENSORPLAN_CUDA_TESTS_GPU_AVAILABLE_H
