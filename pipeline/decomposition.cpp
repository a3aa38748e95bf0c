#include "pipeline/decomposition.hpp"

#include <chrono>
#include <utility>

namespace rockperm::pipeline {

namespace {

// Each rank's local mask (its planes and ghost planes), sent from rank 0.
PoreMask distribute_planes(const Comm& comm, const PoreMask& mask, const Dims& dims, const std::vector<Slab>& slabs,
                           const SlabDomain& mine, bool periodic_z) {
  if (comm.root()) {
    for (int r = 1; r < comm.size(); ++r) {
      const SlabDomain d = slab_domain(slabs, r, dims.nz, periodic_z);
      comm.send_bytes(r, extract_planes(mask, d.planes).pore);
    }
    return extract_planes(mask, mine.planes);
  }
  return PoreMask{Dims{dims.nx, dims.ny, static_cast<std::int64_t>(mine.planes.size())}, comm.receive_bytes(0)};
}

}  // namespace

RankLattice decompose(const Comm& comm, Sample& sample, const Periodicity& periodic, Propagation propagation,
                      EdgeContacts edges, OneRank one_rank, LatticeTables tables, const std::vector<double>& shares) {
  const auto start = std::chrono::steady_clock::now();
  RankLattice r;
  const bool negative = propagation == Propagation::fused;
  r.slabs = shares.empty() ? partition_slabs(sample.plane_fluid, comm.size()) : partition_slabs(sample.plane_fluid, shares);
  if (comm.size() == 1 && one_rank == OneRank::whole) {
    r.lattice = SparseLattice::build(std::move(sample.mask), periodic, negative, false, edges, tables);
    r.z_end = sample.dims.nz;
  } else {
    r.domain = slab_domain(r.slabs, comm.rank(), sample.dims.nz, periodic[2]);
    PoreMask local = distribute_planes(comm, sample.mask, sample.dims, r.slabs, *r.domain, periodic[2]);
    // a rank that cannot build its slab (memory, an internal limit) fails the sample on every rank
    collectively(comm, [&] { r.lattice = build_slab_lattice(std::move(local), *r.domain, periodic, negative, edges, tables); });
    r.first_local_z = r.domain->slab.z_begin - (r.domain->ghost_low ? 1 : 0);
    r.z_begin = r.domain->slab.z_begin;
    r.z_end = r.domain->slab.z_end;
  }
  sample.mask = PoreMask{};  // rank 0 no longer needs the whole mask
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace rockperm::pipeline
