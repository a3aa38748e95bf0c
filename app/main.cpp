// rockperm: absolute permeability of segmented micro-CT volumes with a sparse D3Q19 LBM.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/base/build_info.hpp"
#include "lib/base/error.hpp"
#include "rockperm/config.hpp"

namespace {

void print_usage(std::ostream& out) {
  out << "rockperm " << ROCKPERM_VERSION
      << " - absolute permeability of rock from segmented micro-CT volumes\n\n"
         "usage: rockperm COMMAND [options]\n\n"
         "commands:\n"
         "  run --config FILE.ini   simulate one sample to steady state; prints k in mD and writes\n"
         "                          report.json, report.csv and config.ini into the run directory\n"
         "  campaign --manifest FILE.csv | --scans DIR\n"
         "                          many samples, each in its own run directory, with one summary\n"
         "                          (campaign.csv); the same command again continues where it stopped\n"
         "  serve --config SERVICE.ini\n"
         "                          the permeability service: jobs over HTTP, a queue that survives\n"
         "                          restarts, a worker per GPU\n"
         "  plan --config FILE.ini  porosity, fluid cells, memory per rank and the number of GPUs the\n"
         "                          sample needs, before anything is allocated\n"
         "  bench [options]         measure speed (MFLUPS, GB/s against the measured copy bandwidth)\n"
         "  devices                 list the CUDA devices this process sees\n"
         "  version                 print the version and build options\n\n"
         "'rockperm COMMAND --help' documents every option of a command, with units.\n";
}

}  // namespace

int main(int argc, char** argv) {
  rockperm::parallel::MpiSession mpi(&argc, &argv);
  const rockperm::parallel::Comm comm = rockperm::parallel::Comm::world();
  std::vector<std::string> args(argv + 1, argv + argc);
  // one message per failure: from rank 0 when every rank failed alike, else from the rank
  // that failed, which then stops the others
  const auto fail = [&](const std::string& what, int code, bool all_ranks) {
    if (!all_ranks || comm.root()) {
      std::cerr << "rockperm: " << (comm.size() > 1 && !all_ranks ? "rank " + std::to_string(comm.rank()) + ": " : "")
                << what << "\n";
    }
    if (!all_ranks && comm.size() > 1) comm.abort(code);
    return code;
  };
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      print_usage(std::cout);
      return args.empty() ? 2 : 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    if (command == "run") return rockperm::app::run_command(args);
    if (command == "campaign") return rockperm::app::campaign_command(args);
    if (command == "serve") return rockperm::app::serve_command(args);
    if (command == "bench") return rockperm::app::bench_command(args);
    if (command == "plan") return rockperm::app::plan_command(args);
    if (command == "devices") return rockperm::app::devices_command();
    if (command == "version" || command == "--version") {
      std::cout << "rockperm " << ROCKPERM_VERSION << " (commit " << rockperm::build_commit() << ", "
                << rockperm::build_type() << "; CUDA " << (ROCKPERM_HAVE_CUDA ? "on" : "off") << ", MPI "
                << (ROCKPERM_HAVE_MPI ? "on" : "off") << ", VTK " << (ROCKPERM_HAVE_VTK ? "on" : "off") << ")\n";
      return 0;
    }
    std::cerr << "rockperm: error: unknown command '" << command << "'; run 'rockperm --help' for the list\n";
    return 2;
  } catch (const rockperm::InputError& e) {  // named by the option that sets what was rejected
    return fail("error: " + rockperm::app::option_message(e), e.exit_code(), e.all_ranks);
  } catch (const rockperm::Error& e) {
    return fail(std::string("error: ") + e.what(), e.exit_code(), e.all_ranks);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), 1, false);
  }
}
