#include "pipeline/resolution_study.hpp"

#include <chrono>
#include <cmath>

#include "lib/geometry/coarsen.hpp"
#include "pipeline/decomposition.hpp"
#include "pipeline/driver.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/simulation.hpp"

namespace rockperm::pipeline {

void run_resolution_study(const Comm& comm, const RunRequest& request, SampleResult& fine) {
  ResolutionStudy& study = fine.resolution;
  study.asked = true;
  const RunSpec& spec = request.spec;
  const auto start = std::chrono::steady_clock::now();
  if (!fine.converged()) {
    study.note = "not made: the run did not converge";
    return;
  }
  try {
    PoreMask coarse_mask;  // rank 0
    double voxel_um = 0;
    collectively(comm, [&] {
      if (!comm.root()) return;
      ReadVolume read;
      const ReadVolume& volume = request_volume(request, read, false);
      voxel_um = volume.loaded.voxel_size_um;
      coarse_mask = coarsen_2x(volume.loaded.mask);
    });
    voxel_um = comm.max(voxel_um);  // rank 0 read it
    FlowSpec flow = spec.flow;
    flow.grey_permeability = fine.flow.grey_permeability;
    for (double& k : flow.grey_permeability) k /= 4.0;  // the same m^2 in voxels twice as large
    Sample coarse = sample_from_mask(comm, std::move(coarse_mask), 2.0 * voxel_um, flow,
                                     spec.sample.percolation_filter, fine.input.name + " (2x coarser)");
    const FlowSpec resolved = resolve_flow(flow, coarse);
    const ExecutionSpec execution = worker_execution(spec.execution, request.device_slot);
    const ExecutionPlan plan = plan_execution(comm, execution, coarse.plane_fluid);
    RankLattice lattice = decompose(comm, coarse, resolved.periodicity(), plan.propagation, resolved.edge_contacts,
                                    OneRank::whole, lattice_tables(plan));
    Simulation simulation(comm, coarse, std::move(lattice), resolved, execution, plan);
    DriveSettings drive;  // no checkpoints: the study is short, and redone on a resume
    drive.walltime_minutes = spec.execution.walltime_minutes;
    drive.stop_requested = request.stop_requested ? request.stop_requested : [] { return false; };
    const DriveOutcome outcome = pipeline::drive(comm, simulation, drive);
    const SampleResult r = simulation.result();
    study.coarse_steps = r.steps;
    study.coarse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (outcome.interrupted) {
      study.note = "not made: stopped (" + outcome.reason + ")";
      return;
    }
    if (!r.converged()) {
      study.note = "not made: the coarse sample did not converge in " + std::to_string(r.steps) + " steps";
      return;
    }
    study.done = true;
    study.order = resolution_order;
    study.k_coarse_md = r.k.k_md;
    const double kf = fine.k.k_md;
    study.k_extrapolated_md = extrapolated_k(kf, study.k_coarse_md, study.order);
    study.discretisation_error = kf != 0 ? std::abs(study.k_extrapolated_md - kf) / std::abs(kf) : 0.0;
  } catch (const PhysicsError& e) {  // e.g. the coarse pore space no longer joins the faces
    study.note = std::string("not made: at twice the voxel size ") + e.what();
  } catch (const InputError& e) {
    study.note = std::string("not made: ") + e.what();
  }
}

}  // namespace rockperm::pipeline
