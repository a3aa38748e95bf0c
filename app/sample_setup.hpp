#pragma once
// The start of every run and plan: rank 0 reads the sample and makes its pore mask; every
// rank learns the fluid count of each plane (enough to partition), and receives the planes of
// its own slab only.
#include <cstdint>
#include <vector>

#include "io/volume_source.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/config.hpp"
#include "lib/parallel/partition.hpp"
#include "lib/geometry/percolation.hpp"
#include "lib/geometry/pore_mask.hpp"

namespace rockperm::app {

struct SampleLayout {
  Dims dims;                               // after the crop, with buffers or mirror image
  std::int64_t sample_begin = 0, sample_end = 0;  // the sample's planes along the flow axis
  double voxel_size_um = 0;                // from the configuration, else from the file
  std::string format;                      // what the file turned out to be
  std::vector<std::uint64_t> plane_fluid;  // on every rank
  std::uint64_t fluid = 0;
  PercolationReport percolation;           // pore before and after the filter
  double read_seconds = 0;                 // rank 0's stage times
  double percolation_seconds = 0;
};

// The reader's view of the [input] section.
io::VolumeSpec volume_spec(const config::RunConfig& cfg);

// Rank 0 reads; an input error is thrown on every rank (rank 0 reports it). `mask` is filled
// on rank 0 only.
SampleLayout read_sample(const Comm& comm, const config::RunConfig& cfg, PoreMask& mask);

// Each rank's local mask (its planes and ghost planes), sent from rank 0.
PoreMask distribute_planes(const Comm& comm, const PoreMask& mask, const Dims& dims, const std::vector<Slab>& slabs,
                           const SlabDomain& mine, bool periodic_z);

}  // namespace rockperm::app
