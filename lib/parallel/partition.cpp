#include "lib/parallel/partition.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "lib/physics/d3q19.hpp"
#include "lib/base/error.hpp"

namespace rockperm::parallel {

std::vector<std::uint64_t> plane_fluid_counts(const geometry::PoreMask& mask) {
  const geometry::Dims& d = mask.dims;
  const std::uint64_t plane = static_cast<std::uint64_t>(d.nx) * d.ny;
  std::vector<std::uint64_t> counts(d.nz);
#pragma omp parallel for schedule(static)
  for (std::int64_t z = 0; z < d.nz; ++z) {
    const std::uint8_t* p = mask.pore.data() + plane * z;
    counts[z] = plane - static_cast<std::uint64_t>(std::count(p, p + plane, std::uint8_t{0}));
  }
  return counts;
}

std::vector<Slab> partition_slabs(const std::vector<std::uint64_t>& plane_fluid, int ranks) {
  if (ranks < 1) throw InputError("the number of ranks must be at least 1");
  return partition_slabs(plane_fluid, std::vector<double>(static_cast<std::size_t>(ranks), 1.0));
}

std::vector<Slab> partition_slabs(const std::vector<std::uint64_t>& plane_fluid, const std::vector<double>& shares) {
  const auto nz = static_cast<std::int64_t>(plane_fluid.size());
  const int ranks = static_cast<int>(shares.size());
  if (ranks < 1) throw InputError("the number of ranks must be at least 1");
  double sum = 0;
  for (const double s : shares) sum += s;
  if (nz < ranks) {
    throw InputError("the sample has " + std::to_string(nz) + " planes along z but " + std::to_string(ranks) +
                     " ranks were started; every rank needs at least one plane: use at most " + std::to_string(nz) +
                     " ranks");
  }
  std::vector<std::uint64_t> prefix(nz + 1, 0);
  for (std::int64_t z = 0; z < nz; ++z) prefix[z + 1] = prefix[z] + plane_fluid[z];
  const double total = static_cast<double>(prefix[nz]);
  std::vector<Slab> slabs(ranks);
  std::int64_t begin = 0;
  double cumulative = 0;
  for (int r = 0; r < ranks; ++r) {
    std::int64_t end = nz;
    cumulative += shares[static_cast<std::size_t>(r)];
    if (r < ranks - 1) {
      const double target = total * cumulative / sum;
      // the cut nearest the target, leaving at least one plane to this and every later rank
      const std::int64_t lo = begin + 1, hi = nz - (ranks - 1 - r);
      end = lo;
      for (std::int64_t z = lo; z <= hi; ++z) {
        if (std::abs(static_cast<double>(prefix[z]) - target) < std::abs(static_cast<double>(prefix[end]) - target)) {
          end = z;
        }
      }
    }
    slabs[r] = Slab{begin, end, prefix[end] - prefix[begin]};
    begin = end;
  }
  return slabs;
}

SlabDomain slab_domain(const std::vector<Slab>& slabs, int rank, std::int64_t nz, bool periodic_z) {
  SlabDomain d;
  d.rank = rank;
  d.ranks = static_cast<int>(slabs.size());
  d.slab = slabs.at(rank);
  if (rank > 0 || periodic_z) d.lower = (rank - 1 + d.ranks) % d.ranks;
  if (rank < d.ranks - 1 || periodic_z) d.upper = (rank + 1) % d.ranks;
  d.ghost_low = d.lower >= 0;
  d.ghost_high = d.upper >= 0;
  if (d.ghost_low) d.planes.push_back((d.slab.z_begin - 1 + nz) % nz);
  for (std::int64_t z = d.slab.z_begin; z < d.slab.z_end; ++z) d.planes.push_back(z);
  if (d.ghost_high) d.planes.push_back(d.slab.z_end % nz);
  return d;
}

std::uint64_t fluid_before(const std::vector<Slab>& slabs, int rank) {
  std::uint64_t first = 0;
  for (int k = 0; k < rank && k < static_cast<int>(slabs.size()); ++k) first += slabs[k].fluid;
  return first;
}

geometry::PoreMask extract_planes(const geometry::PoreMask& mask, const std::vector<std::int64_t>& planes) {
  const std::uint64_t plane = static_cast<std::uint64_t>(mask.dims.nx) * mask.dims.ny;
  geometry::PoreMask local{geometry::Dims{mask.dims.nx, mask.dims.ny, static_cast<std::int64_t>(planes.size())},
                 UninitializedBytes(plane * planes.size())};  // every plane copied below
  for (std::size_t k = 0; k < planes.size(); ++k) {
    std::memcpy(local.pore.data() + plane * k, mask.pore.data() + plane * planes[k], plane);
  }
  return local;
}

lattice::SparseLattice build_slab_lattice(geometry::PoreMask local_mask, const SlabDomain& domain,
                                          const geometry::Periodicity& periodic, bool with_negative,
                                          geometry::EdgeContacts edges, lattice::LatticeTables tables) {
  geometry::Periodicity local_periodic = periodic;
  local_periodic[2] = false;
  lattice::SparseLattice lat =
      lattice::SparseLattice::build(std::move(local_mask), local_periodic, with_negative, true, edges, tables);
  const std::int64_t first = domain.ghost_low ? 1 : 0;
  lat.set_owned_planes(first, first + (domain.slab.z_end - domain.slab.z_begin));
  return lat;
}

namespace {
// Slot s of a cell holds the population moving along -e_s, towards the cell c - e_s. A
// crossing slot travels only when that cell is fluid: otherwise no exchange reaches it (the
// value is bounced back at home), and in the fused form the owner's own bounce-back writes
// the slot, which a value coming back from the ghost copy must not overwrite. Both sides see
// the same voxels, so their lists match entry for entry. Slot by slot, each slot's cells in
// order: a warp's entries are then consecutive slots of one row (whole lines to read and write),
// and the GPU keeps the cells alone (lib/parallel/halo_rows.hpp).
void add_plane(std::vector<std::uint64_t>& list, const lattice::SparseLattice& lat, std::int64_t local_plane,
               int moving_cz) {
  const std::uint64_t begin = lat.plane_offsets()[local_plane], end = lat.plane_offsets()[local_plane + 1];
  for (int s = 1; s < d3q19::q; ++s) {
    if (-d3q19::cz(s) != moving_cz) continue;
    for (std::uint64_t cell = begin; cell < end; ++cell) {
      if (lat.neighbour(static_cast<std::uint32_t>(cell), d3q19::opposite(s)) == lattice::none) continue;
      list.push_back(static_cast<std::uint64_t>(s) * lat.stride() + cell);
    }
  }
}
}  // namespace

std::vector<std::vector<std::uint64_t>> build_halo_lists(const lattice::SparseLattice& local,
                                                         const SlabDomain& domain) {
  std::vector<std::vector<std::uint64_t>> lists(4);
  const std::int64_t first_owned = domain.ghost_low ? 1 : 0;
  const std::int64_t last_owned = first_owned + (domain.slab.z_end - domain.slab.z_begin) - 1;
  if (domain.lower >= 0) {
    add_plane(lists[send_down], local, first_owned, -1);
    add_plane(lists[recv_low], local, 0, +1);
  }
  if (domain.upper >= 0) {
    add_plane(lists[send_up], local, last_owned, +1);
    add_plane(lists[recv_high], local, last_owned + 1, -1);
  }
  return lists;
}

SlabRanges slab_ranges(const lattice::SparseLattice& local, const SlabDomain& domain) {
  const auto& off = local.plane_offsets();
  const std::int64_t first = domain.ghost_low ? 1 : 0;
  const std::int64_t last = first + (domain.slab.z_end - domain.slab.z_begin) - 1;
  SlabRanges r;
  r.low = backend::CellRange{static_cast<std::uint32_t>(off[first]), static_cast<std::uint32_t>(off[first + 1])};
  if (last > first) {
    r.high = backend::CellRange{static_cast<std::uint32_t>(off[last]), static_cast<std::uint32_t>(off[last + 1])};
    r.interior = backend::CellRange{r.low.end, r.high.begin};
  } else {
    r.high = backend::CellRange{r.low.end, r.low.end};
    r.interior = backend::CellRange{r.low.end, r.low.end};
  }
  return r;
}

}  // namespace rockperm::parallel
