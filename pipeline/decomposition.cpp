#include "pipeline/decomposition.hpp"

#include <chrono>
#include <utility>

namespace rockperm::pipeline {

namespace {

// Each rank's local mask (its planes and ghost planes), sent from rank 0.
geometry::PoreMask distribute_planes(const parallel::Comm& comm, const geometry::PoreMask& mask,
                                     const geometry::Dims& dims, const std::vector<parallel::Slab>& slabs,
                                     const parallel::SlabDomain& mine, bool periodic_z) {
  if (comm.root()) {
    for (int r = 1; r < comm.size(); ++r) {
      const parallel::SlabDomain d = parallel::slab_domain(slabs, r, dims.nz, periodic_z);
      comm.send_bytes(r, parallel::extract_planes(mask, d.planes).pore);
    }
    return parallel::extract_planes(mask, mine.planes);
  }
  return geometry::PoreMask{geometry::Dims{dims.nx, dims.ny, static_cast<std::int64_t>(mine.planes.size())},
                            comm.receive_bytes(0)};
}

}  // namespace

RankLattice decompose(const parallel::Comm& comm, Sample& sample, const geometry::Periodicity& periodic,
                      backend::Propagation propagation, geometry::EdgeContacts edges, OneRank one_rank,
                      lattice::LatticeTables tables, const std::vector<double>& shares) {
  const auto start = std::chrono::steady_clock::now();
  RankLattice r;
  const bool negative = propagation == backend::Propagation::fused;
  r.slabs = shares.empty() ? parallel::partition_slabs(sample.plane_fluid, comm.size())
                           : parallel::partition_slabs(sample.plane_fluid, shares);
  if (comm.size() == 1 && one_rank == OneRank::whole) {
    r.lattice = lattice::SparseLattice::build(std::move(sample.mask), periodic, negative, false, edges, tables);
    r.z_end = sample.dims.nz;
  } else {
    r.domain = parallel::slab_domain(r.slabs, comm.rank(), sample.dims.nz, periodic[2]);
    geometry::PoreMask local = distribute_planes(comm, sample.mask, sample.dims, r.slabs, *r.domain, periodic[2]);
    // a rank that cannot build its slab (memory, an internal limit) fails the sample on every rank
    collectively(comm, [&] {
      r.lattice = parallel::build_slab_lattice(std::move(local), *r.domain, periodic, negative, edges, tables);
    });
    r.first_local_z = r.domain->slab.z_begin - (r.domain->ghost_low ? 1 : 0);
    r.z_begin = r.domain->slab.z_begin;
    r.z_end = r.domain->slab.z_end;
  }
  sample.mask = geometry::PoreMask{};  // rank 0 no longer needs the whole mask
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace rockperm::pipeline
