#include "lib/solve/darcy_start.hpp"

#include <algorithm>
#include <cmath>

#include "lib/base/error.hpp"
#include "lib/geometry/distance_transform.hpp"

namespace rockperm::solve {

std::vector<double> darcy_conductances(const lattice::SparseLattice& local, const std::vector<double>& grey_permeability,
                                       bool ghost_low, bool ghost_high) {
  const geometry::Dims d = local.dims();
  const geometry::Periodicity& periodic = local.periodic();
  // the box with a layer around it: solid where a side is a wall (not periodic, no ghost plane)
  const bool wall[3][2] = {{!periodic[0], !periodic[0]}, {!periodic[1], !periodic[1]}, {!periodic[2] && !ghost_low, !periodic[2] && !ghost_high}};
  const geometry::Dims p{d.nx + 2, d.ny + 2, d.nz + 2};
  std::vector<std::uint8_t> solid(static_cast<std::size_t>(p.voxels()), 1);
#pragma omp parallel for schedule(static)
  for (std::int64_t z = 0; z < p.nz; ++z) {
    for (std::int64_t y = 0; y < p.ny; ++y) {
      for (std::int64_t x = 0; x < p.nx; ++x) {
        const std::int64_t c[3] = {x, y, z}, n[3] = {p.nx, p.ny, p.nz};
        bool pad = false, is_wall = false;
        for (int a = 0; a < 3; ++a) {
          if (c[a] == 0 || c[a] == n[a] - 1) {
            pad = true;
            is_wall = is_wall || wall[a][c[a] == 0 ? 0 : 1];
          }
        }
        // a pad voxel that is no wall stands for what lies beyond (unknown here): not a seed
        solid[static_cast<std::size_t>(p.linear(x, y, z))] = pad ? (is_wall ? 1 : 0) : 1;
      }
    }
  }
  const auto& coords = local.coords();
  const std::uint64_t n = local.fluid_count();
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(n); ++k) {
    const lattice::Coord& c = coords[static_cast<std::size_t>(k)];
    solid[static_cast<std::size_t>(p.linear(c.x + 1, c.y + 1, c.z + 1))] = 0;
  }
  const HostArray<std::uint8_t> d2 = geometry::squared_distance_within(p, solid.data(), darcy_reach);
  const double cap = (darcy_reach + 0.5) * (darcy_reach + 0.5);
  const auto& phases = local.phases();
  std::vector<double> c(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(n); ++k) {
    const auto i = static_cast<std::size_t>(k);
    const lattice::Coord& x = coords[i];
    const double distance = std::sqrt(std::min<double>(d2[static_cast<std::size_t>(p.linear(x.x + 1, x.y + 1, x.z + 1))], cap));
    const double open = (std::max(1.0, distance) - 0.5) * (std::max(1.0, distance) - 0.5);
    const std::size_t phase = phases.size() != 0 ? phases[i] : 0;
    c[i] = phase == 0 || phase > grey_permeability.size() ? open : std::min(open, grey_permeability[phase - 1]);
  }
  return c;
}

DarcyStart darcy_start(const parallel::Comm& comm, const lattice::SparseLattice& local, const ConductionSlab& slab,
                       const DarcyStartProblem& problem, const ConductionEngineFactory& engine) {
  const bool ghost_low = slab.domain && slab.domain->ghost_low, ghost_high = slab.domain && slab.domain->ghost_high;
  ConductionProblem p;
  p.axis = problem.axis;
  p.cell_conductivity = darcy_conductances(local, problem.grey_permeability, ghost_low, ghost_high);
  p.stencil = ConductionProblem::Stencil::links;
  p.region_voxels = problem.region_voxels;
  p.sample_end = problem.whole[problem.axis];
  p.tolerance = problem.tolerance;
  p.max_iterations = problem.max_iterations > 0 ? problem.max_iterations : ConductionProblem::automatic_iterations(problem.whole);
  p.keep_solution = true;
  p.residual_stop = true;
  DarcyStart s;
  s.solve = solve_conduction(comm, local, slab, p, false, {}, engine);
  p.cell_conductivity = {};
  // less the mean over every rank's cells: the start adds no mass
  const std::vector<double>& x = s.solve.solution;
  double sum = 0;
  for (const double v : x) sum += v;
  const double cells = comm.sum(static_cast<double>(x.size()));
  const double mean = cells > 0 ? comm.sum(sum) / cells : 0.0;
  s.density_per_force.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) s.density_per_force[i] = static_cast<float>(3.0 * (x[i] - mean));
  s.solve.solution = {};
  return s;
}

}  // namespace rockperm::solve
