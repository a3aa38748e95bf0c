#include "lib/physics/permeability.hpp"

#include <cmath>

#include "lib/physics/collision.hpp"

namespace rockperm::physics {

Permeability permeability(const FlowSums& sums, const FlowProblem& problem) {
  return permeability(sums, problem, sums.velocity[problem.flow_axis] / static_cast<double>(problem.region_voxels));
}

Permeability permeability(const FlowSums& sums, const FlowProblem& problem, double darcy_velocity) {
  Permeability k;
  const double nu = physics::viscosity(problem.tau);
  const double flux = sums.velocity[problem.flow_axis];
  k.porosity = static_cast<double>(problem.region_fluid) / static_cast<double>(problem.region_voxels);
  k.darcy_velocity = darcy_velocity;
  k.k_lattice = nu * k.darcy_velocity / problem.acceleration;
  const double dx_m = problem.voxel_size_um * 1e-6;
  k.k_m2 = k.k_lattice * dx_m * dx_m;
  k.k_darcy = k.k_m2 / m2_per_darcy;
  k.k_md = k.k_darcy * 1e3;
  k.tortuosity = flux != 0.0 ? sums.speed / flux : 0.0;
  k.reynolds = k.k_lattice > 0 ? std::abs(k.darcy_velocity) * std::sqrt(k.k_lattice) / nu : 0.0;
  k.mach = sums.max_speed / std::sqrt(d3q19::cs2);
  return k;
}

}  // namespace rockperm::physics
