// rockperm plan: what a sample needs before anything is allocated.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "lib/base/error.hpp"
#include "pipeline/decomposition.hpp"
#include "pipeline/memory_plan.hpp"
#include "pipeline/sample.hpp"

namespace rockperm::app {

int plan_command(const std::vector<std::string>& args) {
  // plan takes the run options plus --ranks N and --gpu-memory-gib G
  std::vector<std::string> run_args;
  int ranks = 1;
  bool build_lattice = false;
  std::vector<double> gib = {80.0, 141.0};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto value = [&](const std::string& name) {
      if (i + 1 >= args.size()) throw InputError("plan: " + name + " needs a value");
      return args[++i];
    };
    if (args[i] == "--ranks") {
      ranks = static_cast<int>(bounded_number("plan: --ranks", value("--ranks"), 1, max_plan_ranks, true));
    } else if (args[i] == "--gpu-memory-gib") {
      gib = {bounded_number("plan: --gpu-memory-gib", value("--gpu-memory-gib"), 0.5, 1e5, false)};
    } else if (args[i] == "--build-lattice") {
      build_lattice = true;
    } else {
      run_args.push_back(args[i]);
    }
  }
  bool help = false;
  RunOptions options = parse_run_options(run_args, help);
  options.spec.sample.hash_input = false;  // plan reports no provenance: no second read of the volume
  const pipeline::RunSpec& spec = options.spec;
  if (help) {
    std::cout << "usage: rockperm plan --config FILE.ini [--ranks N] [--gpu-memory-gib G] [--build-lattice]\n"
                 "                     [--section.key=value]\n"
                 "--build-lattice also builds the fluid-cell numbering and neighbour table and times it.\n"
                 "Prints porosity, fluid cells, bytes per fluid cell, the memory of each of N ranks (default 1),\n"
                 "and the fewest GPUs of G GiB (default: 80 and 141, an H100 and an H200) that hold the sample.\n";
    return 0;
  }
  // the run's first stages, on this process alone
  pipeline::Sample layout = pipeline::read_sample(parallel::Comm{}, spec.sample, spec.flow);
  std::printf("sample       %s, %s voxels\n", spec.sample.volume.path.string().c_str(), layout.dims.str().c_str());
  // porosities of the sample itself; the fluid cells include buffer layers or the mirror image
  std::printf("porosity     %.4f, connected %.4f (of the sample); %llu fluid cells to simulate\n",
              layout.percolation.total_porosity(), layout.percolation.connected_porosity(),
              static_cast<unsigned long long>(layout.fluid));
  std::printf("stages       read %.2f s, percolation %.2f s", layout.read_seconds, layout.percolation_seconds);
  if (build_lattice) {
    const auto start = std::chrono::steady_clock::now();
    const pipeline::RankLattice part = pipeline::decompose(parallel::Comm{}, layout, spec.flow.periodicity(),
                                                           backend::Propagation::two_pass, spec.flow.edge_contacts);
    std::printf(", neighbour table %.2f s (%u cells)", std::chrono::duration<double>(
                                                        std::chrono::steady_clock::now() - start).count(),
                part.lattice.fluid_count());
  }
  std::printf("\n");
  const pipeline::SamplePlan plan = pipeline::plan_sample(layout, ranks, gib);
  for (const pipeline::LayoutPlan& l : plan.layouts) {
    std::printf("\n%s propagation, %s: %.0f B per fluid cell on a GPU (%.3g-byte neighbour tables), %.2f GB in all, "
                "%.0f B moved per update\n",
                to_string(l.propagation), to_string(l.storage), l.bytes_per_cell, l.index_bytes, l.total_bytes * 1e-9,
                l.traffic_per_update);
    for (std::size_t r = 0; r < l.ranks.size(); ++r) {
      std::printf("  rank %-4zu planes %5lld..%-5lld %12llu cells %10.2f GB\n", r,
                  static_cast<long long>(l.ranks[r].slab.z_begin), static_cast<long long>(l.ranks[r].slab.z_end - 1),
                  static_cast<unsigned long long>(l.ranks[r].cells), l.ranks[r].bytes * 1e-9);
    }
    for (std::size_t i = 0; i < l.fewest_gpus.size(); ++i) {
      const auto& [g, needed] = l.fewest_gpus[i];
      if (needed > 0) std::printf("  fewest GPUs of %.0f GiB: %d", g, needed);
      else std::printf("  GPUs of %.0f GiB: does not fit even at one plane per GPU; crop the sample", g);
      const double host = l.host_bytes[i].second;
      if (host > 0) {
        std::printf("; %d of them and a rank on the host's cores (run.host_share = auto): the host holds %.2f GB",
                    ranks, host * 1e-9);
      }
      std::printf("\n");
    }
  }
  return 0;
}

}  // namespace rockperm::app
