#pragma once
// ColourFlowRuns' state (pipeline/colour_flow.hpp), shared by its steady flow
// (pipeline/colour_flow.cpp) and its displacement (pipeline/colour_displacement.cpp). Private to
// those two files.
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/backend/colour_cpu.hpp"
#include "lib/geometry/inlet_outlet.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/partition.hpp"
#include "lib/solve/colour_slabs.hpp"
#include "pipeline/colour_flow.hpp"
#include "pipeline/decomposition.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/colour_gpu.hpp"
#endif

namespace rockperm::pipeline {

// The bytes of a vector of plain values, and back (what rank 0 sends the others).
template <class T>
inline std::vector<std::uint8_t> as_bytes(const std::vector<T>& v) {
  std::vector<std::uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}
template <class T>
inline std::vector<T> from_bytes(const std::vector<std::uint8_t>& b) {
  std::vector<T> out(b.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), b.data(), out.size() * sizeof(T));
  return out;
}

struct ColourFlowRuns::State {
  parallel::Comm comm;
  RunSpec spec;
  ExecutionPlan plan;
  geometry::Dims dims;  // the sample's
  double k_voxels = 0, pore_voxels = 0;
  geometry::InletOutlet mode = geometry::InletOutlet::mirror;
  ColourFlowRuns::Domain kind = ColourFlowRuns::Domain::mirrored;
  int layers = 0;  // Domain::reservoirs: each reservoir's planes along the flow
  std::int64_t sample_begin = 0, sample_end = 0;  // the sample's planes of the domain along the flow
  geometry::Periodicity periodic{};
  // the extended domain (the sample and its mirror image along the flow), built at the first point:
  // its dims, every rank's slab of it (one rank: the whole), this rank's slab and lattice
  geometry::Dims domain_dims;
  std::vector<parallel::Slab> slabs;
  std::optional<parallel::SlabDomain> domain;  // several ranks
  std::optional<lattice::SparseLattice> lattice;
  std::uint32_t cell_offset = 0;
  physics::colour::ColourParams params;
  double reference_flux = 0, reference_error = 0;  // the single phase's (phase A alone), at the first point
  std::string reference_note;
  std::vector<std::uint8_t> wall_codes;  // the sample's, as given (rank 0; empty: one wetting)
  bool labelled = false;                 // wetting by label (every rank)
  std::vector<float> wall_phi;           // per cell of the lattice, from wall_codes (built with it)

  bool slabs_run() const { return domain.has_value(); }
  // The domain's plane along the flow axis of a cell of this rank's lattice.
  std::int64_t along(const lattice::Coord& k, int axis) const {
    if (axis != 2 || !slabs_run()) return axis == 0 ? k.x : axis == 1 ? k.y : k.z;
    return domain->slab.z_begin + k.z - (domain->ghost_low ? 1 : 0);
  }
  // the displacement's model, kept from the drainage to the imbibition, and its description
  std::unique_ptr<backend::ColourBackend> displacing;
  std::string backend;
  std::string note;  // why the displacement was not made, or stopped
  // Collective: why the lattice's cells do not fit some rank's GPU, the first rank's reason (empty:
  // they fit, or the plan has no GPU)
  std::string memory_refusal() const;

  // This rank's part of a whole volume of the extended domain's (rank 0's; one byte per voxel).
  geometry::PoreMask local(const geometry::PoreMask& whole) const {
    if (!slabs_run()) return whole;
    return distribute_planes(comm, whole, domain_dims, slabs, *domain, periodic[2]);
  }

  std::unique_ptr<backend::ColourBackend> model(const std::vector<float>& phi, const physics::colour::ColourParams& p) const {
    std::unique_ptr<backend::ColourBackend> mine;
#if ROCKPERM_HAVE_CUDA
    if (plan.cuda) mine = std::make_unique<cuda::ColourGpu>(*lattice, p, phi, plan.device, plan.storage, cell_offset);
#endif
    if (!mine) mine = std::make_unique<backend::ColourCpu>(*lattice, p, phi, plan.storage, cell_offset);
    if (!slabs_run()) return mine;
    return std::make_unique<solve::ColourSlabs>(std::move(mine), comm, *domain, *lattice, domain_dims.nz);
  }

  // The extended domain's lattice on this rank (the first point's `extended`, rank 0's).
  void build(const geometry::ExtendedSample& extended);
};

}  // namespace rockperm::pipeline
