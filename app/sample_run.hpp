#pragma once
// One sample's run in its run directory, as `rockperm run` and every sample of a campaign make
// it: the directory taken (locked, checked), config.ini first, the pipeline's stages, and a
// report for every outcome (README, "Statuses and exit codes").
#include <string>

#include "app/options.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/pipeline/result.hpp"

namespace rockperm::app {

struct SampleRunSettings {
  std::string command_line;  // for the report's provenance, e.g. "rockperm run --config a.ini"
  bool console = true;       // print the stages, progress and result (rank 0)
};

// Collective over `comm`. Returns the result (written to report.json); on an Error writes what
// is known to report.json where every rank agreed on it, then rethrows.
pipeline::SampleResult run_sample(const Comm& comm, const RunOptions& options, const SampleRunSettings& settings);

}  // namespace rockperm::app
