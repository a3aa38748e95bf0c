#include "pipeline/companion.hpp"

#include <algorithm>
#include <chrono>

#include "pipeline/decomposition.hpp"
#include "pipeline/driver.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/simulation.hpp"

namespace rockperm::pipeline {

void with_volume(const parallel::Comm& comm, const RunRequest& request,
                 const std::function<void(const ReadVolume&)>& make) {
  parallel::collectively(comm, [&] {
    if (!comm.root()) return;
    ReadVolume read;
    make(request_volume(request, read, false));
  });
}

std::optional<geometry::Dims> companion_slabs(const parallel::Comm& comm, const RunRequest& request,
                                              const SampleView& view) {
  if (request.volume) return std::nullopt;  // in memory (the same on every rank)
  return read_on_slabs(comm, request.spec.sample, view);
}

std::function<Sample()> companion_sample(const parallel::Comm& comm, const RunRequest& request, const FlowSpec& flow,
                                         const std::optional<geometry::Dims>& slabs, const SampleView& view,
                                         geometry::PoreMask& mask, double voxel_size_um, const std::string& name) {
  if (slabs) {
    return [&comm, &request, &flow, whole = *slabs, view, name] {
      return read_sample_on_slabs(comm, request.spec.sample, flow, whole, view, name);
    };
  }
  return [&comm, &request, &flow, &mask, voxel_size_um, name] {
    return sample_from_mask(comm, std::move(mask), comm.max(voxel_size_um), flow,
                            request.spec.sample.percolation_filter, name);
  };
}

CompanionRun run_companion(const parallel::Comm& comm, const RunRequest& request, const std::function<Sample()>& make,
                           const FlowSpec& flow, std::int64_t max_steps) {
  CompanionRun c;
  const auto start = std::chrono::steady_clock::now();
  const RunSpec& spec = request.spec;
  try {
    Sample sample = make();
    const FlowSpec resolved = resolve_flow(flow, sample);
    ExecutionSpec execution = worker_execution(spec.execution, request.device_slot);
    if (max_steps > 0) execution.max_steps = std::min(execution.max_steps, max_steps);
    const ExecutionPlan plan = plan_execution(comm, execution, sample.plane_fluid);
    RankLattice lattice = decompose(comm, sample, resolved.periodicity(), plan.propagation, resolved.edge_contacts,
                                    OneRank::whole, lattice_tables(plan), plan.shares);
    Simulation simulation(comm, sample, std::move(lattice), resolved, execution, plan);
    DriveSettings drive;
    drive.walltime_minutes = spec.execution.walltime_minutes;
    drive.stop_requested = request.stop_requested ? request.stop_requested : [] { return false; };
    const DriveOutcome outcome = pipeline::drive(comm, simulation, drive);
    c.result = simulation.result();
    if (outcome.interrupted) {
      c.ending = CompanionRun::Ending::stopped;
      c.note = "stopped (" + outcome.reason + ")";
    } else if (!c.result.converged()) {
      c.ending = CompanionRun::Ending::not_converged;
      c.note = "did not converge in " + std::to_string(c.result.steps) + " steps";
    }
  } catch (const PhysicsError& e) {
    c.ending = CompanionRun::Ending::invalid_physics;
    c.no_path = e.reason() == "no_path";
    c.note = e.what();
  } catch (const InputError& e) {
    c.ending = CompanionRun::Ending::input_error;
    c.note = e.what();
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

void run_without_grey(const parallel::Comm& comm, const RunRequest& request, SampleResult& result) {
  GreyReport& grey = result.grey;
  grey.without_asked = true;
  if (!result.converged()) {
    grey.without_note = "not made: the run did not converge";
    return;
  }
  const SampleView view{true, 0};
  const std::optional<geometry::Dims> slabs = companion_slabs(comm, request, view);
  geometry::PoreMask mask;  // rank 0, without slabs: the grey voxels solid
  double voxel_um = 0;
  try {
    if (!slabs) {
      with_volume(comm, request, [&](const ReadVolume& volume) {
        voxel_um = volume.loaded.voxel_size_um;
        mask = view_of(volume.loaded.mask, view);
      });
    }
  } catch (const InputError& e) {
    grey.without_note = std::string("not made: ") + e.what();
    return;
  }
  FlowSpec flow = request.spec.flow;
  flow.grey_permeability.clear();
  const CompanionRun c = run_companion(
      comm, request,
      companion_sample(comm, request, flow, slabs, view, mask, voxel_um, result.input.name + " (grey voxels solid)"),
      flow);
  grey.without_steps = c.result.steps;
  grey.without_seconds = c.seconds;
  if (c.done() || c.no_path) {
    grey.without_done = true;
    grey.k_without_md = c.done() ? c.result.k.k_md : 0.0;
    if (c.no_path) grey.without_note = "the resolved pores alone do not join the inlet and outlet faces: k = 0";
    return;
  }
  grey.without_note = "not made: " + c.note;
}

}  // namespace rockperm::pipeline
