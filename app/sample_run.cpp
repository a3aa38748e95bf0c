#include "app/sample_run.hpp"

#include <chrono>
#include <functional>
#include <iostream>

#include "app/console.hpp"
#include "app/signals.hpp"
#include "pipeline/tensor.hpp"

namespace rockperm::app {

namespace {

// The library's request for one run of `options` (docs/manual/running-a-sample.md, "Statuses and exit codes").
pipeline::RunRequest request_of(const RunOptions& options, const SampleRunSettings& settings) {
  pipeline::RunRequest r;
  r.spec = options.spec;
  r.use = options.resume      ? pipeline::DirectoryUse::resume
          : options.overwrite ? pipeline::DirectoryUse::overwrite
                              : pipeline::DirectoryUse::fresh;
  r.configuration = [](const pipeline::RunSpec& spec) { return to_ini(spec); };
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
  explicit ConsoleObserver(double progress_seconds) : printer_(progress_seconds), progress_seconds_(progress_seconds) {}
  void sample_ready(const pipeline::RunSpec& spec, const pipeline::Sample& sample, const pipeline::FlowSpec& flow,
                    const pipeline::ExecutionPlan& plan, int ranks) override {
    print_sample(spec, sample, flow, plan, ranks);
    flow_ = spec.permeability;
  }
  void simulation_ready(const pipeline::Simulation& simulation, const pipeline::ExecutionPlan& plan, int ranks,
                        double ready_seconds) override {
    print_backend(simulation, plan, ranks, ready_seconds, flow_);
  }
  void progress(const solve::Progress& p) override { printer_(p); }
  void fields_written(const pipeline::FieldsWritten& written, const pipeline::FieldSpec& spec) override {
    print_fields(written, spec);
  }
  void tensor_started(const pipeline::RunSpec& spec, const std::filesystem::path& dir) override {
    std::cout << "tensor      three runs (x, y, z) from one read of " << spec.sample.volume.path.string() << ", in "
              << dir.string() << "/{x,y,z}\n";
  }
  void axis_started(int axis, bool kept, bool resumed) override {
    std::cout << "== flow along " << "xyz"[axis] << (kept ? ": done before, kept" : resumed ? " (resumed)" : "") << "\n";
  }
  void axis_ended(int axis, const pipeline::SampleResult& r, const std::filesystem::path& report) override {
    if (r.status == pipeline::RunStatus::converged || r.status == pipeline::RunStatus::not_converged ||
        r.status == pipeline::RunStatus::interrupted) {
      print_result(r, report);
    } else {
      std::cout << "rockperm: " << "xyz"[axis] << ": " << r.message << "\n";
    }
  }
  void two_phase_curves(const pipeline::TwoPhaseReport& t) override { print_two_phase_curves(t); }
  void relperm_point(const pipeline::RelPermPoint& p, std::size_t done, std::size_t total) override {
    print_relperm_point(p, done, total);
  }
  void displacement_point(const std::string& curve, const pipeline::DisplacementPoint& p, std::size_t done,
                          std::size_t total) override {
    print_displacement_point(curve, p, done, total);
  }
  void forchheimer_point(const pipeline::ForchheimerPoint& p, std::size_t index, std::size_t total) override {
    print_forchheimer_point(p, index, total);
  }
  void colour_flow_progress(const pipeline::ColourFlowProgress& p) override {
    const auto now = std::chrono::steady_clock::now();
    if (p.label != flow_label_ || std::chrono::duration<double>(now - flow_printed_).count() >= progress_seconds_) {
      print_colour_flow_progress(p);
      flow_label_ = p.label;
      flow_printed_ = now;
    }
  }
  void tensor_ready(const pipeline::PermeabilityTensor& t, pipeline::RunStatus status,
                    const std::filesystem::path& report) override {
    std::cout << "tensor      " << t.message << " (" << pipeline::to_string(status) << ")\n"
              << "report      " << report.string() << "\n";
  }

 private:
  ProgressPrinter printer_;
  bool flow_ = true;  // the flow is solved (not F alone)
  double progress_seconds_;
  std::string flow_label_;  // the two-phase flow last shown, and when
  std::chrono::steady_clock::time_point flow_printed_{};
};

}  // namespace

PreparedSample prepare_sample(const RunOptions& options, int device_slot) {
  return pipeline::prepare_sample(options.spec, device_slot);
}

pipeline::SampleResult run_sample(const parallel::Comm& comm, const RunOptions& options,
                                  const SampleRunSettings& settings) {
  pipeline::RunRequest request = request_of(options, settings);
  ConsoleObserver console(options.spec.output.progress_seconds);
  if (settings.console) request.observer = &console;
  const pipeline::SampleResult result = pipeline::run(comm, request);
  if (settings.console && comm.root() && !options.spec.all_axes) {
    print_result(result, request.spec.output.dir / "report.json");
  }
  return result;
}

}  // namespace rockperm::app
