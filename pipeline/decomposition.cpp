#include "pipeline/decomposition.hpp"

#include "lib/geometry/distance_transform.hpp"
#include "pipeline/slab_sample.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

namespace rockperm::pipeline {

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

namespace {

// Each rank's local mask (its planes and ghost planes) from the ranks that read them
// (sample.slabs); where the sample is a run's, also each rank's width classes, from its planes
// and geometry::width_class_reach planes on each side.
geometry::PoreMask planes_from_slabs(const parallel::Comm& comm, Sample& sample, const std::vector<parallel::Slab>& slabs,
                                     bool periodic_z) {
  const std::int64_t nz = sample.dims.nz;
  const std::int64_t reach = sample.slabs->widths ? geometry::width_class_reach : 1;
  // a rank's planes: those within reach of its slab, in order, then its ghosts across a
  // periodic wrap (the widths take the first ones as they lie)
  const auto around = [&](const parallel::SlabDomain& d) {
    return std::make_pair(std::max<std::int64_t>(0, d.slab.z_begin - reach), std::min(nz, d.slab.z_end + reach));
  };
  const auto needs = [&](int rank) {
    const parallel::SlabDomain d = parallel::slab_domain(slabs, rank, nz, periodic_z);
    const auto [z0, z1] = around(d);
    std::vector<std::int64_t> planes;
    for (std::int64_t z = z0; z < z1; ++z) planes.push_back(z);
    for (const std::int64_t z : d.planes)
      if (z < z0 || z >= z1) planes.push_back(z);
    return planes;
  };
  const parallel::SlabDomain mine = parallel::slab_domain(slabs, comm.rank(), nz, periodic_z);
  const auto [z0, z1] = around(mine);
  const std::vector<std::int64_t> held = needs(comm.rank());
  geometry::PoreMask near = gather_planes(comm, sample, needs);
  sample.mask = geometry::PoreMask{};  // this rank's read planes: all where they are needed now
  const std::uint64_t plane = static_cast<std::uint64_t>(near.dims.nx) * static_cast<std::uint64_t>(near.dims.ny);
  const auto at = [&](std::int64_t z) {
    const auto i = z >= z0 && z < z1 ? z - z0 : std::find(held.begin() + (z1 - z0), held.end(), z) - held.begin();
    return near.pore.data() + plane * static_cast<std::uint64_t>(i);
  };
  geometry::PoreMask local;
  local.dims = geometry::Dims{near.dims.nx, near.dims.ny, static_cast<std::int64_t>(mine.planes.size())};
  local.pore.resize(local.dims.voxels());
  const auto n = static_cast<std::int64_t>(mine.planes.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    std::memcpy(local.pore.data() + plane * static_cast<std::uint64_t>(i), at(mine.planes[static_cast<std::size_t>(i)]), plane);
  }
  if (sample.slabs->widths) {
    // the contiguous planes around the slab, first in `near` (not the ghosts across a wrap: the
    // classes do not wrap)
    near.pore.resize(plane * static_cast<std::uint64_t>(z1 - z0));
    near.dims.nz = z1 - z0;
    sample.widths.prepare_slab(std::move(near), sample.plane_fluid, sample.sample_begin, sample.sample_end,
                               sample.slabs->flow_axis, z0, mine.slab.z_begin, mine.slab.z_end, sample.slabs->threads);
  }
  return local;
}

}  // namespace

RankLattice decompose(const parallel::Comm& comm, Sample& sample, const geometry::Periodicity& periodic,
                      backend::Propagation propagation, geometry::EdgeContacts edges, OneRank one_rank,
                      lattice::LatticeTables tables, const std::vector<double>& shares) {
  const auto start = std::chrono::steady_clock::now();
  // a file read on slabs: this rank's share of its host's cores, as for the read (all of them
  // on each of 4 ranks was 4x the cores, and the lattice stage waited on descheduled threads)
  const ScopedThreads threads(sample.slabs ? sample.slabs->threads : 0);
  RankLattice r;
  const bool negative = propagation == backend::Propagation::fused;
  r.slabs = shares.empty() ? parallel::partition_slabs(sample.plane_fluid, comm.size())
                           : parallel::partition_slabs(sample.plane_fluid, shares);
  if (comm.size() == 1 && one_rank == OneRank::whole) {
    r.lattice = lattice::SparseLattice::build(std::move(sample.mask), periodic, negative, false, edges, tables);
    r.z_end = sample.dims.nz;
  } else {
    r.domain = parallel::slab_domain(r.slabs, comm.rank(), sample.dims.nz, periodic[2]);
    geometry::PoreMask local = sample.slabs ? planes_from_slabs(comm, sample, r.slabs, periodic[2])
                                            : distribute_planes(comm, sample.mask, sample.dims, r.slabs, *r.domain, periodic[2]);
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
