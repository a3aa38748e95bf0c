// rockperm run: one sample from its volume file to a permeability in mD, on one process or on
// Z-slabs over MPI ranks (one per GPU). A front end over the library pipeline
// (pipeline): it parses the options and hands them to run_sample (app/sample_run.hpp),
// which owns the run directory, calls the stages, prints between them, and leaves a report for
// every outcome (docs/manual/running-a-sample.md, "Statuses and exit codes").
#include <iostream>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/sample_run.hpp"
#include "app/signals.hpp"
#include "lib/parallel/comm.hpp"

namespace rockperm::app {

int run_command(const std::vector<std::string>& args) {
  const parallel::Comm comm = parallel::Comm::world();
  if (args.size() == 1 && args[0] == "--options-reference") {  // docs/reference/options.md
    if (comm.root()) std::cout << run_options_reference();
    return 0;
  }
  bool help = false;
  RunOptions options;
  parallel::collectively(comm, [&] { options = parse_run_options(args, help, false); });
  if (help) {
    if (comm.root()) std::cout << run_options_help();
    return 0;
  }
  const StopSignals signals;
  SampleRunSettings settings;
  settings.command_line = "rockperm run";
  for (const std::string& a : args) settings.command_line += " " + a;
  const pipeline::SampleResult result = run_sample(comm, options, settings);
  return pipeline::exit_code(result.status);
}

}  // namespace rockperm::app
