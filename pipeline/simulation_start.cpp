// The Simulation's Darcy-scale start and density corrections (issue 67; lib/solve/darcy_start.hpp):
// the model built on the rank's slab (on its GPU where the flow runs on one), its density added
// before the first step, and the corrections at the checks while they go on.
#include <chrono>
#include <optional>

#include "lib/base/error.hpp"
#include "pipeline/simulation.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/conduction_engine.hpp"
#endif

namespace rockperm::pipeline {

bool Simulation::add_density(const std::vector<double>& delta) {
  // a jump of the pressure extrapolation's path from held densities of rho - delta: rho += delta
  const std::size_t owned = static_cast<std::size_t>(lattice_.lattice.owned_end() - lattice_.lattice.owned_begin());
  if (delta.size() != owned) throw RuntimeFailure("internal: a density change of the wrong size");
  std::vector<float> held;
  bool failed = false;
  try {
    if (!backend_->hold_density(false)) throw std::bad_alloc();
    backend_->held_densities(held);
  } catch (const std::bad_alloc&) {
    failed = true;
  } catch (const RuntimeFailure&) {  // a GPU without the memory
    failed = true;
  }
  if (comm_.max(failed ? 1.0 : 0.0) != 0) {
    backend_->restore_held_densities({});
    return false;
  }
  for (std::size_t i = 0; i < owned; ++i) held[2 * i] -= static_cast<float>(delta[i]);
  backend_->restore_held_densities(held);
  // with the rest state's momentum of the added density: the staggered momentum stays steady
  backend_->extrapolate_density_at_rest(1.0f, {params_.g[0], params_.g[1], params_.g[2]});
  backend_->restore_held_densities({});
  macroscopic_.reset();
  return true;
}

void Simulation::darcy_start() {
  start_pending_ = false;
  const auto started = std::chrono::steady_clock::now();
  solve::DarcyStartProblem problem;
  problem.axis = flow_.flow_axis;
  problem.region_voxels = sample_.dims.voxels();
  problem.grey_permeability = flow_.grey_permeability;
  problem.whole = sample_.dims;
  solve::ConductionSlab slab;
  slab.first_local_z = lattice_.first_local_z;
  slab.planes_z = sample_.dims.nz;
  slab.domain = lattice_.domain ? &*lattice_.domain : nullptr;
  solve::ConductionEngineFactory engine;  // on the rank's GPU beside the flow's state where it fits
#if ROCKPERM_HAVE_CUDA
  if (plan_.cuda && !plan_.host_rank) engine = cuda::conduction_engine_on(plan_.device, &start_.note);
#endif
  std::optional<solve::DarcyStart> start;
  bool failed = false;
  try {
    model_ = std::make_unique<solve::DarcyModel>(comm_, lattice_.lattice, slab, problem, engine);
    start = model_->start();
  } catch (const std::bad_alloc&) {
    failed = true;
  }
  std::vector<double> delta;
  if (!failed) {
    delta.resize(start->density_per_force.size());
    for (std::size_t i = 0; i < delta.size(); ++i) delta[i] = flow_.force * start->density_per_force[i];
  }
  if (comm_.max(failed ? 1.0 : 0.0) != 0 || !add_density(delta)) {
    model_.reset();
    correction_.reset();
    start_.note = "the memory for the Darcy-scale start could not be had: the run started from rest";
    start_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return;
  }
  start_.done = true;
  start_.iterations = start->solve.iterations;
  start_.residual = start->solve.residual;
  start_.device = start->solve.device;
  start_.setup_seconds = start->solve.setup_seconds;
  if (!correction_) model_.reset();  // its memory back: no corrections to make
  start_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

void Simulation::correct_density() {
  const std::int64_t step = loop_->result().steps;
  if (!correction_->wants_density(step)) return;
  const auto started = std::chrono::steady_clock::now();
  const backend::Macroscopic& m = owned_macroscopic();
  const std::vector<float> rho(m.drho.begin(), m.drho.end());
  const double g = flow_.force;
  const std::vector<double> change = correction_->density(
      step, rho, [&](const std::vector<double>& rate) { return model_->inverse(rate); },
      [&](const std::vector<double>& density) {
        std::vector<double> per_force(density.size());
        for (std::size_t i = 0; i < density.size(); ++i) per_force[i] = density[i] / g;
        return model_->relative_flux(per_force);
      });
  if (!change.empty()) {
    if (add_density(change)) {
      if (correction_->quiet()) {
        // too small to move k beyond a quarter of the tolerance: the history goes on, and what is
        // left of the slow mode is bounded by the model (the error floor), not read from k's slope
        loop_->set_slow_time(0.0);
      } else {
        loop_->restart_history();  // the state moved: as after a pressure jump
        // and, as after a jump, no stop before the history spans the time of what it measured
        loop_->set_slow_time(correction_->slow_time());
      }
      loop_->set_error_floor(correction_->error_floor());
      start_.correction_converged = correction_->converged();
      start_.correction_error_floor = correction_->error_floor();
      correction_event_ = {true,
                           correction_->cycles(),
                           correction_->last_size(),
                           correction_->last_effect(),
                           correction_->scale(),
                           correction_->quiet(),
                           !correction_->active(),
                           model_->last_iterations(),
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()};
      start_.corrections = correction_->cycles();
      start_.correction_scale = correction_->scale();
      start_.correction_size = correction_->last_size();
    } else {
      start_.note = "the memory for the density corrections could not be had: they stopped";
      correction_.reset();
    }
  }
  start_.correction_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (correction_ && !correction_->active() && !correction_->converged()) {
    // ended on the floats' resolution or the cycles' limit: what is left is read from k's slope over
    // the last correction's time (set above), not bounded by the model
    loop_->set_error_floor(0.0);
    start_.correction_error_floor = 0.0;
  }
  if (!correction_ || !correction_->active()) {  // done: the model's memory back
    correction_.reset();
    model_.reset();
  }
}

}  // namespace rockperm::pipeline
