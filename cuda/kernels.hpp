#pragma once
// Launchers of the CUDA kernels (kernels.cu). Host code calls these and never writes <<<>>>.
// Every launcher checks the launch and returns without synchronizing. S is the population
// storage (float or Half, lib/physics/storage.hpp): both are compiled.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "lib/lattice/line_tables.hpp"
#include "lib/lattice/neighbour_table.hpp"
#include "lib/parallel/halo_rows.hpp"
#include "lib/physics/collision.hpp"
#include "lib/physics/density_extrapolation.hpp"
#include "lib/physics/flow_sums.hpp"
#include "lib/physics/storage.hpp"

namespace rockperm::cuda {

// The rest state (physics::rest_population) in the cells [0, cells), zero in the padding up to stride.
template <class S>
void launch_rest_state(S* f, std::uint64_t stride, std::uint32_t cells, const physics::CollisionParams& p,
                       cudaStream_t stream);
// Each kernel covers the cells [begin, end).
template <class S>
void launch_collide(S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                    const physics::CollisionParams& p, cudaStream_t stream);
// Tables: IndexTables, PackedTables (swap only), PackedPairTables, GroupedPairTables or LineTables
// (lib/lattice/neighbour_table.hpp),
// with device pointers.
template <class S, class Tables>
void launch_swap(S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end, Tables neighbours,
                 cudaStream_t stream);
// order: null, or the order_blocks blocks of lattice::order_block_cells cells that hold [begin, end),
// in the order to visit them (lib/lattice/block_order.hpp), a device array.
template <class S, class Tables>
void launch_fused_odd(S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end, Tables tables,
                      const physics::CollisionParams& p, const std::uint32_t* order, std::uint32_t order_blocks,
                      cudaStream_t stream);
// LineTables' odd step leaves its exception cells to this second launch: exceptions numbered
// [first, last) (those of the groups that hold [begin, end)), each stepped where its cell lies in
// [begin, end) (lib/lattice/line_tables.hpp).
template <class S>
void launch_fused_odd_exceptions(S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                                 const lattice::LineTables& tables, std::uint32_t first, std::uint32_t last,
                                 const physics::CollisionParams& p, cudaStream_t stream);
// One FlowSums per block of reduction_block cells of [begin, end), in block order, into `partial`.
template <class S>
void launch_sums(const S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                 const physics::CollisionParams& p, physics::FlowSums* partial, cudaStream_t stream);
// drho, ux, uy, uz of the cells [begin, end) into out[0..n), out[n..2n), out[2n..3n), out[3n..4n).
template <class S>
void launch_macroscopic(const S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                        const physics::CollisionParams& p, float* out, cudaStream_t stream);
// Fixed-point plane sums (cell_plane_values) of the cells [begin, end) added into out[plane]
// (drho), out[planes + plane] (flux) and out[2 planes + plane] (drho u); plane_of[k] is the plane of cell begin + k. out must be
// zeroed first.
template <class S>
void launch_plane_sums(const S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                       const std::uint16_t* plane_of, int axis, std::uint32_t planes,
                       const physics::CollisionParams& p, unsigned long long* out, int blocks,
                       cudaStream_t stream);
// f[k] *= factor for k in [0, count).
template <class S>
void launch_scale(S* f, std::uint64_t count, float factor, cudaStream_t stream);
// buffer[k] = f[rows.offset(k, cells[k], stride)] for the rows.count() entries, and back.
template <class S>
void launch_pack(const S* f, std::uint64_t stride, const std::uint32_t* cells, const parallel::HaloRows& rows,
                 S* buffer, cudaStream_t stream);
template <class S>
void launch_unpack(S* f, std::uint64_t stride, const std::uint32_t* cells, const parallel::HaloRows& rows,
                   const S* buffer, cudaStream_t stream);
// The pressure extrapolation's passes over the cells [begin, end) (lib/physics/density_extrapolation.hpp),
// with held = pairs[2k] and change = pairs[2k + 1] those of cell begin + k:
//   hold:        change = rho - held (when arg != 0), held = rho
//   peak:        out[0] = the bits of max(|rho - held|, |change|) (atomicMax; out[0] zeroed first)
//   products:    out[0..3) += the fixed-point products of change and rho - held at scale arg (zeroed first)
//   extrapolate: rho += arg (rho - held), change = rho - held, held = the new rho
enum class DensityPass { hold, peak, products, extrapolate, extrapolate_at_rest };
template <class S>
// extrapolate_at_rest: the acceleration g (gx, gy, gz) of the rest state the density is added as
void launch_density_pass(DensityPass pass, S* f, std::uint64_t stride, std::uint32_t begin, std::uint32_t end,
                         float* pairs, float arg, unsigned long long* out, cudaStream_t stream, float gx = 0.0f,
                         float gy = 0.0f, float gz = 0.0f);
inline std::uint32_t sum_blocks(std::uint32_t cells) {
  return (cells + physics::reduction_block - 1) / physics::reduction_block;
}

}  // namespace rockperm::cuda
