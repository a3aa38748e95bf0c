#include "lib/solve/solver.hpp"

#include <chrono>
#include <cmath>

#include "lib/solve/pressure_planes.hpp"

namespace rockperm::solve {

std::int64_t even_interval(std::int64_t interval) {
  interval = std::max<std::int64_t>(1, interval);
  return interval + interval % 2;
}

SteadyStateLoop::SteadyStateLoop(Stepper& stepper, std::uint64_t fluid_cells, MeasureFn measure,
                                 const RunControls& controls, PrepareFn prepare)
    : stepper_(stepper),
      fluid_cells_(fluid_cells),
      measure_(std::move(measure)),
      prepare_(std::move(prepare)),
      controls_(controls),
      interval_(even_interval(controls.check_interval)),
      monitor_(controls.monitor, stepper.sums().mass, interval_),
      extrapolation_(controls.extrapolation, interval_) {
  controls_.max_steps += controls_.max_steps % 2;
}

const SolverResult& SteadyStateLoop::next_check() {
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t before = step_;
  const std::int64_t chunk = std::min(interval_, controls_.max_steps - step_);
  bool natural = true;
  // the chunk is even (so is the lag): the populations are in natural order before the lag
  const std::int64_t lag = std::min(controls_.monitor.measure_lag, chunk);
  lag_ = lag;
  for (std::int64_t s = 0; s < chunk - lag; ++s) natural = stepper_.advance(step_ + s);
  if (prepare_) prepare_();
  for (std::int64_t s = chunk - lag; s < chunk; ++s) natural = stepper_.advance(step_ + s);
  step_ += chunk;
  if (!natural) {  // a fused run stopped at the step limit on an even step: finish the pair
    stepper_.advance(step_);
    ++step_;
  }
  // a jump where the run is far from steady; where it may stop within a few checks a jump (which
  // restarts the monitor) would only delay it, unless the last jump is being verified and k cannot
  // tell a steady state from a hidden slow mode (lib/solve/extrapolation.hpp)
  const double slow_time = std::max(extrapolation_.slow_time(), slow_time_);
  const bool hidden = extrapolation_.verifying() && monitor_.slow_mode_hidden(step_, slow_time);
  const bool steady_soon = monitor_.steady_soon(step_, slow_time) && !hidden;
  result_.extrapolation = extrapolation_.at_check(step_, stepper_, steady_soon);  // natural order here
  if (result_.extrapolation.jumped) monitor_.restart(step_);
  result_.jumps = extrapolation_.jumps();
  result_.sums = stepper_.sums();
  const Measurement m = measure_(result_.sums);
  result_.k = m.k;
  result_.converged = monitor_.check(step_, result_.sums, result_.k.k_lattice, m.flux_nonuniformity, step_ - before,
                                     std::max(extrapolation_.slow_time(), slow_time_)) &&
                      !(extrapolation_.verifying() && monitor_.slow_mode_hidden(step_, extrapolation_.slow_time())) &&
                      !stop_held_ && error_floor_ < controls_.monitor.tolerance;
  if (const double f = monitor_.reported_k_factor(); f != 1.0) {  // noisy storage: the window's mean
    result_.k.k_lattice *= f;
    result_.k.k_m2 *= f;
    result_.k.k_darcy *= f;
    result_.k.k_md *= f;
  }
  result_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result_.mflups = result_.seconds > 0 ? static_cast<double>(fluid_cells_) * step_ / result_.seconds * 1e-6 : 0.0;
  result_.steps = step_;
  result_.relative_change = monitor_.relative_change();
  result_.error_estimate = error_estimate();
  result_.flux_nonuniformity = monitor_.flux_nonuniformity();
  result_.mass_drift = monitor_.mass_drift();
  return result_;
}

void SteadyStateLoop::restore(const State& s) {
  step_ = s.step;
  monitor_.restore(s.monitor);
  extrapolation_.restore(s.extrapolation);
  result_ = s.result;
}

Progress SteadyStateLoop::progress() const {
  return Progress{step_,
                  controls_.max_steps,
                  result_.k,
                  monitor_.relative_change(),
                  error_estimate(),
                  monitor_.flux_nonuniformity(),
                  controls_.monitor.tolerance,
                  result_.mflups,
                  result_.seconds,
                  result_.extrapolation};
}

SolverResult run_to_steady_state(backend::Backend& backend, const lattice::SparseLattice& lattice,
                                 const physics::FlowProblem& problem, const RunControls& controls,
                                 const ProgressFn& progress) {
  Stepper stepper(backend, controls.propagation);
  const geometry::Dims& d = lattice.dims();
  const std::int64_t extent[3] = {d.nx, d.ny, d.nz};
  const PlaneReader planes(backend, lattice, parallel::Comm(), problem.flow_axis, extent[problem.flow_axis], 0,
                           static_cast<double>(d.voxels()) / static_cast<double>(extent[problem.flow_axis]));
  PressureProfile before;
  SteadyStateLoop loop(
      stepper, lattice.fluid_count(),
      [&](const physics::FlowSums& s) {
        return Measurement{physics::permeability(s, problem), flux_spread(before, planes.read(), loop.lag())};
      },
      controls, [&] { before = planes.read(); });
  while (!loop.finished()) {
    loop.next_check();
    if (progress) progress(loop.progress());
  }
  return loop.result();
}

}  // namespace rockperm::solve
