/* FLOWCUT_HD marks a function that host and device code both compile:
 * __host__ __device__ under nvcc, nothing under a C compiler. For the
 * static inline functions of the headers in this directory, which keep
 * one arithmetic for the CPU and the GPU instead of two copies. */
#ifndef FLOWCUT_HD_H
#define FLOWCUT_HD_H

#ifdef __CUDACC__
#define FLOWCUT_HD __host__ __device__
#else
#define FLOWCUT_HD
#endif

#endif
