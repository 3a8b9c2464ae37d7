// The CUDA side of the addon, as plain C functions (the executor's own door,
// beside the core's c_api.h). Built from cuda_device.cu where nvcc exists and
// from cuda_unavailable.cpp otherwise, so the addon always links.
#ifndef TENSORPLAN_CUDA_DEVICE_H
#define TENSORPLAN_CUDA_DEVICE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TPC_MAX_DEVICES 16

typedef struct tpc_device {
  char name[256];
  double total_memory_bytes;
  int32_t compute_major;
  int32_t compute_minor;
  int32_t multiprocessors;
} tpc_device;

typedef struct tpc_probe {
  int32_t compiled;        /* 1 if this addon was built with nvcc */
  int32_t runtime_version; /* CUDA runtime the addon links statically, e.g. 13000 */
  int32_t driver_version;  /* 0 when no driver is installed */
  int32_t error_code;      /* cudaError_t of the first failing call, 0 if none */
  char reason[512];        /* why CUDA is unusable; empty when usable */
  int32_t device_count;
  tpc_device devices[TPC_MAX_DEVICES];
} tpc_probe;

/* Fills *probe. Never fails: problems are described in probe->reason. */
void tpc_probe_devices(tpc_probe* probe);

/* Smoke kernel: y[i] = a * x[i] + y[i] on device 0, copied back into y.
 * Returns 0 on success, else a cudaError_t with a message in err. */
int32_t tpc_smoke_saxpy(float a, const float* x, float* y, int32_t n, char* err, int32_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TENSORPLAN_CUDA_DEVICE_H */
