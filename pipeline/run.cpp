#include "pipeline/run.hpp"
#include "pipeline/relperm_store.hpp"
#include "pipeline/resolution_study.hpp"

#include <chrono>
#include <filesystem>
#include <utility>

#include "io/atomic_file.hpp"
#include "lib/base/build_info.hpp"
#include "lib/base/system.hpp"
#include "pipeline/checkpoint.hpp"
#include "pipeline/companion.hpp"
#include "pipeline/slab_sample.hpp"
#include "pipeline/conduction.hpp"
#include "pipeline/driver.hpp"
#include "pipeline/forchheimer.hpp"
#include "pipeline/report.hpp"
#include "pipeline/simulation.hpp"
#include "pipeline/tensor.hpp"
#include "pipeline/two_phase.hpp"
#include "rockperm/config.hpp"

namespace rockperm::pipeline {

namespace {

// Removes the checkpoint a run ended by itself (or what followed k, made) has no use for: it would
// only resume what is done. run.checkpoint_at_end keeps it.
void drop_checkpoint(const parallel::Comm& comm, const RunSpec& spec, std::filesystem::path file, SampleResult& result) {
  if (spec.execution.checkpoint_at_end || !comm.root()) return;
  std::error_code ec;
  std::filesystem::remove(file, ec);
  result.checkpoint.clear();
}

// Relative permeabilities follow k in this run (the two-phase points, made after k's solve).
bool relperm_follows(const RunSpec& spec) {
  return spec.two_phase.enabled() && spec.permeability &&
         (spec.two_phase.relperm_points > 0 || !spec.two_phase.relperm_saturations.empty() ||
          spec.two_phase.displacement);
}

void run_prepared(const parallel::Comm& comm, const RunRequest& request, const RunDirectory& directory,
                  std::chrono::steady_clock::time_point started, Sample& sample, PreparedSample& prepared,
                  SampleResult& result);

// The stages; `result` holds what is known so far when one of them throws.
void run_stages(const parallel::Comm& comm, const RunRequest& request, const RunDirectory& directory,
                SampleResult& result) {
  const auto started = std::chrono::steady_clock::now();
  const RunSpec& spec = request.spec;
  result.flow = spec.flow;
  result.input.path = spec.sample.volume.path;
  result.input.name = spec.sample.volume.path.filename().string();
  PreparedSample prepared = request_sample(comm, request);
  Sample& sample = prepared.sample;
  try {
    run_prepared(comm, request, directory, started, sample, prepared, result);
  } catch (...) {
    // a failure after the preparation: its report still names the input by its hash (rank 0's)
    if (comm.root() && sample.hash_pending && sample.hash_thread.valid()) {
      try {
        result.provenance.input_sha256 = result.input.sha256 = sample.hash_thread.get().first;
      } catch (const std::exception&) {  // the failure that counts is the one in flight
      }
    }
    throw;
  }
}

void run_prepared(const parallel::Comm& comm, const RunRequest& request, const RunDirectory& directory,
                  std::chrono::steady_clock::time_point started, Sample& sample, PreparedSample& prepared,
                  SampleResult& result) {
  RunObserver* observer = comm.root() ? request.observer : nullptr;
  const RunSpec& spec = request.spec;
  result.input = sample.input;  // its hash, where still worked out beside the solve, after it
  result.provenance.input_sha256 = sample.input.sha256;
  result.percolation = sample.percolation;
  result.dims = sample.dims;
  result.sample_dims = sample.sample_dims;
  result.voxel_size_um = sample.voxel_size_um;
  const FlowSpec flow = resolve_flow(spec.flow, sample);  // tau and force, where auto
  if (spec.forchheimer.enabled && spec.permeability) {  // a top out of the lattice's reach: said before any step
    try {
      check_forchheimer_reach(spec.forchheimer, sample.pores);
    } catch (const InputError& e) {  // every rank's pore statistics are the sample's
      throw on_all_ranks(InputError(e.field(), e.detail()));
    }
  }
  result.flow = flow;
  const ExecutionSpec execution = worker_execution(spec.execution, request.device_slot);
  const ExecutionPlan plan = plan_execution(comm, execution, sample.plane_fluid);
  result.provenance.devices = comm.gather(plan.identity());
  const FieldsOutput fields(spec.output.fields, spec.output.dir, sample, flow);  // checked before the work
  // a stop always writes a checkpoint; the fields come at the end: room for both, checked now
  const double checkpoint_bytes =
      static_cast<double>(sample.fluid) * d3q19::q * static_cast<double>(physics::storage_bytes(plan.storage)) + 4096.0;
  directory.require_free_space(comm, checkpoint_bytes + fields.bytes_bound() + 1e6, "a checkpoint and the fields");
  if (observer) observer->sample_ready(spec, sample, flow, plan, comm.size());

  if (prepared.lattice && (comm.size() != 1 || prepared.propagation != plan.propagation)) {
    throw RuntimeFailure("internal: a lattice prepared for another propagation or rank count");  // sample's mask is gone
  }
  RankLattice lattice = prepared.lattice ? std::move(*prepared.lattice)
                                         : decompose(comm, sample, flow.periodicity(), plan.propagation,
                                                     flow.edge_contacts, OneRank::whole, lattice_tables(plan), plan.shares);
  Simulation simulation(comm, sample, std::move(lattice), flow, execution, plan);
  DriveSettings drive;
  drive.checkpoint = spec.output.dir / checkpoint_name;
  std::string identity;  // the checkpoints': from the input's hash, the first time one is needed
  drive.identity = [&] {
    if (identity.empty()) {
      settle_input_hash(comm, sample);
      identity = run_identity(sample.input.sha256, spec.sample, flow);
    }
    return identity;
  };
  drive.checkpoint_interval = spec.execution.checkpoint_interval;
  drive.checkpoint_minutes = spec.execution.checkpoint_minutes;
  // a Forchheimer sweep, and relative permeabilities after k, keep k's converged state while they
  // run: a stop in them resumes from it (run() drops it once the relative permeabilities are made)
  const bool sweep = spec.forchheimer.enabled && spec.permeability;
  const bool relperm = relperm_follows(spec);
  drive.checkpoint_at_end = spec.execution.checkpoint_at_end || sweep || relperm;
  drive.walltime_minutes = spec.execution.walltime_minutes;
  drive.stop_requested = request.stop_requested ? request.stop_requested : [] { return false; };
  // F alone (run.formation_factor = only): no step of the flow, no checkpoint of it
  if (request.use == DirectoryUse::resume && spec.permeability) {
    read_checkpoint(comm, simulation, drive.checkpoint, drive.identity());
  }
  // the host's memory when everything before the first step is done (issue 50: the preparation's
  // share of it, per voxel of the scan)
  const double ready_memory = peak_resident_bytes();
  const double host_peak_ready = comm.sum(ready_memory), host_peak_ready_rank = comm.max(ready_memory);
  if (observer) {
    observer->simulation_ready(simulation, plan, comm.size(),
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }

  const solve::ProgressFn show_progress = [&](const solve::Progress& p) {  // k's checks and the sweep's
    if (observer) observer->progress(p);
    if (request.progress && comm.root()) request.progress(p);
  };
  const DriveOutcome outcome =
      !spec.permeability ? DriveOutcome{} : pipeline::drive(comm, simulation, drive, show_progress);
  const auto loop_end = std::chrono::steady_clock::now();
  settle_input_hash(comm, sample);  // where it outlasted the solve: waited for now
  Provenance provenance = result.provenance;
  provenance.input_sha256 = sample.input.sha256;
  result = simulation.result();
  result.provenance = provenance;
  result.input.sha256 = sample.input.sha256;
  result.timings.hash = sample.hash_seconds;
  result.performance.host_peak_ready = host_peak_ready;
  result.performance.host_peak_ready_rank = host_peak_ready_rank;
  const auto record_memory = [&] {  // collective
    const double end_memory = peak_resident_bytes();
    result.performance.host_peak = comm.sum(end_memory);
    result.performance.host_peak_rank = comm.max(end_memory);
  };
  const std::vector<geometry::GreyPhase> grey = spec.sample.grey();
  if (!result.grey.phases.empty() && spec.sample.grey_map.enabled()) {
    result.grey.map = spec.sample.grey_map.intensities_str();
    result.grey.law = spec.sample.grey_map.law_str();
  }
  for (std::size_t c = 0; c < result.grey.phases.size() && c < grey.size(); ++c) {
    const geometry::GreyPhase& g = grey[c];
    result.grey.phases[c].labels = g.labels.str();
    result.grey.phases[c].porosity = g.porosity;
    result.grey.phases[c].permeability_m2 = g.permeability_m2;
  }
  if (spec.sample.grey_map.enabled()) {  // a phase per intensity: the report keeps those the sample holds
    std::erase_if(result.grey.phases, [](const GreyPhaseReport& g) { return g.voxels == 0; });
  } else {
    // a declared phase the sample does not hold is a declaration to check (label 256 of an 8-bit
    // scan, a label its segmentation does not use): said, not passed over
    for (const GreyPhaseReport& g : result.grey.phases) {
      if (g.voxels != 0) continue;
      result.warnings.push_back({"grey_phase_empty",
                                 "grey labels " + g.labels + " select no voxel of the sample (a label above 255 "
                                 "cannot occur in 8-bit data); check them against the segmentation",
                                 0.0, "sample.grey_labels"});
    }
  }
  if (outcome.checkpoints > 0) result.checkpoint = drive.checkpoint;
  result.performance.checkpoints = outcome.checkpoints;
  result.performance.checkpoint_seconds = outcome.checkpoint_seconds;
  if (outcome.interrupted) {
    std::erase_if(result.warnings, [](const Warning& w) { return w.code == "not_converged"; });
    result.status = RunStatus::interrupted;
    result.message = "stopped at step " + std::to_string(result.steps) + " (" + outcome.reason +
                     "); continue with: rockperm run --resume " + spec.output.dir.string();
    record_memory();
    return;  // no fields of a state that is not steady
  }
  if (!sweep && !relperm) drop_checkpoint(comm, spec, drive.checkpoint, result);
  std::vector<float> potential;  // for the fields, where they are written
  if (spec.formation_factor) {
    add_conduction(comm, simulation, spec, result, solve::ConductionProblem::Preconditioner::multigrid,
                   fields.enabled() ? &potential : nullptr);
  }
  if (!spec.permeability) {  // F alone: the run's status is the conduction solve's
    std::erase_if(result.warnings, [](const Warning& w) { return w.code == "not_converged"; });
    const ConductionReport& c = result.conduction;
    result.status = c.done && c.converged ? RunStatus::converged : c.done ? RunStatus::not_converged
                                                                          : RunStatus::invalid_physics;
    result.message = c.done && c.converged ? "" : c.note;
  }
  if (spec.permeability) result.slices = mid_slices(comm, simulation, flow.flow_axis);  // F alone: no flow to picture
  const FieldsWritten written =
      fields.write(comm, simulation, spec.formation_factor && fields.enabled() ? &potential : nullptr, spec.permeability);
  if (request.keep_fields) {
    FlowFields kept = gather_fields(comm, simulation, spec.output.fields);
    if (comm.root()) result.fields = std::make_shared<FlowFields>(std::move(kept));
  }
  if (sweep) {  // after k's fields: the sweep moves the state on
    SweepSettings settings;
    settings.stop_requested = drive.stop_requested;
    if (spec.execution.walltime_minutes > 0) {
      settings.walltime_minutes = std::max(
          1e-3, spec.execution.walltime_minutes -
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() / 60.0);
    }
    settings.progress = show_progress;
    if (observer) {
      settings.point_done = [observer](const ForchheimerPoint& p, std::size_t i, std::size_t n) {
        observer->forchheimer_point(p, i, n);
      };
    }
    // a step's limit: as a phase's flow (ten times k's steps, at least 20000), within the run's
    const std::int64_t step_limit =
        std::min(spec.execution.max_steps, std::max<std::int64_t>(20000, 10 * result.steps));
    const std::string stopped = run_forchheimer(comm, simulation, spec.forchheimer, step_limit, settings, result);
    if (!stopped.empty()) {
      result.status = RunStatus::interrupted;
      result.message = "stopped during the Forchheimer sweep (" + stopped + "); k is converged; continue with: "
                       "rockperm run --resume " + spec.output.dir.string() +
                       " (the sweep starts again from k's converged state, kept in the checkpoint)";
    } else if (!relperm) {
      drop_checkpoint(comm, spec, drive.checkpoint, result);
    }
  }
  result.timings.finish = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_end).count();
  record_memory();
  if (observer && fields.enabled()) observer->fields_written(written, spec.output.fields);
}

}  // namespace

Provenance start_provenance(const parallel::Comm& comm, const RunRequest& request) {
  Provenance p;
  p.version = ROCKPERM_VERSION;
  p.commit = build_commit();
  p.build_type = build_type();
  p.date_utc = utc_timestamp();
  p.host = host_name();
  p.command_line = request.command_line;
  p.ranks = comm.size();
  const SampleSpec& s = request.spec.sample;
  p.pore_labels = s.open_labels().str();
  p.crop = std::to_string(s.volume.crop.offset[0]) + " " + std::to_string(s.volume.crop.offset[1]) + " " +
           std::to_string(s.volume.crop.offset[2]) + " / " + std::to_string(s.volume.crop.size[0]) + " " +
           std::to_string(s.volume.crop.size[1]) + " " + std::to_string(s.volume.crop.size[2]);
  p.percolation_filter = s.percolation_filter;
  p.resumed = request.use == DirectoryUse::resume;
  return p;
}

void record_failure(const Error& e, const std::function<std::string(const InputError&)>& describe_input,
                    SampleResult& result) {
  result.status = status_of(e);
  const auto* input = dynamic_cast<const InputError*>(&e);
  result.message = input && describe_input ? describe_input(*input) : e.what();
  if (const auto* physics = dynamic_cast<const PhysicsError*>(&e)) result.reason = physics->reason();
  if (dynamic_cast<const CapacityError*>(&e)) result.reason = "capacity";  // more GPUs, or the host's cores, would run it
}

void report_failure(const parallel::Comm& comm, const std::filesystem::path& dir, const Error& e,
                    const std::function<std::string(const InputError&)>& describe_input, SampleResult& result) {
  record_failure(e, describe_input, result);
  if (!comm.root() || !e.all_ranks) return;
  try {
    write_reports(dir, result);
  } catch (const Error&) {  // the directory itself fails: the message of `e` is what counts
  }
}

ExecutionSpec worker_execution(ExecutionSpec execution, int device_slot) {
  if (device_slot >= 0) {
    execution.devices = {execution.devices.empty()
                             ? device_slot
                             : execution.devices[static_cast<std::size_t>(device_slot) % execution.devices.size()]};
  }
  return execution;
}

PreparedSample prepare_sample(const RunSpec& spec, int device_slot) {
  const parallel::Comm self;
  PreparedSample p{read_sample(self, spec.sample, spec.flow), {}, {}};
  // the propagation only (no capacity check: run() plans again, with the sample's size); the
  // lattice depends on the boundaries, not on tau or force (run() resolves those, once)
  const ExecutionPlan plan = plan_execution(self, worker_execution(spec.execution, device_slot), {});
  p.propagation = plan.propagation;
  p.lattice = decompose(self, p.sample, spec.flow.periodicity(), p.propagation, spec.flow.edge_contacts,
                        OneRank::whole, lattice_tables(plan));
  return p;
}

PreparedSample request_sample(const parallel::Comm& comm, const RunRequest& request) {
  const RunSpec& spec = request.spec;
  if (request.read) return request.read();
  if (!request.volume && !request.input_sha256.empty()) {
    SampleSpec sample = spec.sample;
    sample.hash_input = false;
    PreparedSample p{read_sample(comm, sample, spec.flow), {}, {}};
    p.sample.input.sha256 = request.input_sha256;
    return p;
  }
  if (!request.volume) {
    SampleSpec sample = spec.sample;
    sample.hash_later = true;  // the first step does not wait for the input's hash: run_stages settles it
    return PreparedSample{read_sample(comm, sample, spec.flow), {}, {}};
  }
  static const ReadVolume none;  // the other ranks' (read_sample uses rank 0's)
  return PreparedSample{read_sample(comm, comm.root() ? request.volume() : none, spec.sample, spec.flow), {}, {}};
}

const ReadVolume& request_volume(const RunRequest& request, ReadVolume& read, bool hash) {
  if (request.volume) return request.volume();
  read = read_volume(request.spec.sample, hash);
  return read;
}

SampleResult run(const parallel::Comm& comm, const RunRequest& request) {
  if (request.spec.all_axes) return run_tensor(comm, request);
  const auto started = std::chrono::steady_clock::now();
  const RunDirectory directory(comm, request.spec.output.dir, request.use);  // locked, checked, before any work
  const std::filesystem::path dir = directory.path();
  if (request.use != DirectoryUse::resume && request.configuration) {  // first: a stopped run resumes from it
    collectively(comm, [&] {
      if (comm.root()) io::write_file_atomically(dir / "config.ini", request.configuration(request.spec));
    });
  }
  SampleResult result;
  result.provenance = start_provenance(comm, request);
  result.performance.ranks = comm.size();
  try {
    collectively(comm, [&] { request.validate ? request.validate() : request.spec.validate(); });
    // two phases: the curves first (cheap), so that what they cannot meet is said before the flow
    std::shared_ptr<TwoPhase> two_phase;
    if (request.spec.two_phase.enabled()) {
      two_phase = std::make_shared<TwoPhase>(comm, request);
      if (request.observer && comm.root()) request.observer->two_phase_curves(two_phase->report());
    }
    run_stages(comm, request, directory, result);
    // the companion runs (decided alike on every rank: the result's status and sums are shared)
    const bool without_grey = request.spec.without_grey && request.spec.permeability && result.grey.connected() > 0 &&
                              result.status != RunStatus::interrupted;
    const RunSpec::Study study = request.spec.resolution_study;
    const bool resolution =
        result.status != RunStatus::interrupted && request.spec.permeability &&
        (study == RunSpec::Study::on ||
         (study == RunSpec::Study::automatic && result.converged() && result.narrow_flow_fraction > narrow_flow_limit));
    // they read the volume again where it is not in memory: each rank its planes where it can
    // (companion_slabs), else rank 0 the whole, once for all of them
    RunRequest companions = request;
    std::optional<ReadVolume> reread;  // rank 0
    if ((without_grey || resolution) && !companions.volume && !read_on_slabs(comm, request.spec.sample)) {
      companions.volume = [&]() -> const ReadVolume& {
        if (!reread) reread = read_volume(request.spec.sample, false);
        return *reread;
      };
    }
    if (without_grey) run_without_grey(comm, companions, result);
    if (resolution) run_resolution_study(comm, companions, result);
    if (two_phase) {
      if (result.status == RunStatus::interrupted) {
        result.two_phase = two_phase->report();
        result.two_phase.note = "relative permeabilities not made: the run was stopped (they are made on --resume)";
      } else {
        // the run's wall-time limit holds for them too: they stop half a minute before it (each
        // flow at its next check; k's converged state is already in the checkpoint), as k's
        // steps do (pipeline/driver.cpp). Decided on every rank alike: the stops are agreed there.
        RunRequest points = companions;
        const double walltime = request.spec.execution.walltime_minutes;
        if (walltime > 0) {
          const auto signal = request.stop_requested;
          points.stop_requested = [signal, started, walltime] {
            const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() / 60.0;
            return (signal && signal()) || minutes + 0.5 > walltime;
          };
        }
        two_phase->finish(comm, points, result);
        if (result.two_phase.stopped) {
          result.status = RunStatus::interrupted;
          result.message = "stopped during the relative permeabilities (" + std::to_string(result.two_phase.relperm.size()) +
                           " of their points begun); k is converged; "
                           "continue with: rockperm run --resume " + request.spec.output.dir.string() +
                           " (k's converged state is kept in the checkpoint, and the points made before the stop in " +
                           relperm_store_name + "; the rest are made from it)";
        } else if (relperm_follows(request.spec) && result.status != RunStatus::interrupted &&
                   !result.checkpoint.empty()) {
          drop_checkpoint(comm, request.spec, result.checkpoint, result);  // k's state kept for them
        }
      }
      if (request.keep_phases && comm.root()) result.two_phase_state = two_phase;
    }
  } catch (const Error& e) {
    report_failure(comm, dir, e, request.describe_input, result);
    throw;
  }
  if (comm.root()) write_reports(dir, result);  // report.json last: the mark of a finished run
  return result;
}

}  // namespace rockperm::pipeline
