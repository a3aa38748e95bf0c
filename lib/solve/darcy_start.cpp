#include "lib/solve/darcy_start.hpp"

#include <algorithm>
#include <cmath>

#include "lib/base/error.hpp"
#include "lib/geometry/distance_transform.hpp"

namespace rockperm::solve {

namespace {
// x less its mean over every rank's cells (a pressure is known up to a constant; a rate of the
// conserved mass sums to zero but for the floats' rounding)
void remove_mean(const parallel::Comm& comm, std::vector<double>& x) {
  double sum = 0;
  for (const double v : x) sum += v;
  const double cells = comm.sum(static_cast<double>(x.size()));
  const double mean = cells > 0 ? comm.sum(sum) / cells : 0.0;
  for (double& v : x) v -= mean;
}
}  // namespace

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

DarcyModel::DarcyModel(const parallel::Comm& comm, const lattice::SparseLattice& local, const ConductionSlab& slab,
                       const DarcyStartProblem& problem, const ConductionEngineFactory& engine)
    : comm_(comm) {
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
  p.check_interval = 1;  // the residual is known at every iteration: stop at the first below the tolerance
  system_ = std::make_unique<ConductionSystem>(comm, local, slab, p, engine);
  correction_tolerance_ = problem.correction_tolerance;
}

DarcyStart DarcyModel::start() {
  DarcyStart s;
  s.solve = system_->solve();
  std::vector<double> x = std::move(s.solve.solution);
  s.solve.solution = {};
  open_current_ = system_->current();
  steady_current_ = system_->current(&x);
  remove_mean(comm_, x);  // the start adds no mass
  s.density_per_force.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) s.density_per_force[i] = static_cast<float>(3.0 * x[i]);
  return s;
}

std::vector<double> DarcyModel::inverse(const std::vector<double>& rate) {
  system_->set_tolerance(correction_tolerance_);
  ConductionResult solved = system_->solve(false, {}, &rate);
  last_iterations_ = solved.iterations;
  std::vector<double> x = std::move(solved.solution);
  if (x.size() != rate.size()) x.assign(rate.size(), 0.0);  // no right-hand side at all: nothing to correct
  remove_mean(comm_, x);
  return x;
}

double DarcyModel::relative_flux(const std::vector<double>& density_per_force) const {
  if (!(steady_current_ > 0)) return 0.0;
  // the density is 3 x (c_s^2 rho' = x g): the current of x = rho' / 3g beyond the open one's
  std::vector<double> x(density_per_force.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = density_per_force[i] / 3.0;
  return (system_->current(&x) - open_current_) / steady_current_;
}

DensityCorrection::DensityCorrection(const parallel::Comm& comm, const DensityCorrectionSettings& settings, double nu,
                                     double drop)
    : comm_(comm), settings_(settings), nu_(nu), drop_(drop), beta_(3.0 * nu / settings.first_scale),
      next_hold_(settings.settle) {}

bool DensityCorrection::wants_density(std::int64_t step) const {
  if (!active()) return false;
  return held_at_ < 0 ? step >= next_hold_ : step >= held_at_ + std::max(settings_.interval, 2 * stretched_);
}

std::vector<double> DensityCorrection::density(std::int64_t step, const std::vector<float>& rho,
                                               const std::function<std::vector<double>(const std::vector<double>&)>& inverse,
                                               const std::function<double(const std::vector<double>&)>& effect) {
  if (held_at_ < 0) {
    held_ = rho;
    held_at_ = step;
    return {};
  }
  const std::size_t n = rho.size();
  if (held_.size() != n) throw RuntimeFailure("internal: a density correction over another set of cells");
  // the rate must stand above the floats' resolution of the density: else wait (the interval
  // doubled), and where even the longest interval does not show it, the model can see no more
  double changes = 0, values = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(rho[i]) - held_[i];
    changes += d * d;
    values += static_cast<double>(rho[i]) * rho[i];
  }
  changes = comm_.sum(changes);
  values = comm_.sum(values);
  if (std::sqrt(changes) < settings_.resolution * 5.96e-8 * std::sqrt(values)) {
    if (step - held_at_ < settings_.max_stretch * settings_.interval) {
      stretched_ = step - held_at_;
      return {};
    }
    done_ = true;
    held_ = {};
    held_at_ = -1;
    return {};
  }
  const double steps = static_cast<double>(step - held_at_);
  std::vector<double> rate(n);
  for (std::size_t i = 0; i < n; ++i) rate[i] = (static_cast<double>(rho[i]) - held_[i]) / steps;
  remove_mean(comm_, rate);  // the model's singular operator takes no constant part
  held_ = {};
  held_at_ = -1;
  next_hold_ = step + settings_.settle;
  std::vector<double> x = inverse(rate);  // the distance's shape, unscaled
  std::vector<double> change(n, 0.0);
  if (!rate_before_.empty()) {
    // the rate the last correction removed, against the one the model predicted: in the A-norm
    // (x . A x, the rates' pairing with the model's shapes), which weighs the slow modes
    double num = 0, den = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double removed = rate_before_[i] - rate[i];
      num += shape_before_[i] * removed;
      den += (shape_before_[i] - x[i]) * removed;
    }
    num = comm_.sum(num);
    den = comm_.sum(den);
    const double gamma = den > 0 ? std::clamp(num / den, settings_.min_factor, settings_.max_factor) : 1.0;
    if (gamma != 1.0) {  // the last correction resized; the state, rate and shape as the model says they then are
      for (std::size_t i = 0; i < n; ++i) {
        change[i] += (gamma - 1.0) * added_before_[i];
        rate[i] -= (gamma - 1.0) * (rate_before_[i] - rate[i]);
        x[i] -= (gamma - 1.0) * (shape_before_[i] - x[i]);
      }
    }
    beta_ *= gamma;
  }
  // the e-folding time of what is left in the model's shape: its Rayleigh quotient x.Ax = x.R
  double xx = 0, xr = 0;
  for (std::size_t i = 0; i < n; ++i) {
    xx += x[i] * x[i];
    xr += x[i] * rate[i];
  }
  xx = comm_.sum(xx);
  xr = comm_.sum(xr);
  slow_time_ = xr != 0 ? std::abs(beta_ * xx / xr) : 0.0;
  stretched_ = 0;
  std::vector<double> added(n);
  double squares = 0;
  for (std::size_t i = 0; i < n; ++i) {
    added[i] = beta_ * x[i];
    change[i] += added[i];
    squares += added[i] * added[i];
  }
  const double all = comm_.sum(static_cast<double>(n));
  last_size_ = all > 0 && drop_ > 0 ? std::sqrt(comm_.sum(squares) / all) / drop_ : 0.0;
  shape_before_ = std::move(x);
  rate_before_ = std::move(rate);
  added_before_ = std::move(added);
  ++cycles_;
  last_effect_ = std::abs(effect(added_before_));
  if (error_floor() < settings_.until) done_ = converged_ = true;  // k hardly moves by it
  return change;
}

}  // namespace rockperm::solve
