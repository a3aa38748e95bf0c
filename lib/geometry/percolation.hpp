#pragma once
// Percolation filter: keep only the pore clusters that connect the inlet face to the outlet
// face along the flow axis through the links the lattice keeps (faces, and edges unless edge
// contacts are sealed: lib/geometry/connectivity.hpp). Pores
// that touch only one face, or none, carry no flow; removing them changes neither the flux
// nor k, but it saves memory and time, and a sample with no connecting cluster is reported
// before any simulation.
#include <cstdint>

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

}  // namespace rockperm::geometry
