// The colour-gradient model's kernels: one thread per fluid cell, each calling the per-cell pass of
// lib/lattice/colour_propagation.hpp that the CPU loops call too.
#include "cuda/colour_kernels.hpp"
#include "cuda/cuda_check.hpp"

namespace rockperm::cuda {

namespace {

namespace step = lattice::colour_step;

constexpr int block_threads = 256;

unsigned grid_for(std::uint32_t first, std::uint32_t end) { return (end - first + block_threads - 1) / block_threads; }

template <class S>
__global__ void start_kernel(step::Cells<S> c, std::uint32_t first, std::uint32_t end, const float* __restrict__ phi,
                             physics::colour::ColourParams p) {
  const std::uint32_t cell = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (cell < end) step::start(c, cell, phi[cell], p);
}

template <class S>
__global__ void phase_kernel(step::Cells<S> c, std::uint32_t first, std::uint32_t end) {
  const std::uint32_t cell = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (cell < end) step::phase(c, cell);
}

template <class S>
__global__ void collide_kernel(step::Cells<S> c, S* __restrict__ f_out, std::uint32_t first, std::uint32_t end,
                               physics::colour::ColourParams p, std::uint32_t seed) {
  const std::uint32_t cell = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (cell < end) step::collide(c, f_out, cell, p, seed);
}

__global__ void feed_kernel(float* __restrict__ a, float* __restrict__ b, std::uint64_t stride,
                            const std::uint32_t* __restrict__ cells, std::uint32_t count, bool to_a) {
  const std::uint32_t n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n < count) step::feed(a, b, stride, cells[n], to_a);
}

template <class S>
__global__ void moments_kernel(step::Cells<S> c, std::uint32_t first, std::uint32_t end, physics::colour::ColourParams p,
                               float* __restrict__ out) {
  const std::uint32_t cell = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (cell >= end) return;
  const physics::colour::ColourMoments m = step::moments(c, cell, p);
  const float v[6] = {m.na, m.nb, m.drho, m.u[0], m.u[1], m.u[2]};
  for (int k = 0; k < 6; ++k) out[static_cast<std::uint64_t>(k) * c.stride + cell] = v[k];
}

// totals in shared memory, then one atomic per block and sum; the planes' four face values
// straight to global memory
template <class S>
__global__ void sums_kernel(step::Cells<S> c, std::uint32_t first, std::uint32_t end, physics::colour::ColourParams p,
                            const std::uint16_t* __restrict__ plane_of, int axis, std::uint32_t planes,
                            unsigned long long* totals, unsigned long long* plane_bins) {
  // the sums, then the largest speed
  __shared__ unsigned long long block[step::sum_count + 1];
  if (threadIdx.x <= step::sum_count) block[threadIdx.x] = 0;
  __syncthreads();
  const std::uint32_t cell = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (cell < end) {
    long long v[step::sum_count], faces[4];
    unsigned long long speed = 0;
    step::cell_sums(c, cell, p, v, speed, axis, plane_of ? faces : nullptr);
    for (int k = 0; k < step::sum_count; ++k) {
      if (v[k] != 0) atomicAdd(&block[k], static_cast<unsigned long long>(v[k]));  // two's complement
    }
    if (speed != 0) atomicMax(&block[step::sum_count], speed);
    if (plane_of) {
      const std::uint32_t plane = plane_of[cell];
      for (int f = 0; f < 4; ++f) atomicAdd(&plane_bins[4 * plane + f], static_cast<unsigned long long>(faces[f]));
    }
  }
  __syncthreads();
  if (threadIdx.x < step::sum_count && block[threadIdx.x] != 0) atomicAdd(&totals[threadIdx.x], block[threadIdx.x]);
  if (threadIdx.x == step::sum_count && block[threadIdx.x] != 0) atomicMax(&totals[threadIdx.x], block[threadIdx.x]);
}

}  // namespace

template <class S>
void launch_colour_sums(const step::Cells<S>& cells, std::uint32_t first, std::uint32_t end, const physics::colour::ColourParams& p,
                        const std::uint16_t* plane_of, int axis, std::uint32_t planes, unsigned long long* totals,
                        unsigned long long* plane_bins, cudaStream_t stream) {
  if (end <= first) return;
  sums_kernel<<<grid_for(first, end), block_threads, 0, stream>>>(cells, first, end, p, plane_of, axis, planes, totals, plane_bins);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_colour_start(const step::Cells<S>& cells, std::uint32_t first, std::uint32_t end, const float* phi,
                         const physics::colour::ColourParams& p, cudaStream_t stream) {
  if (end <= first) return;
  start_kernel<<<grid_for(first, end), block_threads, 0, stream>>>(cells, first, end, phi, p);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_colour_phase(const step::Cells<S>& cells, std::uint32_t first, std::uint32_t end, cudaStream_t stream) {
  if (end <= first) return;
  phase_kernel<<<grid_for(first, end), block_threads, 0, stream>>>(cells, first, end);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_colour_collide(const step::Cells<S>& cells, S* f_out, std::uint32_t first, std::uint32_t end,
                           const physics::colour::ColourParams& p, std::uint32_t seed, cudaStream_t stream) {
  if (end <= first) return;
  collide_kernel<<<grid_for(first, end), block_threads, 0, stream>>>(cells, f_out, first, end, p, seed);
  ROCKPERM_CUDA_CHECK_LAST();
}

void launch_colour_feed(float* a, float* b, std::uint64_t stride, const std::uint32_t* cells, std::uint32_t count, bool to_a,
                        cudaStream_t stream) {
  if (count == 0) return;
  feed_kernel<<<grid_for(0, count), block_threads, 0, stream>>>(a, b, stride, cells, count, to_a);
  ROCKPERM_CUDA_CHECK_LAST();
}

template <class S>
void launch_colour_moments(const step::Cells<S>& cells, std::uint32_t first, std::uint32_t end, const physics::colour::ColourParams& p,
                           float* out, cudaStream_t stream) {
  if (end <= first) return;
  moments_kernel<<<grid_for(first, end), block_threads, 0, stream>>>(cells, first, end, p, out);
  ROCKPERM_CUDA_CHECK_LAST();
}

#define ROCKPERM_COLOUR_LAUNCHERS(S)                                                                                 \
  template void launch_colour_sums<S>(const step::Cells<S>&, std::uint32_t, std::uint32_t, const physics::colour::ColourParams&,   \
                                      const std::uint16_t*, int, std::uint32_t, unsigned long long*,                \
                                      unsigned long long*, cudaStream_t);                                           \
  template void launch_colour_start<S>(const step::Cells<S>&, std::uint32_t, std::uint32_t, const float*,                          \
                                       const physics::colour::ColourParams&, cudaStream_t);                         \
  template void launch_colour_phase<S>(const step::Cells<S>&, std::uint32_t, std::uint32_t, cudaStream_t);                         \
  template void launch_colour_collide<S>(const step::Cells<S>&, S*, std::uint32_t, std::uint32_t,                                   \
                                         const physics::colour::ColourParams&, std::uint32_t, cudaStream_t);        \
  template void launch_colour_moments<S>(const step::Cells<S>&, std::uint32_t, std::uint32_t, const physics::colour::ColourParams&, \
                                         float*, cudaStream_t);
ROCKPERM_COLOUR_LAUNCHERS(float)
ROCKPERM_COLOUR_LAUNCHERS(physics::Half)
#undef ROCKPERM_COLOUR_LAUNCHERS

}  // namespace rockperm::cuda
