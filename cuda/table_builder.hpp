#pragma once
// The fused form's grouped tables (lib/lattice/neighbour_table.hpp) built on the device from the
// mask of a lattice with deferred tables (LatticeTables::deferred): the mask goes up as bytes
// (1 per voxel, in chunks), becomes a bit per voxel with the fluid count before every 32-bit word
// (a rank structure: the fluid index of any voxel in two loads), and one warp per group of 32
// cells finds its cells' voxels, their 18 neighbours by the lattice's link rule
// (lib/lattice/link_rule.hpp) and the group's bases (group_bases_sorted, as the host's packer).
// The entries are those pack_grouped_pair_tables writes from the host's full tables (tested),
// without the 72 bytes per cell of those tables on the host or the 5.5 GB upload of a 768^3 pack.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/device_buffer.hpp"
#include "lib/lattice/sparse_lattice.hpp"

namespace rockperm::cuda {

// Device memory the build needs besides the tables (the bit mask, its prefix sums, a chunk of
// the byte mask and the scan's scratch).
double grouped_build_scratch_bytes(const lattice::SparseLattice& lattice);

// Fills `delta` (9 * stride entries) and `base` (36 per group) for `lattice`, which holds its mask
// (deferred tables) and the negative directions. False where a group's offsets in one direction
// do not fall into two clusters (pack_grouped_pair_tables' false; the buffers are then released),
// or the lattice does not pack; CUDA errors throw.
bool build_grouped_tables(const lattice::SparseLattice& lattice, DeviceBuffer<std::uint32_t>& delta,
                          DeviceBuffer<std::int32_t>& base, cudaStream_t stream);

}  // namespace rockperm::cuda
