#pragma once
// The order in which the GPU's odd step visits its blocks of cells.
//
// In the fused odd step a population slot of cell m is read and written by the cell that streams
// from it, m + e, or by m itself where m + e is solid (bounce-back), so the 32-byte sectors along a
// pore wall are shared by cells a row and a plane apart in the numbering (z-major, then y, then x).
// Where a plane's data outgrows the L2 cache between the two visits, such a sector goes to memory
// twice: on one H200 a 2000 x 2000 x 250 slab of the same pack as a 1000^3 tile ran 6.6 % (fp16)
// and 8.8 % (fp32) slower per step. Visiting the blocks band by band (the rows y in [b R, (b + 1) R)
// of every plane in turn, then the next band) brings the cells a plane apart within a band's R
// rows of each other; only the rows at a band's edges keep the long distance. Where a plane fits
// the L2 bands paid little or cost (the 768^3 bench: +1.7 % in fp32, -6.7 % in fp16, whose runs
// through each population row they cut shorter), so they are taken only where a plane outgrows
// half of it (odd_band_cells; docs/PERFORMANCE.md "Planes larger than the L2" has the figures).
// Every cell's update is its own (each slot has one owner), so any order steps bitwise the same.
#include <cstdint>
#include <vector>

#include "lib/lattice/sparse_lattice.hpp"

namespace rockperm::lattice {

// The cells of a block (the kernels' blocks: cuda/kernels.cu), block k holding [k B, (k + 1) B).
inline constexpr std::uint32_t order_block_cells = 256;
// The cells a band holds in one plane, for a step that touches bytes_per_cell bytes of device
// memory per cell on a device of l2_bytes of L2: where the lattice's mean plane holds more than
// half the L2, a quarter of the L2's worth (a band's plane and its neighbours, with the blocks in
// flight beside them, well inside it); else 0 (numbering order).
std::uint64_t odd_band_cells(const SparseLattice& lattice, double bytes_per_cell, std::uint64_t l2_bytes);

// The band of every block of `lattice` (of its first cell's row): rows = max(1, band_cells over the
// mean fluid cells of a row). One band (no reordering) where band_cells is 0 or a band holds every row.
struct BlockBands {
  std::vector<std::uint16_t> band;  // per block
  std::uint32_t bands = 1;
  std::uint32_t rows = 0;  // rows of voxels per band
};
BlockBands block_bands(const SparseLattice& lattice, std::uint64_t band_cells);

// The blocks that hold cells [begin, end), band by band and in numbering order within a band (so
// plane by plane); empty where they are all of one band (visit them in numbering order).
std::vector<std::uint32_t> block_order(const BlockBands& bands, std::uint32_t begin, std::uint32_t end);

}  // namespace rockperm::lattice
