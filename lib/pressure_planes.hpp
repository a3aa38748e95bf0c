#pragma once
// Mean density over the fluid cells of one plane across the flow axis, for the pressure
// difference across a sample with buffers. Computed once, from populations on the host.
#include <cstdint>
#include <vector>

#include "lib/collision.hpp"
#include "lib/sparse_lattice.hpp"

namespace rockperm {

struct PlaneDensity {
  double sum = 0;          // sum of rho over the fluid cells of the plane (this rank's owned cells)
  std::uint64_t cells = 0;
};

// `first_local_z`: the global z of local plane 0 (slab lattices start at a ghost plane).
PlaneDensity plane_density(const SparseLattice& lattice, const std::vector<float>& f,
                           const physics::CollisionParams& params, int flow_axis, std::int64_t plane,
                           std::int64_t first_local_z);

// The body acceleration that drives the sample itself: g minus the pressure gradient across
// it, (p_out - p_in) / (rho L) with p = rho / 3, from the mean densities of the planes just
// before and just after the sample, L apart.
double effective_acceleration(double g, double rho_in, double rho_out, double length);

}  // namespace rockperm
