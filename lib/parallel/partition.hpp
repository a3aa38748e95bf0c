#pragma once
// Z-slab decomposition (DESIGN.md, Parallel layout): one slab of whole planes per rank,
// balanced by fluid-cell count, each rank holding ghost copies of the two planes beside it.
#include <cstdint>
#include <vector>

#include "lib/backend/backend.hpp"
#include "lib/geometry/pore_mask.hpp"
#include "lib/lattice/sparse_lattice.hpp"

namespace rockperm::parallel {

struct Slab {
  std::int64_t z_begin = 0, z_end = 0;  // owned planes [z_begin, z_end)
  std::uint64_t fluid = 0;
};

// Fluid cells of every plane of the mask.
std::vector<std::uint64_t> plane_fluid_counts(const geometry::PoreMask& mask);

// Cuts nz planes into `ranks` slabs of at least one plane each, with cut planes chosen so that
// every slab holds as close as possible to 1/ranks of the fluid cells. Throws InputError when
// there are fewer planes than ranks.
std::vector<Slab> partition_slabs(const std::vector<std::uint64_t>& plane_fluid, int ranks);
// The same with rank r's slab as close as possible to shares[r] / (sum of shares) of the fluid
// cells (ranks of unequal speed or memory, lib/parallel/work_split.hpp); equal shares cut as above.
std::vector<Slab> partition_slabs(const std::vector<std::uint64_t>& plane_fluid, const std::vector<double>& shares);

// One rank's view: its slab, its neighbours, and the global planes of its local mask in
// order (ghost below, owned planes, ghost above; a ghost is absent at a non-periodic end).
struct SlabDomain {
  int rank = 0, ranks = 1;
  Slab slab;
  int lower = -1, upper = -1;  // neighbour ranks, -1 at a non-periodic end
  bool ghost_low = false, ghost_high = false;
  std::vector<std::int64_t> planes;
};

SlabDomain slab_domain(const std::vector<Slab>& slabs, int rank, std::int64_t nz, bool periodic_z);

// The fluid cells of the slabs below `rank`'s: the global index of its first owned cell (slabs
// ascend with the rank and cells are numbered in raster order, so ranks own consecutive ranges).
std::uint64_t fluid_before(const std::vector<Slab>& slabs, int rank);

// The local mask of a domain: its planes copied out of the whole mask.
geometry::PoreMask extract_planes(const geometry::PoreMask& mask, const std::vector<std::int64_t>& planes);

// The local lattice: z is never periodic inside it (the ghost planes stand for the
// neighbours, also across a periodic wrap); the owned range excludes the ghost planes.
lattice::SparseLattice build_slab_lattice(geometry::PoreMask local_mask, const SlabDomain& domain,
                                          const geometry::Periodicity& periodic, bool with_negative,
                                          geometry::EdgeContacts edges = geometry::EdgeContacts::open,
                                          lattice::LatticeTables tables = lattice::LatticeTables::host);

// Halo lists (population offsets slot * stride + cell, built once). Only populations that
// cross a cut travel, at most 5 of 19 per boundary cell, and only towards a fluid cell: slot s
// holds the post-collision population moving along -e_s, so slots with cz(s) = -1 move up and
// slots with cz(s) = +1 move down. Listed slot by slot, each slot's cells in order.
enum HaloList : int {
  send_down = 0,  // owned bottom plane, slots moving down
  send_up = 1,    // owned top plane, slots moving up
  recv_low = 2,   // ghost plane below, slots moving up (from the lower rank's send_up)
  recv_high = 3,  // ghost plane above, slots moving down (from the upper rank's send_down)
};
std::vector<std::vector<std::uint64_t>> build_halo_lists(const lattice::SparseLattice& local, const SlabDomain& domain);

// Owned cells of the bottom and top planes (computed first, so their halo can travel while
// the interior computes) and the interior between them.
struct SlabRanges {
  backend::CellRange low, high, interior;
};
SlabRanges slab_ranges(const lattice::SparseLattice& local, const SlabDomain& domain);

}  // namespace rockperm::parallel
