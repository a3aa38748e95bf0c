#pragma once
// The time loop: advance the backend, check k every `check_interval` steps, stop when it is
// steady, when the step limit is reached, or (by exception) when the run goes unstable.
#include <cstdint>
#include <functional>

#include "lib/backend/backend.hpp"
#include "lib/solve/stepper.hpp"
#include "lib/solve/monitor.hpp"
#include "lib/physics/permeability.hpp"

namespace rockperm {

struct RunControls {
  std::int64_t max_steps = 200000;
  std::int64_t check_interval = 100;  // rounded up to even for the fused form
  Propagation propagation = Propagation::two_pass;
  MonitorSettings monitor;
};

struct Progress {
  std::int64_t step;
  std::int64_t max_steps;
  Permeability k;
  double relative_change;
  double tolerance;
  double mflups;
  double seconds;
};

struct SolverResult {
  bool converged = false;
  std::int64_t steps = 0;
  double seconds = 0;  // time loop only
  double mflups = 0;
  FlowSums sums;
  Permeability k;
  double relative_change = 0;
  double mass_drift = 0;
};

using ProgressFn = std::function<void(const Progress&)>;

// `fluid_cells` counts every rank's cells (for MFLUPS); the stepper's propagation must be
// controls.propagation.
SolverResult run_to_steady_state(Stepper& stepper, std::uint64_t fluid_cells, const FlowProblem& problem,
                                 const RunControls& controls, const ProgressFn& progress = {});

// One process, whole lattice.
SolverResult run_to_steady_state(Backend& backend, std::uint64_t fluid_cells, const FlowProblem& problem,
                                 const RunControls& controls, const ProgressFn& progress = {});

}  // namespace rockperm
