#pragma once
// The command line's side of a run: its options turned into the library's request
// (pipeline/run.hpp, the run itself and the tensor of three runs) and its console.
#include <functional>
#include <string>

#include "app/options.hpp"
#include "lib/parallel/comm.hpp"
#include "pipeline/result.hpp"
#include "pipeline/run.hpp"
#include "lib/solve/solver.hpp"

namespace rockperm::app {

// A sample read ahead, and its lattice (pipeline/run.hpp).
using PreparedSample = pipeline::PreparedSample;

// On this thread, for a run of `options` on one rank (a campaign's worker with its device slot):
// pipeline::prepare_sample of its spec.
PreparedSample prepare_sample(const RunOptions& options, int device_slot);

struct SampleRunSettings {
  std::string command_line;  // for the report's provenance, e.g. "rockperm run --config a.ini"
  bool console = true;       // print the stages, progress and result (rank 0)
  // Where set, gives the sample instead of pipeline::read_sample (a campaign prepares the next
  // samples while the current one runs); what it throws ends the run as a read error would.
  std::function<PreparedSample()> read;
  // A worker of one rank among several of its host (a campaign): the GPU it takes, by its
  // place among them (or that entry of run.devices), instead of its rank in `comm`; -1: by rank.
  // Not part of the configuration: any worker may resume any sample.
  int device_slot = -1;
  // Where set, asked at every check instead of the process's signals (a service cancels one job):
  // true stops the run with a checkpoint, as a signal would (status interrupted).
  std::function<bool()> stop_requested;
  // Where set, called after every check (rank 0), besides the console's progress lines.
  solve::ProgressFn progress;
};

// Collective over `comm`: pipeline::run of `options` (with lbm.flow_axis = all, one run per axis
// and the tensor, pipeline::run_tensor). Returns the result (written to report.json); on an Error writes what is
// known to report.json where every rank agreed on it, then rethrows.
pipeline::SampleResult run_sample(const parallel::Comm& comm, const RunOptions& options,
                                  const SampleRunSettings& settings);

}  // namespace rockperm::app
