#pragma once
// Stage 2: this rank's part of the sample. One process builds the lattice of the whole sample;
// several split it into fluid-balanced Z-slabs, rank 0 sends each rank its planes (and ghost
// planes), and each builds its slab's lattice.
#include <cstdint>
#include <optional>
#include <vector>

#include "lib/backend/byte_model.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/parallel/partition.hpp"
#include "pipeline/sample.hpp"

namespace rockperm::pipeline {

struct RankLattice {
  std::vector<parallel::Slab> slabs;           // every rank's planes
  std::optional<parallel::SlabDomain>
      domain;                        // this rank's slab with its ghost planes (several ranks, or OneRank::slab)
  lattice::SparseLattice lattice;    // local cells, ghosts included
  std::int64_t first_local_z = 0;    // global z of local plane 0 (a ghost plane on slabs)
  std::int64_t z_begin = 0, z_end = 0;  // the global planes this rank owns
  double seconds = 0;                   // partition, distribution and lattice build
};

// Each rank's local mask (its planes and ghost planes of `mask`, held by rank 0; the other ranks
// pass an empty mask of the whole `dims`), sent from rank 0. Any bytes per voxel travel alike (the
// two-phase flow sends its phases' codes so).
geometry::PoreMask distribute_planes(const parallel::Comm& comm, const geometry::PoreMask& mask,
                                     const geometry::Dims& dims, const std::vector<parallel::Slab>& slabs,
                                     const parallel::SlabDomain& mine, bool periodic_z);

// What one process makes of the whole sample: its lattice (a run), or one slab whose lower and
// upper neighbour is the process itself across the periodic z wrap (`rockperm bench --loopback`:
// the decomposed step, halos and exchange included, timed on one device).
enum class OneRank { whole, slab };

// Takes sample.mask from rank 0 (it is empty afterwards). `tables`: where the neighbour tables
// are built (lattice_tables(plan) in pipeline/execution.hpp: deferred to the GPU's backend).
// `shares`: every rank's share of the fluid cells (ExecutionPlan::shares; empty: equal slabs).
RankLattice decompose(const parallel::Comm& comm, Sample& sample, const geometry::Periodicity& periodic,
                      backend::Propagation propagation, geometry::EdgeContacts edges, OneRank one_rank = OneRank::whole,
                      lattice::LatticeTables tables = lattice::LatticeTables::host,
                      const std::vector<double>& shares = {});

}  // namespace rockperm::pipeline
