#include "app/sample_run.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <functional>
#include <iostream>

#include "app/campaign.hpp"
#include "app/console.hpp"
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
#include "pipeline/tensor.hpp"
#include "rockperm/config.hpp"

namespace rockperm::app {

namespace {

// The library's request for one run of `options` (README, "Statuses and exit codes").
pipeline::RunRequest request_of(const RunOptions& options, const SampleRunSettings& settings) {
  pipeline::RunRequest r;
  r.spec = options.spec;
  r.use = options.resume      ? pipeline::DirectoryUse::resume
          : options.overwrite ? pipeline::DirectoryUse::overwrite
                              : pipeline::DirectoryUse::fresh;
  if (!options.resume) r.config_ini = to_ini(options);
  r.command_line = settings.command_line;
  r.device_slot = settings.device_slot;
  r.read = settings.read;
  r.stop_requested = settings.stop_requested ? settings.stop_requested : std::function<bool()>(&StopSignals::requested);
  r.progress = settings.progress;
  r.validate = [&options] { validate_run_options(options); };
  r.describe_input = [](const InputError& e) { return option_message(e); };
  return r;
}

// The console's view of the stages (rank 0): the sample, the backend, progress lines, the fields.
class ConsoleObserver final : public pipeline::RunObserver {
 public:
  explicit ConsoleObserver(double progress_seconds) : printer_(progress_seconds) {}
  void sample_ready(const pipeline::RunSpec& spec, const pipeline::Sample& sample, const pipeline::FlowSpec& flow,
                    const pipeline::ExecutionPlan& plan, int ranks) override {
    print_sample(spec, sample, flow, plan, ranks);
  }
  void simulation_ready(const pipeline::Simulation& simulation, const pipeline::ExecutionPlan& plan, int ranks,
                        double ready_seconds) override {
    print_backend(simulation, plan, ranks, ready_seconds);
  }
  void progress(const Progress& p) override { printer_(p); }
  void fields_written(const pipeline::FieldsWritten& written, const pipeline::FieldSpec& spec) override {
    print_fields(written, spec);
  }

 private:
  ProgressPrinter printer_;
};

// lbm.flow_axis = all: the volume read once, a run along each axis in <dir>/x, y, z (each a
// run directory of its own: config, report, checkpoint), then the tensor (pipeline/tensor.hpp).
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
  result.provenance = pipeline::start_provenance(comm, request_of(options, settings));
  pipeline::ReadVolume volume;  // rank 0
  try {
    collectively(comm, [&] {
      validate_run_options(options);
      if (comm.root()) volume = pipeline::read_volume(options.spec.sample);
    });
  } catch (const Error& e) {
    pipeline::report_failure(comm, dir, e, [](const InputError& x) { return option_message(x); }, result);
    throw;
  }
  if (console) {
    std::cout << "tensor      three runs (x, y, z) from one read of " << options.spec.sample.volume.path.string()
              << ", in " << dir.string() << "/{x,y,z}\n";
  }
  static constexpr const char* names[3] = {"x", "y", "z"};
  std::array<std::optional<pipeline::AxisOutcome>, 3> outcomes;  // rank 0's; an axis never ended stays empty
  for (int a = 0; a < 3 && !StopSignals::requested(); ++a) {
    RunOptions axis = options;
    axis.spec.all_axes = false;
    axis.spec.flow.flow_axis = a;
    axis.spec.output.dir = dir / names[a];
    SampleState state = SampleState::fresh;
    if (options.resume) collectively(comm, [&] { state = inspect_sample(axis); });
    if (state == SampleState::done || state == SampleState::failed) {
      if (console) std::cout << "== flow along " << names[a] << ": done before, kept\n";
      if (comm.root()) outcomes[a] = pipeline::read_axis_outcome(axis.spec.output.dir / "report.json");
      continue;
    }
    axis.resume = state == SampleState::resume;
    axis.overwrite = !axis.resume;
    SampleRunSettings s = settings;
    s.read = [&] { return PreparedSample{pipeline::read_sample(comm, volume, axis.spec.sample, axis.spec.flow), {}, {}}; };
    if (console) std::cout << "== flow along " << names[a] << (axis.resume ? " (resumed)" : "") << "\n";
    try {
      outcomes[a] = pipeline::AxisOutcome::of(run_sample(comm, axis, s));
    } catch (const Error& e) {  // recorded in the axis's report; the tensor says which axis failed
      if (console) std::cout << "rockperm: " << names[a] << ": " << e.what() << "\n";
      pipeline::SampleResult failed;
      pipeline::record_failure(e, [](const InputError& x) { return option_message(x); }, failed);
      if (e.all_ranks) outcomes[a] = pipeline::AxisOutcome::of(failed);
    }
  }
  pipeline::PermeabilityTensor t;
  collectively(comm, [&] {
    if (!comm.root()) return;
    t = pipeline::compose_tensor(outcomes, pipeline::measures_cross_terms(options.spec.flow));
    pipeline::write_tensor_reports(dir, t, options.spec.sample.volume.path.filename().string());
  });
  std::vector<std::uint8_t> status{static_cast<std::uint8_t>(t.status)};
  comm.broadcast(status);
  result.status = static_cast<pipeline::RunStatus>(status.at(0));
  result.message = t.message;
  if (console) {
    std::cout << "tensor      " << t.message << " (" << pipeline::to_string(result.status) << ")\n"
              << "report      " << (dir / "report.json").string() << "\n";
  }
  return result;
}

}  // namespace

PreparedSample prepare_sample(const RunOptions& options, int device_slot) {
  return pipeline::prepare_sample(options.spec, device_slot);
}

pipeline::SampleResult run_sample(const Comm& comm, const RunOptions& options, const SampleRunSettings& settings) {
  if (options.spec.all_axes) return run_tensor(comm, options, settings);
  pipeline::RunRequest request = request_of(options, settings);
  ConsoleObserver console(options.spec.output.progress_seconds);
  if (settings.console) request.observer = &console;
  const pipeline::SampleResult result = pipeline::run(comm, request);
  if (settings.console && comm.root()) print_result(result, request.spec.output.dir / "report.json");
  return result;
}

}  // namespace rockperm::app
