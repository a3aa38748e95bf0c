#pragma once
// Launchers of the CUDA kernels (kernels.cu). Host code calls these and never writes <<<>>>.
// Every launcher checks the launch and returns without synchronizing.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "lib/collision.hpp"
#include "lib/flow_sums.hpp"

namespace rockperm::cuda {

void launch_collide(float* f, std::uint64_t stride, std::uint32_t cells, const physics::CollisionParams& p,
                    cudaStream_t stream);
void launch_swap(float* f, std::uint64_t stride, std::uint32_t cells, const std::uint32_t* neighbours,
                 cudaStream_t stream);
void launch_fused_odd(float* f, std::uint64_t stride, std::uint32_t cells, const std::uint32_t* pos,
                      const std::uint32_t* neg, const physics::CollisionParams& p, cudaStream_t stream);
// One FlowSums per block of reduction_block cells, in block order, into `partial`.
void launch_sums(const float* f, std::uint64_t stride, std::uint32_t cells, const physics::CollisionParams& p,
                 FlowSums* partial, cudaStream_t stream);
inline std::uint32_t sum_blocks(std::uint32_t cells) { return (cells + reduction_block - 1) / reduction_block; }

}  // namespace rockperm::cuda
