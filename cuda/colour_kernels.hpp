#pragma once
// Launchers of the colour-gradient model's kernels (issue 69): one thread per fluid cell of
// [first, end) (a rank's owned cells), each calling lib/lattice/colour_propagation.hpp's pass for
// its cell, as the CPU loops do. S: the momentum's storage (float or physics::Half), instantiated
// for both.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "lib/lattice/colour_propagation.hpp"
#include "lib/physics/colour.hpp"

namespace rockperm::cuda {

template <class S>
void launch_colour_start(const lattice::colour_step::Cells<S>& cells, std::uint32_t first, std::uint32_t end, const float* phi,
                         const physics::colour::ColourParams& p, cudaStream_t stream);
template <class S>
void launch_colour_phase(const lattice::colour_step::Cells<S>& cells, std::uint32_t first, std::uint32_t end, cudaStream_t stream);
// f pulled from cells.f and collided into f_out, the colours recoloured in place (phase pass done);
// `seed`: the step's (physics::step_seed)
template <class S>
void launch_colour_collide(const lattice::colour_step::Cells<S>& cells, S* f_out, std::uint32_t first, std::uint32_t end,
                           const physics::colour::ColourParams& p, std::uint32_t seed, cudaStream_t stream);
// lib/lattice/colour_propagation.hpp's feed on each of `cells` (`count` of them; after the collide
// launch, on the same stream)
void launch_colour_feed(float* a, float* b, std::uint64_t stride, const std::uint32_t* cells, std::uint32_t count, bool to_a,
                        cudaStream_t stream);
// per cell: na, nb, drho, u (x, y, z) into out[k * cells.stride + cell] for k = 0..5 (phase pass done)
template <class S>
void launch_colour_moments(const lattice::colour_step::Cells<S>& cells, std::uint32_t first, std::uint32_t end,
                           const physics::colour::ColourParams& p, float* out, cudaStream_t stream);

// lib/lattice/colour_propagation.hpp's cell_sums of every cell added into `totals` (sum_count
// integers, then the largest of the cells' speeds in totals[sum_count]) and, where `plane_of` is given, the four face values of each cell along `axis` into
// its plane's four bins: 64-bit integer atomics, the same sums whatever the order.
template <class S>
void launch_colour_sums(const lattice::colour_step::Cells<S>& cells, std::uint32_t first, std::uint32_t end,
                        const physics::colour::ColourParams& p, const std::uint16_t* plane_of, int axis,
                        std::uint32_t planes, unsigned long long* totals, unsigned long long* plane_bins,
                        cudaStream_t stream);

}  // namespace rockperm::cuda
