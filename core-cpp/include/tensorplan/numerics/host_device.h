// TP_HOST_DEVICE marks the inline functions that the CUDA kernels compile as
// well as the core: one definition of the numerics for every executor.
#ifndef TENSORPLAN_HOST_DEVICE_H
#define TENSORPLAN_HOST_DEVICE_H

#if defined(__CUDACC__)
#define TP_HOST_DEVICE __host__ __device__
#else
#define TP_HOST_DEVICE
#endif

#endif  // TENSORPLAN_HOST_DEVICE_H
