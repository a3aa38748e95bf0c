#pragma once
// The time loop: advance the stepper, check k every `check_interval` steps, stop when it is
// steady, when the step limit is reached, or (by exception) when the run goes unstable.
// SteadyStateLoop does it one check at a time, so that its owner (pipeline::Simulation) can
// decide what k is at a check, report progress, save or stop between checks.
#include <algorithm>
#include <cstdint>
#include <functional>

#include "lib/backend/backend.hpp"
#include "lib/physics/permeability.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/solve/extrapolation.hpp"
#include "lib/solve/monitor.hpp"
#include "lib/solve/stepper.hpp"

namespace rockperm::solve {

// A check interval as the loop takes it: at least 1, rounded up to even (checks on even steps only:
// the populations of odd and even steps differ by the float rounding of the staggered mode, and the
// fused form is in natural order on even steps only).
std::int64_t even_interval(std::int64_t interval);

struct RunControls {
  std::int64_t max_steps = 200000;
  std::int64_t check_interval = 100;  // rounded up to even for the fused form
  backend::Propagation propagation = backend::Propagation::two_pass;
  MonitorSettings monitor;
  ExtrapolationSettings extrapolation;
};

// What a check's density correction did (run.extrapolation = darcy; lib/solve/darcy_start.hpp):
// filled by its owner (pipeline::Simulation), not by the loop.
struct CorrectionEvent {
  bool made = false;
  int number = 0;         // of the corrections so far
  double size = 0;        // rms over the drive's density drop along the sample
  double k_change = 0;    // relative, as the model sees it
  double scale = 0;       // the model's against the lattice's mobility, as measured (1: exact)
  bool quiet = false;     // too small to restart the monitor's history
  bool last = false;      // the corrections ended with it
  std::int64_t iterations = 0;  // of the model's solve for it
  double seconds = 0;           // the correction's wall time (the densities read, the solve, the change added)
};

struct Progress {
  std::int64_t step;
  std::int64_t max_steps;
  physics::Permeability k;
  double relative_change;     // per 100 steps
  double error_estimate;      // relative, +inf while unknown
  double flux_nonuniformity;
  double tolerance;
  double mflups;
  double seconds;
  ExtrapolationEvent extrapolation;  // what this check's pressure extrapolation did
  CorrectionEvent correction;        // what this check's density correction did
};

struct SolverResult {
  bool converged = false;
  std::int64_t steps = 0;
  double seconds = 0;  // time loop only
  double mflups = 0;
  physics::FlowSums sums;
  physics::Permeability k;
  double relative_change = 0;  // per 100 steps, last check
  double error_estimate = 0;   // relative, estimated from the history of k (+inf while unknown)
  double flux_nonuniformity = 0;
  double mass_drift = 0;
  int jumps = 0;  // pressure extrapolations (lib/solve/extrapolation.hpp)
  ExtrapolationEvent extrapolation;  // what the last check's extrapolation did
};

using ProgressFn = std::function<void(const Progress&)>;
// What a check measures: k (the plain k = nu q / g, or one with a corrected drive) and how far
// the flux through the planes across the flow is from uniform.
struct Measurement {
  physics::Permeability k;
  double flux_nonuniformity = 0;
};
using MeasureFn = std::function<Measurement(const physics::FlowSums&)>;
// Called MonitorSettings::measure_lag steps before each check (in natural order; fewer in a
// shorter last chunk: SteadyStateLoop::lag()), for what a check compares over the last steps (the
// mass of every plane, lib/solve/pressure_planes.hpp flux_spread).
using PrepareFn = std::function<void()>;

class SteadyStateLoop {
 public:
  // `fluid_cells` counts every rank's cells (for MFLUPS); the stepper's propagation must be
  // controls.propagation.
  SteadyStateLoop(Stepper& stepper, std::uint64_t fluid_cells, MeasureFn measure, const RunControls& controls,
                  PrepareFn prepare = {});

  // Advances to the next check and makes it; the monitor throws SimulationError on NaN/Inf or
  // mass drift. Returns the state after the check.
  const SolverResult& next_check();
  bool finished() const { return result_.converged || step_ >= controls_.max_steps; }
  std::int64_t lag() const { return lag_; }  // of the check being made or last made
  const SolverResult& result() const { return result_; }
  // k at the checks since the last pressure extrapolation, counted from history_origin()
  const KHistory& history() const { return monitor_.history(); }
  std::int64_t history_origin() const { return monitor_.origin(); }
  // The state was moved from outside the loop (a density correction, lib/solve/darcy_start.hpp):
  // the monitor's history starts again here, as after a pressure jump.
  void restart_history() { monitor_.restart(step_); }
  // While held, no check ends the run (the density corrections are still moving the state).
  void hold_stop(bool held) { stop_held_ = held; }
  // The slowest time still at work as measured outside the loop (the density corrections' model):
  // after a restart of the history the run does not stop before its history spans it, and the
  // slow mode's remainder is read with it (ConvergenceMonitor::check), as after a jump.
  void set_slow_time(double steps) { slow_time_ = steps; }
  // A relative error of k known from outside the loop (what the density corrections left): the
  // error a check states is at least this, and no check below it ends the run.
  void set_error_floor(double relative) { error_floor_ = relative; }
  Progress progress() const;

  // The loop between checks, for checkpoints: the step reached, the monitor and the result of
  // the last check. restore() needs the populations of that step already in the stepper's
  // backend.
  struct State {
    std::int64_t step = 0;
    ConvergenceMonitor::State monitor;
    SolverResult result;
    PressureExtrapolation::State extrapolation;
  };
  State state() const { return State{step_, monitor_.state(), result_, extrapolation_.state()}; }
  void restore(const State& s);
  // whether the backend holds densities that a checkpoint must carry (Backend::held_densities)
  bool holds_densities() const { return extrapolation_.holding(); }

 private:
  Stepper& stepper_;
  bool stop_held_ = false;
  double slow_time_ = 0;
  double error_floor_ = 0;
  // the error a check states: the monitor's, at least the floor
  double error_estimate() const { return std::max(monitor_.error_estimate(), error_floor_); }
  std::uint64_t fluid_cells_;
  MeasureFn measure_;
  PrepareFn prepare_;
  RunControls controls_;
  std::int64_t interval_;
  ConvergenceMonitor monitor_;
  PressureExtrapolation extrapolation_;
  SolverResult result_;
  std::int64_t step_ = 0;
  std::int64_t lag_ = 2;
};

// One process, the whole lattice (periodic along the flow): runs a loop to its end, k = nu q / g.
SolverResult run_to_steady_state(backend::Backend& backend, const lattice::SparseLattice& lattice,
                                 const physics::FlowProblem& problem, const RunControls& controls,
                                 const ProgressFn& progress = {});

}  // namespace rockperm::solve
