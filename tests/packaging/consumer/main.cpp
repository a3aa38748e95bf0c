// The permeability of a 16^3 slit (plates at y = 0 and y = 15, periodic along x and z) through
// rockperm's library API, against the analytic value H^2 / 12 times the porosity (H = 14 voxels
// between the half-way bounce-back walls). Exit status 0 when within 1 %.
#include <cmath>
#include <cstdio>

#include "lib/backend/cpu_backend.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/solve/solver.hpp"

int main() {
  using namespace rockperm;
  const geometry::Dims dims{16, 16, 16};
  geometry::PoreMask mask{dims, std::vector<std::uint8_t>(dims.voxels())};
  for (std::int64_t z = 0; z < dims.nz; ++z)
    for (std::int64_t y = 0; y < dims.ny; ++y)
      for (std::int64_t x = 0; x < dims.nx; ++x) mask.pore[dims.linear(x, y, z)] = (y > 0 && y < 15) ? 1 : 0;
  const lattice::SparseLattice lattice = lattice::SparseLattice::build(mask, {true, false, true});
  physics::FlowProblem problem;
  problem.flow_axis = 0;
  problem.tau = 1.0;
  problem.acceleration = 1e-5;
  problem.region_voxels = dims.voxels();
  problem.region_fluid = lattice.fluid_count();
  const auto params = physics::make_collision_params(physics::CollisionModel::trt, problem.tau, 3.0 / 16.0, 0,
                                                     problem.acceleration);
  backend::CpuBackend backend(lattice, params);
  solve::RunControls controls;
  const solve::SolverResult result = solve::run_to_steady_state(backend, lattice, problem, controls);
  const double expected = 14.0 * 14.0 / 12.0 * (14.0 / 16.0);
  std::printf("k = %.6f voxel^2 (analytic %.6f) after %lld steps, converged %s\n", result.k.k_lattice, expected,
              static_cast<long long>(result.steps), result.converged ? "yes" : "no");
  return result.converged && std::abs(result.k.k_lattice / expected - 1.0) < 0.01 ? 0 : 1;
}
