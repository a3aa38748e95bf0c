#include "lib/solve/solver.hpp"

#include <chrono>

namespace rockperm {

SolverResult run_to_steady_state(Backend& backend, std::uint64_t fluid_cells, const FlowProblem& problem,
                                 const RunControls& controls, const ProgressFn& progress) {
  Stepper stepper(backend, controls.propagation);
  return run_to_steady_state(stepper, fluid_cells, problem, controls, progress);
}

SolverResult run_to_steady_state(Stepper& stepper, std::uint64_t fluid_cells, const FlowProblem& problem,
                                 const RunControls& controls, const ProgressFn& progress) {
  std::int64_t interval = std::max<std::int64_t>(1, controls.check_interval);
  if (controls.propagation == Propagation::fused && interval % 2 != 0) ++interval;

  const FlowSums initial = stepper.sums();
  ConvergenceMonitor monitor(controls.monitor, initial.mass);
  SolverResult result;
  const auto start = std::chrono::steady_clock::now();
  std::int64_t step = 0;
  while (step < controls.max_steps) {
    const std::int64_t chunk = std::min(interval, controls.max_steps - step);
    bool natural = true;
    for (std::int64_t s = 0; s < chunk; ++s) natural = stepper.advance(step + s);
    step += chunk;
    if (!natural) {  // a fused run stopped at the step limit on an even step: finish the pair
      stepper.advance(step);
      ++step;
    }
    result.sums = stepper.sums();
    result.k = permeability(result.sums, problem);
    result.converged = monitor.check(step, result.sums, result.k.k_lattice);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.mflups = result.seconds > 0 ? static_cast<double>(fluid_cells) * step / result.seconds * 1e-6 : 0.0;
    if (progress) {
      progress(Progress{step, controls.max_steps, result.k, monitor.relative_change(), controls.monitor.tolerance,
                        result.mflups, result.seconds});
    }
    if (result.converged) break;
  }
  result.steps = step;
  result.relative_change = monitor.relative_change();
  result.mass_drift = monitor.mass_drift();
  return result;
}

}  // namespace rockperm
