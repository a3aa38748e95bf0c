// rockperm bench: MFLUPS of the propagation kernels on standard geometries, compared with the
// copy bandwidth of the memory system (the roofline of a memory-bound LBM).
#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "app/backend_factory.hpp"
#include "app/commands.hpp"
#include "io/raw_reader.hpp"
#include "lib/byte_model.hpp"
#include "lib/config.hpp"
#include "lib/error.hpp"
#include "lib/pore_mask.hpp"
#include "lib/sparse_lattice.hpp"
#include "lib/sphere_pack.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/device_info.hpp"
#endif

namespace po = boost::program_options;

namespace rockperm::app {

namespace {

struct Case {
  std::string name;
  PoreMask mask;
};

struct Row {
  std::string name;
  std::string propagation;
  std::uint64_t voxels;
  std::uint32_t fluid;
  double bytes_per_cell;
  double mflups;
  double gbs;
  double fraction;
};

std::vector<int> parse_sizes(const std::string& text) {
  std::vector<int> sizes;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    try {
      const int n = std::stoi(item);
      if (n < 4 || n > 2048) throw std::out_of_range("size");
      sizes.push_back(n);
    } catch (const std::exception&) {
      throw InputError("option --sizes: '" + item + "' is not an edge length in 4..2048; write e.g. 64,128");
    }
  }
  return sizes;
}

}  // namespace

int bench_command(const std::vector<std::string>& args) {
  po::options_description opts("usage: rockperm bench [options]");
  opts.add_options()("help,h", "this text")
      ("backend", po::value<std::string>()->default_value("auto"), "auto, cuda or cpu")
      ("propagation", po::value<std::string>()->default_value("both"), "two-pass, fused or both")
      ("sizes", po::value<std::string>(), "cube edges in voxels, comma separated (default 64,128 on the CPU, "
                                          "256,512 on a GPU)")
      ("geometries", po::value<std::string>()->default_value("box,pack"),
       "box (fully fluid, periodic), pack (sphere pack), or both: box,pack")
      ("porosity", po::value<double>()->default_value(0.30, "0.30"), "porosity of the sphere-pack cases")
      ("steps", po::value<int>()->default_value(0), "steps per timed repeat (0: about 0.2 s of work)")
      ("repeats", po::value<int>()->default_value(5), "timed repeats; the median is reported")
      ("config", po::value<std::string>(), "also time the sample of this run configuration (INI)")
      ("json", "print the rows as JSON instead of a table");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).run(), vm);
  } catch (const po::error& e) {
    throw InputError(std::string("bench: ") + e.what() + "; see rockperm bench --help");
  }
  if (vm.count("help")) {
    std::cout << opts << "\nFigures: MFLUPS = million fluid-cell updates per second; GB/s = MFLUPS x the byte model "
                         "of the kernel (two-pass 332 B, fused 188 B per update);\nfraction = GB/s over the measured "
                         "copy bandwidth (bytes read plus written).\n";
    return 0;
  }
  config::BackendChoice choice = config::BackendChoice::auto_select;
  const std::string b = vm["backend"].as<std::string>();
  if (b == "cpu") choice = config::BackendChoice::cpu;
  else if (b == "cuda") choice = config::BackendChoice::cuda;
  else if (b != "auto") throw InputError("bench: --backend '" + b + "' is unknown; use auto, cuda or cpu");
  std::vector<Propagation> props;
  const std::string p = vm["propagation"].as<std::string>();
  if (p == "both") props = {Propagation::two_pass, Propagation::fused};
  else props = {parse_propagation(p)};
  const int repeats = std::max(1, vm["repeats"].as<int>());
  const bool json = vm.count("json") > 0;

  const BackendPlan plan = plan_backend(choice);
  const bool on_gpu = plan.cuda;
  const std::vector<int> sizes = parse_sizes(vm.count("sizes") ? vm["sizes"].as<std::string>()
                                                                : (on_gpu ? "256,512" : "64,128"));
  const std::string geometries = vm["geometries"].as<std::string>();
  const bool with_box = geometries.find("box") != std::string::npos;
  const bool with_pack = geometries.find("pack") != std::string::npos;
  if (!with_box && !with_pack) throw InputError("bench: --geometries '" + geometries + "' names neither box nor pack");
  std::vector<Case> cases;
  for (int n : sizes) {
    const Dims d{n, n, n};
    if (with_box) cases.push_back({"box-" + std::to_string(n), PoreMask{d, std::vector<std::uint8_t>(d.voxels(), 1)}});
    if (!with_pack) continue;
    SpherePackSpec spec;
    spec.dims = d;
    spec.porosity = vm["porosity"].as<double>();
    spec.radius = std::max(3.0, n / 32.0);
    cases.push_back({"pack-" + std::to_string(n), make_pore_mask(make_sphere_pack(spec), LabelSelection::parse("0"))});
  }
  if (vm.count("config")) {
    bool help = false;
    const config::RunConfig cfg = config::parse_run_arguments({"--config", vm["config"].as<std::string>()}, help);
    const Volume v = io::read_raw_u8(cfg.input.file, cfg.input.dims, cfg.input.voxel_size_um);
    cases.push_back({"sample:" + cfg.input.file.filename().string(),
                     make_pore_mask(v, LabelSelection::parse(cfg.input.pore_labels))});
  }

  const physics::CollisionParams params =
      physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 0, 1e-6);
  double copy_gbs = 0;
  std::string device;
  std::vector<Row> rows;
  for (const Case& c : cases) {
    const SparseLattice lattice = SparseLattice::build(c.mask, {true, true, true}, true);
    auto backend = make_backend(plan, lattice, params);
    if (device.empty()) {
      device = backend->description();
      copy_gbs = backend->measure_copy_bandwidth_gbs();
      if (!json) {
        std::printf("device      %s\ncopy        %.1f GB/s (bytes read + written)\n\n", device.c_str(), copy_gbs);
        std::printf("%-16s %-9s %12s %11s %8s %9s %8s %9s\n", "case", "kernel", "voxels", "fluid", "B/cell",
                    "MFLUPS", "GB/s", "of copy");
      }
    }
    for (const Propagation prop : props) {
      // about 0.2 s per repeat at the speed of a short calibration
      const std::int64_t warm = 4;
      const double t_warm = backend->timed_steps(prop, 0, warm);
      std::int64_t steps = vm["steps"].as<int>();
      if (steps <= 0) steps = std::clamp<std::int64_t>(static_cast<std::int64_t>(0.2 / (t_warm / warm)), 4, 5000);
      steps += steps % 2;  // fused steps come in pairs
      std::vector<double> times;
      std::int64_t step = warm;
      for (int r = 0; r < repeats; ++r) {
        times.push_back(backend->timed_steps(prop, step, steps));
        step += steps;
      }
      std::sort(times.begin(), times.end());
      const double t = times[times.size() / 2];
      // memory a run of this propagation holds: the fused form also needs the negative table
      const MemoryEstimate mem = lattice.memory();
      const double bytes_per_cell = mem.populations_bytes_per_cell +
                                    mem.neighbour_bytes_per_cell * (prop == Propagation::fused ? 1.0 : 0.5);
      Row row{c.name, to_string(prop), c.mask.dims.voxels(), lattice.fluid_count(), bytes_per_cell,
              lattice.fluid_count() * static_cast<double>(steps) / t * 1e-6, 0, 0};
      row.gbs = row.mflups * 1e6 * bytes_per_update(prop) * 1e-9;
      row.fraction = row.gbs / copy_gbs;
      rows.push_back(row);
      if (!json) {
        std::printf("%-16s %-9s %12llu %11u %8.1f %9.1f %8.1f %8.1f%%\n", row.name.c_str(), row.propagation.c_str(),
                    static_cast<unsigned long long>(row.voxels), row.fluid, row.bytes_per_cell, row.mflups, row.gbs,
                    100.0 * row.fraction);
        std::fflush(stdout);
      }
    }
  }
  if (json) {
    std::printf("{\"device\": \"%s\", \"copy_gbs\": %.2f, \"rows\": [\n", device.c_str(), copy_gbs);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::printf("  {\"case\": \"%s\", \"kernel\": \"%s\", \"voxels\": %llu, \"fluid_cells\": %u, "
                  "\"bytes_per_cell\": %.2f, \"bytes_per_update\": %.0f, \"mflups\": %.2f, \"gbs\": %.2f, "
                  "\"fraction_of_copy\": %.4f}%s\n",
                  r.name.c_str(), r.propagation.c_str(), static_cast<unsigned long long>(r.voxels), r.fluid,
                  r.bytes_per_cell, bytes_per_update(parse_propagation(r.propagation)), r.mflups, r.gbs, r.fraction,
                  i + 1 < rows.size() ? "," : "");
    }
    std::printf("]}\n");
  }
  return 0;
}

int devices_command() {
#if ROCKPERM_HAVE_CUDA
  const cuda::DeviceList list = cuda::list_devices();
  if (list.devices.empty()) {
    std::printf("no CUDA device: %s\n", list.reason.c_str());
    return 0;
  }
  for (const auto& d : list.devices) {
    std::printf("%d  %s  sm_%d%d  %d SMs  %.1f GiB  L2 %.0f MiB  peak %.0f GB/s\n", d.index, d.name.c_str(), d.major,
                d.minor, d.multiprocessors, d.memory_bytes / 1073741824.0, d.l2_bytes / 1048576.0,
                d.peak_bandwidth_gbs);
  }
#else
  std::printf("built without CUDA\n");
#endif
  return 0;
}

}  // namespace rockperm::app
