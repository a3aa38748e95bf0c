#pragma once
// The start of every run and plan: rank 0 reads the sample and makes its pore mask; every
// rank learns the fluid count of each plane (enough to partition), and receives the planes of
// its own slab only.
#include <cstdint>
#include <vector>

#include "lib/comm.hpp"
#include "lib/config.hpp"
#include "lib/partition.hpp"
#include "lib/pore_mask.hpp"

namespace rockperm::app {

struct SampleLayout {
  Dims dims;
  std::vector<std::uint64_t> plane_fluid;  // on every rank
  std::uint64_t fluid = 0;
  double read_seconds = 0;
};

// Rank 0 reads; an input error is thrown on every rank (rank 0 reports it). `mask` is filled
// on rank 0 only.
SampleLayout read_sample(const Comm& comm, const config::RunConfig& cfg, PoreMask& mask);

// Each rank's local mask (its planes and ghost planes), sent from rank 0.
PoreMask distribute_planes(const Comm& comm, const PoreMask& mask, const Dims& dims, const std::vector<Slab>& slabs,
                           const SlabDomain& mine, bool periodic_z);

}  // namespace rockperm::app
