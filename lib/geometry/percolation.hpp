#pragma once
// Percolation filter: keep only the pore clusters that connect the inlet face to the outlet
// face along the flow axis through the links the lattice keeps (faces, and edges unless edge
// contacts are sealed: lib/geometry/connectivity.hpp). Pores
// that touch only one face, or none, carry no flow; removing them changes neither the flux
// nor k, but it saves memory and time, and a sample with no connecting cluster is reported
// before any simulation.
#include <cstdint>
#include <memory>
#include <span>

#include "lib/base/error.hpp"

#include "lib/geometry/connectivity.hpp"
#include "lib/geometry/pore_mask.hpp"

namespace rockperm::geometry {

struct PercolationReport {
  std::uint64_t voxels = 0;
  std::uint64_t pore = 0;       // before the filter
  std::uint64_t connected = 0;  // after
  double total_porosity() const { return static_cast<double>(pore) / static_cast<double>(voxels); }
  double connected_porosity() const { return static_cast<double>(connected) / static_cast<double>(voxels); }
  double removed_fraction() const { return pore ? 1.0 - static_cast<double>(connected) / pore : 0.0; }
};

// Filters `mask` in place. `periodic` tells which lateral axes wrap (the flow axis never does
// here: its faces are the inlet and the outlet). Throws PhysicsError when no cluster connects
// them (k = 0: no valid Darcy permeability to compute).
// `edges`: with open edge contacts (the default) clusters join through the D3Q19 edge links
// too (18-connectivity), with sealed ones through faces only (6-connectivity).
PercolationReport keep_percolating_pores(PoreMask& mask, int flow_axis, const Periodicity& periodic,
                                         EdgeContacts edges = EdgeContacts::open);

// The pore clusters of a slab of planes: what the filter of a volume decomposed over ranks joins
// (lib/parallel/slab_percolation.hpp), and what the filter of a whole volume is made of. `mask`
// holds `owned` planes, global z from `z_first` of `nz`, then, with `ghost_above`, the plane
// above them (the next slab's first, also across a periodic wrap): its runs join the owned ones
// they touch but are not the slab's. A whole volume (z_first 0, owned nz, no ghost) wraps in z
// itself where `periodic` says so; a slab leaves that to its ghost plane.
class SlabClusters {
 public:
  static constexpr std::uint32_t no_cluster = 0xFFFFFFFFu;
  static constexpr std::uint8_t inlet = 1, outlet = 2;  // touches(): the faces at 0 and at the end of the flow axis
  SlabClusters(const PoreMask& mask, std::int64_t owned, bool ghost_above, std::int64_t z_first, std::int64_t nz,
               int flow_axis, const Periodicity& periodic, EdgeContacts edges);
  ~SlabClusters();
  SlabClusters(const SlabClusters&) = delete;
  SlabClusters& operator=(const SlabClusters&) = delete;
  // The cluster of every pore run (maximal along x) of local plane z, rows in y order, runs in x
  // order: the same runs wherever the plane is read. A cluster is named by its lowest owned run;
  // a ghost run that joins no owned run has no_cluster.
  std::vector<std::uint32_t> plane_clusters(std::int64_t z) const;
  std::uint8_t touches(std::uint32_t cluster) const;  // inlet | outlet, as far as the slab sees
  // Clears the owned runs of every cluster but those kept (threads share the work): a cluster of
  // `boundary` (those that reach a cut, as plane_clusters names them) where its byte of
  // `boundary_keep` is set, any other where it touches both faces. Returns the pore voxels kept.
  std::uint64_t filter(PoreMask& mask, std::span<const std::uint32_t> boundary = {},
                       std::span<const std::uint8_t> boundary_keep = {}) const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The error of a pore space with no cluster from inlet to outlet (dims: the whole sample's).
PhysicsError no_path(const Dims& dims, int flow_axis, EdgeContacts edges);

}  // namespace rockperm::geometry
