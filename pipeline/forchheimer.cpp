#include "pipeline/forchheimer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "lib/base/error.hpp"
#include "lib/physics/collision.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/solve/solver.hpp"
#include "lib/solve/time_scales.hpp"

namespace rockperm::pipeline {

namespace {

std::string text(double v, int digits = 3) {
  std::ostringstream o;
  o.precision(digits);
  o << v;
  return o.str();
}

// A point of the sweep from a check of the loop.
ForchheimerPoint point_of(const physics::Permeability& k, double tau, double force, double phi, double diameter,
                          double dx_m, double k_md) {
  ForchheimerPoint p;
  const double nu = physics::viscosity(tau), q = k.darcy_velocity;
  p.reynolds = q / phi * diameter / nu;
  p.reynolds_k = k.reynolds;
  p.inertial_per_m = q / nu / dx_m;
  p.darcy_velocity = q;
  p.k_md = k.k_md;
  p.k_ratio = k_md > 0 ? k.k_md / k_md : 0.0;
  p.mach = k.mach;
  p.tau = tau;
  p.force = force;
  const double grid_reynolds = k.mach * std::sqrt(d3q19::cs2) / nu;  // u_max / nu
  p.lattice_error = ForchheimerSpec::lattice_error_coefficient * grid_reynolds * grid_reynolds;
  return p;
}

}  // namespace

std::int64_t rate_check_interval(const geometry::PoreStatistics& pores, double nu, std::int64_t run_interval) {
  const double half = 0.5 * solve::time_scales(pores, 1.0, nu).momentum;  // the momentum time needs no length
  const std::int64_t even = solve::even_interval(static_cast<std::int64_t>(std::ceil(half)));
  return std::min(run_interval, std::max(ForchheimerSpec::min_check_interval, even));
}

double pore_diameter_voxels(const geometry::PoreStatistics& pores) {
  return pores.specific_surface > 0 ? 4.0 * pores.porosity / (pores.specific_surface * 2.0 / 3.0) : 0.0;
}

double reachable_reynolds(double diameter, double peak) {
  return ForchheimerSpec::max_grid_reynolds * diameter / std::max(peak, 1.0);  // Re = (u_max / nu) d / peak
}

void check_forchheimer_reach(const ForchheimerSpec& spec, const geometry::PoreStatistics& pores) {
  if (!spec.enabled) return;
  const double d = pore_diameter_voxels(pores);
  const double reach = reachable_reynolds(d, 1.5);
  if (!(spec.max_reynolds <= reach * (1 + 1e-9))) {
    throw InputError("forchheimer.max_reynolds",
                     "a pore Reynolds number of " + text(spec.max_reynolds) + " is beyond the lattice's reach on this "
                     "sample: its pores are " + text(d) + " voxels across (4 phi / S), and the lattice holds the fastest "
                     "velocity at most " + text(ForchheimerSpec::max_grid_reynolds) + " voxels per viscous time (u_max / nu), so even "
                     "with a slit's flat profile (the fastest 1.5 times the mean) the flow reaches at most Re " +
                     text(reach) + "; ask at most that, or scan the rock finer (the reach grows with the pores' width "
                     "in voxels)");
  }
}

ForchheimerFit fit_forchheimer(const std::vector<ForchheimerPoint>& points) {
  ForchheimerFit fit;
  std::size_t first = points.size();
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (points[i].k_ratio <= 0.99) {
      first = i;
      break;
    }
  }
  if (points.size() < 2 || first + 1 >= points.size()) return fit;
  // y = 1 / k_app (1/m^2) against x = rho q / mu (1/m)
  const std::size_t n = points.size() - first;
  double sx = 0, sy = 0;
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    const ForchheimerPoint& p = points[first + i];
    x[i] = p.inertial_per_m;
    y[i] = 1.0 / (p.k_md * 1e-3 * physics::m2_per_darcy);
    sx += x[i];
    sy += y[i];
  }
  const double mx = sx / static_cast<double>(n), my = sy / static_cast<double>(n);
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (!(sxx > 0)) return fit;
  const double slope = sxy / sxx, intercept = my - slope * mx;
  if (!(intercept > 0) || !(slope > 0)) return fit;
  double r2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double fitted = 1.0 / (intercept + slope * x[i]), measured = 1.0 / y[i];
    r2 += (fitted - measured) / measured * ((fitted - measured) / measured);
  }
  fit.done = true;
  const double k_m2 = 1.0 / intercept;
  fit.k_md = k_m2 / physics::m2_per_darcy * 1e3;
  fit.beta_per_m = slope;
  fit.c_f = slope * std::sqrt(k_m2);
  fit.residual = std::sqrt(r2 / static_cast<double>(n));
  fit.first = first;
  fit.last = points.size() - 1;
  return fit;
}

double onset_reynolds(const std::vector<ForchheimerPoint>& points, double drop) {
  const double level = 1.0 - drop;
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (points[i].k_ratio > level) continue;
    const ForchheimerPoint &a = points[i - 1], &b = points[i];
    if (!(a.reynolds > 0) || !(b.reynolds > a.reynolds) || !(a.k_ratio > b.k_ratio)) return b.reynolds;
    const double t = (a.k_ratio - level) / (a.k_ratio - b.k_ratio);
    return std::exp(std::log(a.reynolds) + t * (std::log(b.reynolds) - std::log(a.reynolds)));
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::string run_forchheimer(const parallel::Comm& comm, Simulation& simulation, const ForchheimerSpec& spec,
                            std::int64_t max_steps, const SweepSettings& settings, SampleResult& result) {
  ForchheimerReport& report = result.forchheimer;
  report = ForchheimerReport{};
  report.asked = true;
  report.k_md = result.k.k_md;
  report.reynolds_1pct = report.reynolds_10pct = std::numeric_limits<double>::quiet_NaN();
  if (!result.converged()) {
    report.note = "not made: k did not converge, and the sweep's k_app are relative to it";
    return {};
  }
  const auto start = std::chrono::steady_clock::now();
  const double phi = result.pores.porosity, d = pore_diameter_voxels(result.pores),
               dx_m = result.voxel_size_um * 1e-6;
  report.pore_diameter_um = d * result.voxel_size_um;
  if (!(phi > 0) || !(d > 0) || !(result.k.darcy_velocity > 0)) {
    report.note = "not made: the sample has no pore surface or no flow to raise";
    return {};
  }
  ForchheimerPoint first = point_of(result.k, result.flow.tau, result.flow.force, phi, d, dx_m, result.k.k_md);
  first.error = result.error_estimate;
  first.steps = result.steps;
  first.seconds = result.timings.solve;
  report.points.push_back(first);
  if (settings.point_done) settings.point_done(first, 0, static_cast<std::size_t>(spec.points) + 1);

  const double run_nu = physics::viscosity(result.flow.tau), k0_lattice = result.k.k_lattice;
  const double ratio = std::pow(spec.max_reynolds / spec.first_reynolds(), 1.0 / std::max(1, spec.points - 1));
  std::string stopped;
  std::string limit;  // why the sweep ends below its top: the last rate is then the highest the lattice holds
  for (int i = 0; i < spec.points && limit.empty(); ++i) {
    double target = spec.first_reynolds() * std::pow(ratio, i);
    const ForchheimerPoint& last = report.points.back();
    if (!(target > last.reynolds * 1.01)) continue;  // the creeping run is already there
    // the fastest velocity over the mean pore velocity, as the last point measured it
    const double last_q = last.darcy_velocity;
    const double peak = std::max(1.0, last.mach * std::sqrt(d3q19::cs2) / (last_q / phi));
    // the lattice holds the fastest cell's u_max / nu (its grid Reynolds number, Re peak / d: the
    // same at any tau) up to max_grid_reynolds; tau then keeps u_max at Mach 0.1 or below
    const double grid_reynolds = target * peak / d;
    if (grid_reynolds > ForchheimerSpec::max_grid_reynolds) {
      const double reach = 0.98 * ForchheimerSpec::max_grid_reynolds * d / peak;
      const bool at_reach = !(reach > last.reynolds * 1.05);  // nothing left to gain: the last rate is the reach
      limit = "the sweep ends at Re " + text(at_reach ? last.reynolds : reach) + ", short of Re " + text(target) +
              ": there the fastest velocity (" + text(peak, 3) + " times the mean pore velocity, on pores " + text(d) +
              " voxels across) would cross " + text(grid_reynolds, 3) + " voxels per viscous time (u_max / nu), beyond "
              "the " + text(ForchheimerSpec::max_grid_reynolds, 3) + " the lattice holds stably; a finer scan reaches further";
      if (at_reach) break;
      target = reach;
    }
    const double nu_mach = ForchheimerSpec::target_mach * std::sqrt(d3q19::cs2) * d / (target * peak);
    // k's tau, where the Mach limit leaves room for it: it balances the pores' momentum time against
    // the pressure mode along the sample, and a rate's change stirs both (pack512 from k at tau 0.6:
    // its rates at tau 1 took 2,600-3,000 steps for 900-1,600; docs/PERFORMANCE.md)
    const double nu = std::min(run_nu, nu_mach);
    const double tau = 0.5 + 3.0 * nu;
    const double q = target * nu * phi / d;
    // Forchheimer's law as measured so far: 1/k_app = 1/k + b q / nu (lattice units), b from the
    // last two points where they show inertia
    double b = 0;
    if (report.points.size() >= 2) {
      const ForchheimerPoint& p = report.points[report.points.size() - 2];
      const double x1 = p.darcy_velocity / physics::viscosity(p.tau), x2 = last_q / physics::viscosity(last.tau);
      const double y1 = 1.0 / (p.k_ratio * k0_lattice), y2 = 1.0 / (last.k_ratio * k0_lattice);
      if (x2 > x1 && y2 > y1) b = (y2 - y1) / (x2 - x1);
    }
    const double g = nu * q * (1.0 / k0_lattice + b * q / nu);
    // the sample's drive over the body force (buffers: the pressure the ends build up takes a share)
    const double share = simulation.drive().acceleration > 0 && simulation.flow().force > 0
                             ? simulation.drive().acceleration / simulation.flow().force
                             : 1.0;
    const double force = g / share;
    if (!(force > 0 && force <= 0.1)) {
      report.note = "the sweep ends at Re " + text(last.reynolds) + ": Re " + text(target) + " needs a body force of " +
                    text(force) + " voxel/step^2, beyond what the lattice holds";
      break;
    }
    simulation.redrive(tau, force, q / last_q, force / simulation.flow().force, max_steps, spec.tolerance,
                       rate_check_interval(result.pores, nu, simulation.check_interval()));
    const auto point_start = std::chrono::steady_clock::now();
    DriveSettings drive_settings;  // no checkpoint: a resume starts the sweep again from k's
    drive_settings.stop_requested = settings.stop_requested;
    if (settings.walltime_minutes > 0) {
      drive_settings.walltime_minutes =
          std::max(1e-3, settings.walltime_minutes -
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 60.0);
    }
    try {
      const DriveOutcome outcome = drive(comm, simulation, drive_settings, settings.progress);
      if (outcome.interrupted) {
        stopped = outcome.reason;
        report.note = "stopped at Re " + text(target) + " (" + outcome.reason + "): the points before it are reported";
        break;
      }
    } catch (const SimulationError& e) {
      report.note = "the sweep ends at Re " + text(last.reynolds) + ": the flow went unstable on the way to Re " +
                    text(target) + " (tau " + text(tau, 4) + "): " + e.what();
      break;
    }
    const solve::SolverResult& s = simulation.loop_result();
    ForchheimerPoint p = point_of(s.k, tau, force, phi, d, dx_m, result.k.k_md);
    p.error = s.error_estimate;
    p.steps = s.steps;
    p.converged = s.converged;
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - point_start).count();
    report.steps += s.steps;
    report.points.push_back(p);
    if (settings.point_done) settings.point_done(p, report.points.size() - 1, static_cast<std::size_t>(spec.points) + 1);
  }
  if (!limit.empty() && report.note.empty()) report.note = limit;
  report.fit = fit_forchheimer(report.points);
  report.reynolds_1pct = onset_reynolds(report.points, 0.01);
  report.reynolds_10pct = onset_reynolds(report.points, 0.10);
  report.done = report.points.size() >= 2;
  if (report.note.empty() && !report.fit.done) {
    report.note = report.points.back().k_ratio > 0.99
                      ? "k_app stays within 1 % of k up to Re " + text(report.points.back().reynolds) +
                            ": no point past Darcy flow for Forchheimer's line; raise forchheimer.max_reynolds"
                      : "only one point past a 1 % fall of k_app: Forchheimer's line needs two; ask more points "
                        "(forchheimer.points) or a higher forchheimer.max_reynolds";
  }
  for (const ForchheimerPoint& p : report.points) {
    if (!p.converged && report.note.find("not converge") == std::string::npos) {
      report.note += std::string(report.note.empty() ? "" : "; ") +
                     "a step did not converge within its step limit (its k_app carries its stated error)";
    }
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stopped;
}

}  // namespace rockperm::pipeline
