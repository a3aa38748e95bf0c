// rockperm: absolute permeability of segmented micro-CT volumes with a sparse D3Q19 LBM.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "lib/error.hpp"
#include "rockperm/config.hpp"

namespace {

void print_usage(std::ostream& out) {
  out << "rockperm " << ROCKPERM_VERSION
      << " - absolute permeability of rock from segmented micro-CT volumes\n\n"
         "usage: rockperm COMMAND [options]\n\n"
         "commands:\n"
         "  run --config FILE.ini   simulate one sample to steady state; prints k in mD and writes\n"
         "                          report.json, report.csv and config.ini into the run directory\n"
         "  bench [options]         measure speed (MFLUPS, GB/s against the measured copy bandwidth)\n"
         "  devices                 list the CUDA devices this process sees\n"
         "  version                 print the version and build options\n\n"
         "'rockperm COMMAND --help' documents every option of a command, with units.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      print_usage(std::cout);
      return args.empty() ? 2 : 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    if (command == "run") return rockperm::app::run_command(args);
    if (command == "bench") return rockperm::app::bench_command(args);
    if (command == "devices") return rockperm::app::devices_command();
    if (command == "version" || command == "--version") {
      std::cout << "rockperm " << ROCKPERM_VERSION << " (CUDA " << (ROCKPERM_HAVE_CUDA ? "on" : "off") << ", MPI "
                << (ROCKPERM_HAVE_MPI ? "on" : "off") << ", VTK " << (ROCKPERM_HAVE_VTK ? "on" : "off") << ")\n";
      return 0;
    }
    std::cerr << "rockperm: error: unknown command '" << command << "'; run 'rockperm --help' for the list\n";
    return 2;
  } catch (const rockperm::Error& e) {
    std::cerr << "rockperm: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "rockperm: internal error: " << e.what() << "\n";
    return 1;
  }
}
