#include "app/sample_run.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <functional>
#include <iostream>

#include "app/campaign.hpp"
#include "app/console.hpp"
#include "app/tensor.hpp"
#include "app/signals.hpp"
#include "io/atomic_file.hpp"
#include "lib/base/build_info.hpp"
#include "lib/base/system.hpp"
#include "pipeline/checkpoint.hpp"
#include "pipeline/decomposition.hpp"
#include "pipeline/driver.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/fields.hpp"
#include "pipeline/report.hpp"
#include "pipeline/run_directory.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/simulation.hpp"
#include "rockperm/config.hpp"

namespace rockperm::app {

namespace {

// Every outcome leaves a report: the status and message of `e` (the error itself is printed by
// the caller), written where every rank agreed on the error.
void report_failure(const Comm& comm, const std::filesystem::path& dir, const Error& e, pipeline::SampleResult& result) {
  result.status = pipeline::status_of(e);
  const auto* input = dynamic_cast<const InputError*>(&e);
  result.message = input ? option_message(*input) : e.what();
  if (!comm.root() || !e.all_ranks) return;
  try {
    pipeline::write_reports(dir, result);
  } catch (const Error&) {  // the directory itself fails: the message of `e` is what counts
  }
}

pipeline::Provenance start_provenance(const Comm& comm, const RunOptions& options, const std::string& command_line) {
  pipeline::Provenance p;
  p.version = ROCKPERM_VERSION;
  p.commit = build_commit();
  p.build_type = build_type();
  p.date_utc = utc_timestamp();
  p.host = host_name();
  p.command_line = command_line;
  p.ranks = comm.size();
  const pipeline::SampleSpec& s = options.spec.sample;
  p.pore_labels = s.pore_labels.str();
  p.crop = std::to_string(s.volume.crop.offset[0]) + " " + std::to_string(s.volume.crop.offset[1]) + " " +
           std::to_string(s.volume.crop.offset[2]) + " / " + std::to_string(s.volume.crop.size[0]) + " " +
           std::to_string(s.volume.crop.size[1]) + " " + std::to_string(s.volume.crop.size[2]);
  p.percolation_filter = s.percolation_filter;
  p.resumed = options.resume;
  return p;
}

// The execution of a campaign's worker: its GPU of the host, or its entry of run.devices.
pipeline::ExecutionSpec worker_execution(pipeline::ExecutionSpec execution, int device_slot) {
  if (device_slot >= 0) {
    execution.devices = {execution.devices.empty()
                             ? device_slot
                             : execution.devices[static_cast<std::size_t>(device_slot) % execution.devices.size()]};
  }
  return execution;
}

// The stages; `result` holds what is known so far when one of them throws.
void run_stages(const Comm& comm, const RunOptions& options, const pipeline::RunDirectory& directory,
                const SampleRunSettings& settings, pipeline::SampleResult& result) {
  const bool console = settings.console && comm.root();
  const auto started = std::chrono::steady_clock::now();
  const std::function<PreparedSample()>& read = settings.read;
  const pipeline::RunSpec& spec = options.spec;
  result.flow = spec.flow;
  result.input.path = spec.sample.volume.path;
  result.input.name = spec.sample.volume.path.filename().string();
  PreparedSample prepared = read ? read() : PreparedSample{pipeline::read_sample(comm, spec.sample, spec.flow), {}, {}};
  pipeline::Sample& sample = prepared.sample;
  result.input = sample.input;
  result.provenance.input_sha256 = sample.input.sha256;
  result.percolation = sample.percolation;
  result.dims = sample.dims;
  result.sample_dims = sample.sample_dims;
  result.voxel_size_um = sample.voxel_size_um;
  const pipeline::FlowSpec flow = pipeline::resolve_flow(spec.flow, sample);  // tau and force, where auto
  result.flow = flow;
  const pipeline::ExecutionSpec execution = worker_execution(spec.execution, settings.device_slot);
  const pipeline::ExecutionPlan plan = pipeline::plan_execution(comm, execution, sample.plane_fluid);
  result.provenance.devices = comm.gather(plan.identity());
  const pipeline::FieldsOutput fields(spec.output.fields, spec.output.dir, sample, flow);  // checked before the work
  // a stop always writes a checkpoint; the fields come at the end: room for both, checked now
  const double checkpoint_bytes =
      static_cast<double>(sample.fluid) * lattice::q * static_cast<double>(storage_bytes(plan.storage)) + 4096.0;
  directory.require_free_space(comm, checkpoint_bytes + fields.bytes_bound() + 1e6, "a checkpoint and the fields");
  if (console) print_sample(options, sample, flow, plan, comm.size());

  if (prepared.lattice && (comm.size() != 1 || prepared.propagation != plan.propagation)) {
    throw RuntimeFailure("internal: a lattice prepared for another propagation or rank count");  // sample's mask is gone
  }
  pipeline::RankLattice lattice =
      prepared.lattice ? std::move(*prepared.lattice)
                       : pipeline::decompose(comm, sample, flow.periodicity(), plan.propagation, flow.edge_contacts,
                                             pipeline::OneRank::whole, pipeline::lattice_tables(plan));
  pipeline::Simulation simulation(comm, sample, std::move(lattice), flow, execution, plan);
  pipeline::DriveSettings drive;
  drive.checkpoint = spec.output.dir / pipeline::checkpoint_name;
  drive.identity = pipeline::run_identity(sample.input.sha256, spec.sample, flow);
  drive.checkpoint_interval = spec.execution.checkpoint_interval;
  drive.checkpoint_minutes = spec.execution.checkpoint_minutes;
  drive.checkpoint_at_end = spec.execution.checkpoint_at_end;
  drive.walltime_minutes = spec.execution.walltime_minutes;
  drive.stop_requested = settings.stop_requested ? settings.stop_requested : std::function<bool()>(&StopSignals::requested);
  if (options.resume) pipeline::read_checkpoint(comm, simulation, drive.checkpoint, drive.identity);
  if (console) {
    print_backend(simulation, plan, comm.size(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }

  ProgressPrinter printer(spec.output.progress_seconds);
  const pipeline::DriveOutcome outcome =
      pipeline::drive(comm, simulation, drive, [&](const Progress& p) {
        if (console) printer(p);
        if (settings.progress && comm.root()) settings.progress(p);
      });
  const auto loop_end = std::chrono::steady_clock::now();
  pipeline::Provenance provenance = result.provenance;
  result = simulation.result();
  result.provenance = provenance;
  if (outcome.checkpoints > 0) result.checkpoint = drive.checkpoint;
  result.performance.checkpoints = outcome.checkpoints;
  result.performance.checkpoint_seconds = outcome.checkpoint_seconds;
  if (outcome.interrupted) {
    std::erase_if(result.warnings, [](const pipeline::Warning& w) { return w.code == "not_converged"; });
    result.status = pipeline::RunStatus::interrupted;
    result.message = "stopped at step " + std::to_string(result.steps) + " (" + outcome.reason +
                     "); continue with: rockperm run --resume " + spec.output.dir.string();
    return;  // no fields of a state that is not steady
  }
  if (!spec.execution.checkpoint_at_end && comm.root()) {
    // the run ended by itself: an earlier checkpoint would only resume what is done
    std::error_code ec;
    std::filesystem::remove(drive.checkpoint, ec);
    result.checkpoint.clear();
  }
  result.slices = pipeline::mid_slices(comm, simulation, flow.flow_axis);
  const pipeline::FieldsWritten written = fields.write(comm, simulation);
  result.timings.finish = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_end).count();
  if (console && fields.enabled()) print_fields(written, spec.output.fields);
}

// lbm.flow_axis = all: the volume read once, a run along each axis in <dir>/x, y, z (each a
// run directory of its own: config, report, checkpoint), then the tensor (app/tensor.hpp).
// Continuing (--resume, or a campaign) keeps the axes done with this configuration and input
// and resumes an interrupted one.
pipeline::SampleResult run_tensor(const Comm& comm, const RunOptions& options, const SampleRunSettings& settings) {
  const bool console = settings.console && comm.root();
  const pipeline::DirectoryUse use =
      options.overwrite || options.resume ? pipeline::DirectoryUse::overwrite : pipeline::DirectoryUse::fresh;
  const pipeline::RunDirectory directory(comm, options.spec.output.dir, use);
  const std::filesystem::path dir = directory.path();
  collectively(comm, [&] {
    if (comm.root()) io::write_file_atomically(dir / "config.ini", to_ini(options));
  });
  pipeline::SampleResult result;
  result.provenance = start_provenance(comm, options, settings.command_line);
  pipeline::ReadVolume volume;  // rank 0
  try {
    collectively(comm, [&] {
      validate_run_options(options);
      if (comm.root()) volume = pipeline::read_volume(options.spec.sample);
    });
  } catch (const Error& e) {
    report_failure(comm, dir, e, result);
    throw;
  }
  if (console) {
    std::cout << "tensor      three runs (x, y, z) from one read of " << options.spec.sample.volume.path.string()
              << ", in " << dir.string() << "/{x,y,z}\n";
  }
  static constexpr const char* names[3] = {"x", "y", "z"};
  for (int a = 0; a < 3 && !StopSignals::requested(); ++a) {
    RunOptions axis = options;
    axis.spec.all_axes = false;
    axis.spec.flow.flow_axis = a;
    axis.spec.output.dir = dir / names[a];
    SampleState state = SampleState::fresh;
    if (options.resume) collectively(comm, [&] { state = inspect_sample(axis); });
    if (state == SampleState::done || state == SampleState::failed) {
      if (console) std::cout << "== flow along " << names[a] << ": done before, kept\n";
      continue;
    }
    axis.resume = state == SampleState::resume;
    axis.overwrite = !axis.resume;
    SampleRunSettings s = settings;
    s.read = [&] { return PreparedSample{pipeline::read_sample(comm, volume, axis.spec.sample, axis.spec.flow), {}, {}}; };
    if (console) std::cout << "== flow along " << names[a] << (axis.resume ? " (resumed)" : "") << "\n";
    try {
      run_sample(comm, axis, s);
    } catch (const Error& e) {  // recorded in the axis's report; the tensor says which axis failed
      if (console) std::cout << "rockperm: " << names[a] << ": " << e.what() << "\n";
    }
  }
  TensorSummary t;
  collectively(comm, [&] {
    if (comm.root()) t = write_tensor_report(dir, options);
  });
  std::vector<std::uint8_t> status(t.status.begin(), t.status.end());
  comm.broadcast(status);
  const std::string status_text(status.begin(), status.end());
  result.status = pipeline::parse_status(status_text).value_or(pipeline::RunStatus::runtime_error);
  result.message = t.message;
  if (console) {
    std::cout << "tensor      " << t.message << " (" << status_text << ")\n"
              << "report      " << (dir / "report.json").string() << "\n";
  }
  return result;
}

}  // namespace

PreparedSample prepare_sample(const RunOptions& options, int device_slot) {
  const Comm self;
  const pipeline::RunSpec& spec = options.spec;
  PreparedSample p{pipeline::read_sample(self, spec.sample, spec.flow), {}, {}};
  const pipeline::FlowSpec flow = pipeline::resolve_flow(spec.flow, p.sample);
  // the propagation only (no capacity check: run_sample plans again, with the sample's size)
  const pipeline::ExecutionPlan plan = pipeline::plan_execution(self, worker_execution(spec.execution, device_slot), {});
  p.propagation = plan.propagation;
  p.lattice = pipeline::decompose(self, p.sample, flow.periodicity(), p.propagation, flow.edge_contacts,
                                  pipeline::OneRank::whole, pipeline::lattice_tables(plan));
  return p;
}

pipeline::SampleResult run_sample(const Comm& comm, const RunOptions& options, const SampleRunSettings& settings) {
  if (options.spec.all_axes) return run_tensor(comm, options, settings);
  const bool console = settings.console && comm.root();
  const pipeline::DirectoryUse use = options.resume      ? pipeline::DirectoryUse::resume
                                     : options.overwrite ? pipeline::DirectoryUse::overwrite
                                                         : pipeline::DirectoryUse::fresh;
  const pipeline::RunDirectory directory(comm, options.spec.output.dir, use);  // locked, checked, before any work
  const std::filesystem::path dir = directory.path();
  if (!options.resume) {  // first, so that a stopped run can be resumed from it
    collectively(comm, [&] {
      if (comm.root()) io::write_file_atomically(dir / "config.ini", to_ini(options));
    });
  }
  pipeline::SampleResult result;
  result.provenance = start_provenance(comm, options, settings.command_line);
  result.performance.ranks = comm.size();
  try {
    collectively(comm, [&] { validate_run_options(options); });
    run_stages(comm, options, directory, settings, result);
  } catch (const Error& e) {
    report_failure(comm, dir, e, result);
    throw;
  }
  if (comm.root()) pipeline::write_reports(dir, result);  // report.json last: the mark of a finished run
  if (console) print_result(result, dir / "report.json");
  return result;
}

}  // namespace rockperm::app
