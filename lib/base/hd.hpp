#pragma once
// ROCKPERM_HD marks functions that the CPU backend and the CUDA kernels both call: the one
// physics definition of the project (OpenLB's any_platform idea).
// On the host the functions are forced inline so that the OpenMP loops over cells see the
// whole cell update and vectorize it.
#if defined(__CUDACC__)
#define ROCKPERM_HD __host__ __device__
#else
#define ROCKPERM_HD __attribute__((always_inline))
#endif

// Unrolls a loop over the 19 (or 9) lattice directions, so direction-dependent constants fold
// and per-cell arrays stay in registers.
#if defined(__CUDA_ARCH__)
#define ROCKPERM_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define ROCKPERM_UNROLL  // nvcc's host pass: the host side of .cu files runs no cell loops
#else
#define ROCKPERM_UNROLL _Pragma("GCC unroll 19")
#endif
