#pragma once
// One sample's run in its run directory, as `rockperm run`, every sample of a campaign and every
// job of the service make it (the run as one library object, issue 35):
//
//   request -> directory taken (locked, checked) -> config.ini -> sample read -> plan ->
//   decomposed -> simulated (checkpoints, signals, wall-time limit) -> fields -> report.json
//
// and a report for every outcome (docs/manual/running-a-sample.md, "Statuses and exit codes"). The permeability tensor
// (spec.all_axes) is three such runs from one read of the volume, composed from their typed
// results (pipeline/tensor.hpp). A front end builds the
// request from its options, shows the stages through a RunObserver, and maps the returned
// status (or the Error thrown) to its exit code.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "lib/base/error.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/solve/solver.hpp"
#include "pipeline/decomposition.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/fields.hpp"
#include "pipeline/result.hpp"
#include "pipeline/run_directory.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::pipeline {

class Simulation;
struct PermeabilityTensor;

// A sample read and, for a run on one rank, its lattice already built: a campaign or the service
// prepares the next samples on other threads while the current one runs (the read, the
// percolation and pore analysis and the lattice build are host work).
struct PreparedSample {
  Sample sample;
  std::optional<RankLattice> lattice;  // built for `propagation`; the sample's mask is taken
  backend::Propagation propagation = backend::Propagation::two_pass;
};

// On this thread, for a run of `spec` on one rank (a worker with its device slot): reads the
// sample and builds its lattice as run() would. Throws what they throw.
PreparedSample prepare_sample(const RunSpec& spec, int device_slot);

// The execution of a worker of one rank among several of its host: its GPU by its place among
// them (or that entry of `devices`); device_slot -1 leaves it to the rank.
ExecutionSpec worker_execution(ExecutionSpec execution, int device_slot);

// What a front end shows between the stages; called on rank 0 only.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // the sample read and the plan made, before the lattice (`flow` as run: tau and force chosen)
  virtual void sample_ready(const RunSpec&, const Sample&, const FlowSpec& /*flow*/, const ExecutionPlan&, int /*ranks*/) {}
  // the backend started; `ready_seconds` from the start of the run to the first step
  virtual void simulation_ready(const Simulation&, const ExecutionPlan&, int /*ranks*/, double /*ready_seconds*/) {}
  virtual void progress(const solve::Progress&) {}
  virtual void fields_written(const FieldsWritten&, const FieldSpec&) {}
  // The tensor (spec.all_axes): its directory before the first axis; before each axis's run
  // (`kept`: a result of this configuration and input found in its directory, not run again;
  // `resumed`: from its checkpoint) and after it, with its result or its failure's status and
  // message; the tensor composed, with its report.
  virtual void tensor_started(const RunSpec&, const std::filesystem::path& /*dir*/) {}
  virtual void axis_started(int /*axis*/, bool /*kept*/, bool /*resumed*/) {}
  virtual void axis_ended(int /*axis*/, const SampleResult&, const std::filesystem::path& /*report*/) {}
  virtual void tensor_ready(const PermeabilityTensor&, RunStatus, const std::filesystem::path& /*report*/) {}
  // Two phases (spec.two_phase, pipeline/two_phase.hpp): the capillary pressure curves, made before
  // the flow; each relative permeability point as it is done (`done` of `total`).
  virtual void two_phase_curves(const TwoPhaseReport&) {}
  virtual void relperm_point(const RelPermPoint&, std::size_t /*done*/, std::size_t /*total*/) {}
  virtual void colour_flow_progress(const ColourFlowProgress&) {}
  // The displacement (spec.two_phase.displacement): each pressure of `curve` as it is held
  virtual void displacement_point(const std::string& /*curve*/, const DisplacementPoint&, std::size_t /*done*/,
                                  std::size_t /*total*/) {}
  // The Forchheimer sweep (spec.forchheimer, pipeline/forchheimer.hpp): each point as it is done
  // (`index` 0 is the run's own creeping k; `total` the points asked, with it).
  virtual void forchheimer_point(const ForchheimerPoint&, std::size_t /*index*/, std::size_t /*total*/) {}
};

struct RunRequest {
  RunSpec spec;                              // spec.all_axes: the tensor, a run along each axis
  // resume: continue the checkpoint in spec.output.dir (a tensor: keep the axes done, resume the
  // one stopped)
  DirectoryUse use = DirectoryUse::fresh;
  // The configuration of a spec as the front end writes it (config.ini), written first (not on
  // resume) and compared by inspect_run; a tensor writes one per axis. Unset: none written.
  std::function<std::string(const RunSpec&)> configuration;
  std::string command_line;                  // for the report's provenance
  int device_slot = -1;                      // worker_execution's
  // Where set, gives the sample instead of read_sample (prepared ahead); what it throws ends the
  // run as a read error would.
  std::function<PreparedSample()> read;
  // Where set (and `read` is not), the volume instead of read_volume of spec.sample: a mask in
  // memory (volume_from_mask). Called on rank 0 only, as often as the run needs the volume (the
  // tensor's axes, the companion runs: with_volume, pipeline/companion.hpp); must not throw where
  // it gives the run's own sample (request_sample).
  std::function<const ReadVolume&()> volume;
  // The input's SHA-256 where already known on every rank (a tensor's axes after the first): the
  // read does not hash the file again. Empty: hashed where spec.sample.hash_input asks.
  std::string input_sha256;
  // Asked at every check: true stops the run with a checkpoint (status interrupted).
  std::function<bool()> stop_requested;
  solve::ProgressFn progress;                // after every check (rank 0)
  bool keep_fields = false;                  // also the flow fields in memory (result.fields)
  bool keep_phases = false;                  // spec.two_phase: its phases in memory (result.two_phase_state)
  RunObserver* observer = nullptr;           // rank 0's stages, where a front end shows them
  // The front end's checks of its options, made once the directory is held (so that their
  // failure leaves a report); throws InputError or PhysicsError. RunSpec::validate where unset.
  std::function<void()> validate;
  // The message of an input error as the front end names it (report.json's message); what()
  // where unset.
  std::function<std::string(const InputError&)> describe_input;
};

// The provenance a run's report starts with (version, commit, host, date, command line, ranks,
// the sample's labels and crop); the front end's tensor of three runs records the same.
Provenance start_provenance(const parallel::Comm& comm, const RunRequest& request);

// `result` with the status, message and reason of `e` (an input error in the front end's words,
// `describe_input`).
void record_failure(const Error& e, const std::function<std::string(const InputError&)>& describe_input,
                    SampleResult& result);

// Every outcome leaves a report: record_failure, written to `dir` where every rank agreed on the error.
void report_failure(const parallel::Comm& comm, const std::filesystem::path& dir, const Error& e,
                    const std::function<std::string(const InputError&)>& describe_input, SampleResult& result);

// The sample of a request: prepared (read), from its volume, or read from spec.sample.
PreparedSample request_sample(const parallel::Comm& comm, const RunRequest& request);

// rank 0: the volume of a request (`volume`, else read_volume of spec.sample into `read`).
const ReadVolume& request_volume(const RunRequest& request, ReadVolume& read, bool hash);

// Collective over `comm`. Returns the result (written to report.json); on an Error writes what
// is known to report.json where every rank agreed on it, then rethrows. With spec.all_axes, the
// tensor (run_tensor, pipeline/tensor.hpp).
SampleResult run(const parallel::Comm& comm, const RunRequest& request);

}  // namespace rockperm::pipeline
