// rockperm-bench-colour: times the colour-gradient two-phase model (issue 69) on a synthetic
// sphere pack and prints its speed, as `rockperm bench` does for the single phase: million
// fluid-cell updates per second (MFLUPS) and the bytes its passes move against the device's copy
// bandwidth. Phase A fills the pack's lower part (--saturation of its planes), B the rest; both are
// driven along x.
//   rockperm-bench-colour --dims "256 256 256" --backend gpu
#include <boost/program_options.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "lib/backend/colour_cpu.hpp"
#include "lib/backend/cpu_backend.hpp"
#include "lib/base/error.hpp"
#include "lib/geometry/pore_mask.hpp"
#include "lib/geometry/sphere_pack.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/colour_gpu.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/device_info.hpp"
#endif

namespace po = boost::program_options;
using namespace rockperm;

namespace {

// Bytes one step moves per fluid cell, float (lib/lattice/colour_propagation.hpp's passes): phase
// pulls the 14 colours through 6 table entries and writes phi, nA, nB (56 + 24 + 12); collide
// pulls 19 populations through 18 table entries, reads phi, nA, nB (the neighbours' phi counted as
// cached) and writes 19 populations and 14 colours (76 + 72 + 12 + 132). In fp16 the 19
// populations are 38 B each way.
double bytes_per_cell_step(physics::Storage storage) {
  const double populations = 19.0 * static_cast<double>(physics::storage_bytes(storage));
  return (56 + 24 + 12) + (populations + 72 + 12 + populations + 56);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    po::options_description opts("usage: rockperm-bench-colour [options]");
    opts.add_options()("help,h", "this text")
        ("dims", po::value<std::string>()->default_value("128 128 128"), "the pack's dimensions in voxels")
        ("porosity", po::value<double>()->default_value(0.35), "the pack's pore fraction")
        ("radius", po::value<double>()->default_value(8.0), "its mean sphere radius, voxels")
        ("seed", po::value<std::uint64_t>()->default_value(2026), "its random seed")
        ("saturation", po::value<double>()->default_value(0.5), "share of the planes phase A starts in")
        ("backend", po::value<std::string>()->default_value("cpu"), "cpu or gpu")
        ("device", po::value<int>()->default_value(0), "CUDA device (gpu)")
        ("storage", po::value<std::string>()->default_value("fp32"), "the momentum populations' storage: fp32 or fp16")
        ("steps", po::value<std::int64_t>()->default_value(200), "timed steps (after 20 untimed)");
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, opts), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << opts;
      return 0;
    }
    geometry::SpherePackSpec spec;
    std::istringstream dims(vm["dims"].as<std::string>());
    if (!(dims >> spec.dims.nx >> spec.dims.ny >> spec.dims.nz) || spec.dims.nx < 8 || spec.dims.ny < 8 ||
        spec.dims.nz < 8) {
      throw InputError("--dims must be three sizes of at least 8 voxels, e.g. \"128 128 128\"");
    }
    spec.porosity = vm["porosity"].as<double>();
    spec.radius = vm["radius"].as<double>();
    spec.seed = vm["seed"].as<std::uint64_t>();
    const std::int64_t steps = vm["steps"].as<std::int64_t>();
    const double saturation = vm["saturation"].as<double>();
    const physics::Storage storage = physics::parse_storage(vm["storage"].as<std::string>());
    if (steps < 1) throw InputError("--steps must be at least 1");
    if (!(saturation >= 0 && saturation <= 1)) throw InputError("--saturation must be within [0, 1]");
    const auto lat = lattice::SparseLattice::build(
        make_pore_mask(geometry::make_sphere_pack(spec), geometry::LabelSelection::parse("0")), {true, true, true}, true);
    physics::colour::ColourParams p;
    p.sigma = 0.01f;
    p.nu[1] = 0.05f;
    p.g[0][0] = p.g[1][0] = 1e-5f;
    std::vector<float> phi(lat.fluid_count());
    const double split = saturation * spec.dims.nz;
    for (std::uint32_t c = 0; c < lat.fluid_count(); ++c) {
      phi[c] = static_cast<float>(std::tanh(p.beta * (split - lat.coords()[c].z)));
    }
    std::unique_ptr<backend::ColourBackend> model;
    double copy_gbs = 0;
    const std::string backend = vm["backend"].as<std::string>();
    if (backend == "gpu") {
#if ROCKPERM_HAVE_CUDA
      model = std::make_unique<cuda::ColourGpu>(lat, p, phi, vm["device"].as<int>(), storage);
      copy_gbs = cuda::copy_bandwidth_gbs(vm["device"].as<int>());
#else
      throw InputError("--backend gpu: this build has no CUDA (configure with -DROCKPERM_ENABLE_CUDA=ON)");
#endif
    } else if (backend == "cpu") {
      model = std::make_unique<backend::ColourCpu>(lat, p, phi, storage);
      copy_gbs = backend::cpu_copy_bandwidth_gbs();
    } else {
      throw InputError("--backend must be cpu or gpu, not '" + backend + "'");
    }
    model->advance(20);
    const auto start = std::chrono::steady_clock::now();
    model->advance(steps);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double mflups = lat.fluid_count() * static_cast<double>(steps) / seconds / 1e6;
    const double gbs = mflups * 1e6 * bytes_per_cell_step(storage) / 1e9;
    const auto sums = model->sums();
    std::printf("colour model on %s\n", model->description().c_str());
    std::printf("pack %lld x %lld x %lld, %u fluid cells, S_A %.3f\n", static_cast<long long>(spec.dims.nx),
                static_cast<long long>(spec.dims.ny), static_cast<long long>(spec.dims.nz), lat.fluid_count(),
                sums.fraction_a / sums.cells);
    std::printf("%lld steps in %.3f s: %.1f MFLUPS, %.0f B per cell step, %.0f GB/s = %.0f %% of copy (%.0f GB/s)\n",
                static_cast<long long>(steps), seconds, mflups, bytes_per_cell_step(storage), gbs, 100.0 * gbs / copy_gbs,
                copy_gbs);
    if (!sums.finite) throw RuntimeFailure("the run's velocities are not finite");
    return 0;
  } catch (const po::error& e) {
    std::cerr << "rockperm-bench-colour: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "rockperm-bench-colour: " << e.what() << "\n";
    return e.exit_code();
  }
}
