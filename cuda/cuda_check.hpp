#pragma once
// Every CUDA runtime call goes through ROCKPERM_CUDA_CHECK; every launcher ends with
// ROCKPERM_CUDA_CHECK_LAST(). A failure throws rockperm::RuntimeFailure carrying the
// expression, file, line and CUDA's message.
#include <cuda_runtime_api.h>

#include <string>

#include "lib/base/error.hpp"

namespace rockperm::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  throw RuntimeFailure(std::string("CUDA call ") + expr + " failed at " + file + ":" + std::to_string(line) + ": " +
                       cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

}  // namespace rockperm::cuda

#define ROCKPERM_CUDA_CHECK(expr)                                                              \
  do {                                                                                         \
    const cudaError_t rockperm_cuda_err_ = (expr);                                             \
    if (rockperm_cuda_err_ != cudaSuccess)                                                     \
      ::rockperm::cuda::throw_cuda_error(rockperm_cuda_err_, #expr, __FILE__, __LINE__);       \
  } while (0)

#define ROCKPERM_CUDA_CHECK_LAST() ROCKPERM_CUDA_CHECK(cudaGetLastError())
