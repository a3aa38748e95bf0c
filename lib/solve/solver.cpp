#include "lib/solve/solver.hpp"

#include <chrono>

namespace rockperm {

SteadyStateLoop::SteadyStateLoop(Stepper& stepper, std::uint64_t fluid_cells, PermeabilityFn k,
                                 const RunControls& controls)
    : stepper_(stepper),
      fluid_cells_(fluid_cells),
      k_(std::move(k)),
      controls_(controls),
      interval_(std::max<std::int64_t>(1, controls.check_interval)),
      monitor_(controls.monitor, stepper.sums().mass) {
  // checks on even steps only: the populations of odd and even steps differ by the float
  // rounding of the staggered mode (and the fused form is in natural order on even steps only)
  if (interval_ % 2 != 0) ++interval_;
  controls_.max_steps += controls_.max_steps % 2;
}

const SolverResult& SteadyStateLoop::next_check() {
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t before = step_;
  const std::int64_t chunk = std::min(interval_, controls_.max_steps - step_);
  bool natural = true;
  for (std::int64_t s = 0; s < chunk; ++s) natural = stepper_.advance(step_ + s);
  step_ += chunk;
  if (!natural) {  // a fused run stopped at the step limit on an even step: finish the pair
    stepper_.advance(step_);
    ++step_;
  }
  result_.sums = stepper_.sums();
  result_.k = k_(result_.sums);
  result_.converged = monitor_.check(step_, result_.sums, result_.k.k_lattice, step_ - before);
  result_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result_.mflups = result_.seconds > 0 ? static_cast<double>(fluid_cells_) * step_ / result_.seconds * 1e-6 : 0.0;
  result_.steps = step_;
  result_.relative_change = monitor_.relative_change();
  result_.mass_drift = monitor_.mass_drift();
  return result_;
}

void SteadyStateLoop::restore(const State& s) {
  step_ = s.step;
  monitor_.restore(s.monitor);
  result_ = s.result;
}

Progress SteadyStateLoop::progress() const {
  return Progress{step_,  controls_.max_steps,        result_.k,     monitor_.relative_change(),
                  controls_.monitor.tolerance, result_.mflups, result_.seconds};
}

SolverResult run_to_steady_state(Stepper& stepper, std::uint64_t fluid_cells, const FlowProblem& problem,
                                 const RunControls& controls, const ProgressFn& progress) {
  SteadyStateLoop loop(stepper, fluid_cells, [&](const FlowSums& s) { return permeability(s, problem); }, controls);
  while (!loop.finished()) {
    loop.next_check();
    if (progress) progress(loop.progress());
  }
  return loop.result();
}

SolverResult run_to_steady_state(Backend& backend, std::uint64_t fluid_cells, const FlowProblem& problem,
                                 const RunControls& controls, const ProgressFn& progress) {
  Stepper stepper(backend, controls.propagation);
  return run_to_steady_state(stepper, fluid_cells, problem, controls, progress);
}

}  // namespace rockperm
