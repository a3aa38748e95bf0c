// rockperm bench: MFLUPS of the propagation kernels on standard geometries, compared with the
// copy bandwidth of the memory system (the roofline of a memory-bound LBM).

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "lib/backend/byte_model.hpp"
#include "lib/base/error.hpp"
#include "lib/geometry/pore_mask.hpp"
#include "lib/geometry/sphere_pack.hpp"
#include "lib/parallel/comm.hpp"
#include "pipeline/decomposition.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/sample.hpp"
#include "lib/solve/stepper.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/device_info.hpp"
#endif

namespace po = boost::program_options;
using Json = nlohmann::ordered_json;

namespace rockperm::app {

namespace {

struct Case {
  std::string name;
  std::function<geometry::PoreMask()> make;  // run on rank 0 only, when the case's turn comes
};

struct Row {
  std::string name;
  int ranks = 1;
  double halo_kb = 0;         // per step, from the busiest rank
  double mpi_ms = 0;          // per step, time inside the MPI exchange (slowest rank)
  std::string propagation;
  physics::Storage storage = physics::Storage::float32;
  std::uint64_t voxels;
  std::uint32_t fluid;
  double bytes_per_cell;
  double mflups;
  double gbs;
  double fraction;
  double index_bytes = 4;  // of the neighbour tables the backend chose (byte model)
  std::string halo;        // the transport that moved the halos ("-" on one rank)
  double alone_ms = 0;     // per step, the slowest rank stepping its slab with no exchange (0: one rank)
  double of_alone = 0;     // alone_ms over this row's time per step (the decomposition's efficiency)
  std::int64_t steps = 0;  // per timed repeat
  std::vector<double> repeat_seconds{};   // every timed repeat's, in order (the slowest rank's)
  std::vector<double> repeat_end_unix{};  // when each ended (rank 0's clock, seconds since 1970): to set
                                          // beside a device monitor's log (clock, power) of the same time
  // each rank's own seconds of every repeat (its steps until its device was done, before it
  // waited for the others), of this row and of its reference: whether the ranks' paces move
  // apart over a run (a slab's pace that moves while the other's does not costs a coupled step
  // more than the slowest rank's total alone)
  std::vector<std::vector<double>> rank_repeat_seconds{}, alone_rank_repeat_seconds{};
  std::vector<double> alone_repeat_end_unix{};  // when each repeat of the reference ended
};

struct Timing {
  std::int64_t steps = 0;  // per timed repeat
  double seconds = 0;      // the median repeat's, of the slowest rank
  double mpi_ms = 0;       // per step inside the exchange, of the slowest rank
  std::vector<double> repeats, repeat_ends;  // every repeat's seconds, and its end (Row)
  std::vector<std::vector<double>> rank_repeats;  // [rank][repeat]: each rank's own (Row)
  double per_step() const { return seconds / static_cast<double>(steps); }
};

// Times `stepper`: a few warm-up steps, then `repeats` runs of `steps` steps (0: about 0.2 s of
// work), each with the host clock around a synchronized loop (barriers on several ranks; ~10 us
// of synchronization against >= 0.2 s of work). From the populations `start` where given (raw,
// as stored), so that rows compared with each other time the same steps from the same state.
Timing time_steps(solve::Stepper& stepper, backend::Backend& backend, const parallel::Comm& comm, std::int64_t steps,
                  int repeats, const std::vector<std::byte>* start = nullptr) {
  if (start) backend.upload_raw(*start);
  double own = 0;  // this rank's seconds of the last repeat, before the closing barrier
  const auto timed = [&](std::int64_t first, std::int64_t n) {
    backend.synchronize();
    comm.barrier();
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t s = 0; s < n; ++s) stepper.advance(first + s);
    backend.synchronize();
    own = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    comm.barrier();
    return comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  const std::int64_t warm = 4;
  const double t_warm = timed(0, warm);
  if (steps <= 0) steps = std::clamp<std::int64_t>(static_cast<std::int64_t>(0.2 / (t_warm / warm)), 4, 5000);
  steps += steps % 2;  // fused steps come in pairs
  Timing timing;
  std::int64_t step = warm;
  const double mpi_before = stepper.mpi_seconds();
  std::vector<double> owns(static_cast<std::size_t>(comm.size()) * repeats, 0.0);  // [rank * repeats + r]
  for (int r = 0; r < repeats; ++r) {
    timing.repeats.push_back(timed(step, steps));
    timing.repeat_ends.push_back(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
    owns[static_cast<std::size_t>(comm.rank()) * repeats + r] = own;
    step += steps;
  }
  owns = comm.sum(owns);
  for (int k = 0; k < comm.size(); ++k) {
    timing.rank_repeats.emplace_back(owns.begin() + k * repeats, owns.begin() + (k + 1) * repeats);
  }
  std::vector<double> times = timing.repeats;
  std::sort(times.begin(), times.end());
  timing.steps = steps;
  timing.seconds = times[times.size() / 2];
  timing.mpi_ms = comm.max((stepper.mpi_seconds() - mpi_before) / (repeats * static_cast<double>(steps))) * 1e3;
  return timing;
}

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
      ("storage", po::value<std::string>()->default_value("fp32"), "population storage: fp32, fp16 or both")
      ("sizes", po::value<std::string>(), "cube edges in voxels, comma separated (default 64,128 on the CPU, "
                                          "256,512 on a GPU)")
      ("geometries", po::value<std::string>()->default_value("box,pack"),
       "box (fully fluid, periodic), pack (sphere pack), or both: box,pack")
      ("porosity", po::value<std::string>()->default_value("0.30"), "porosity of the sphere-pack cases, 0.05 to 0.95")
      ("steps", po::value<std::string>()->default_value("0"), "steps per timed repeat (0: about 0.2 s of work)")
      ("repeats", po::value<std::string>()->default_value("5"), "timed repeats, 1 to 1000; the median is reported")
      ("config", po::value<std::string>(), "also time the sample of this run configuration (INI)")
      ("halo-transport", po::value<std::string>()->default_value("auto"),
       "under MPI: auto, staged, cuda-aware, ipc, nccl or ipc+nccl (run.halo_transport), or several, comma separated, "
       "each timed on the same lattice")
      ("stage-halo", "under MPI: the same as --halo-transport staged")
      ("devices", po::value<std::string>(), "GPU of each rank of a host, comma separated (run.devices; e.g. 0,0 "
       "puts two ranks on one GPU, to time a transport without a second GPU)")
      ("loopback", "one process: each lattice is one slab whose halos go to itself across the periodic z wrap, "
       "so that 'of alone' says what the decomposed step costs on this device, apart from a second device's pace "
       "and the link between them")
      ("weak", "under MPI: every rank gets a whole cube (z extent times the rank count)")
      ("planes", po::value<int>(), "with --weak: z planes per rank instead of the cube edge (e.g. 96 on two ranks "
       "gives each the slab that strong scaling of a 768^3 sample on 8 GPUs would)")
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
  // the numbers first, before any row runs (--porosity nan was refused only after the box rows)
  const double porosity = bounded_number("bench: --porosity", vm["porosity"].as<std::string>(), 0.05, 0.95, false);
  const auto requested_steps =
      static_cast<std::int64_t>(bounded_number("bench: --steps", vm["steps"].as<std::string>(), 0, 1e9, true));
  const int repeats = static_cast<int>(bounded_number("bench: --repeats", vm["repeats"].as<std::string>(), 1, 1000, true));
  pipeline::ExecutionSpec execution;
  const std::string b = vm["backend"].as<std::string>();
  if (b == "cpu") execution.backend = pipeline::BackendChoice::cpu;
  else if (b == "cuda") execution.backend = pipeline::BackendChoice::cuda;
  else if (b != "auto") throw InputError("bench: --backend '" + b + "' is unknown; use auto, cuda or cpu");
  std::vector<parallel::HaloTransportChoice> transports;
  if (vm.count("stage-halo")) {
    transports = {parallel::HaloTransportChoice::staged};
  } else {
    std::istringstream in(vm["halo-transport"].as<std::string>());
    for (std::string item; std::getline(in, item, ',');) transports.push_back(parallel::parse_halo_transport(item));
    if (transports.empty()) throw InputError("bench: --halo-transport is empty; write e.g. staged,ipc");
  }
  if (vm.count("devices")) {
    std::istringstream in(vm["devices"].as<std::string>());
    for (std::string item; std::getline(in, item, ',');) {
      char* end = nullptr;
      const long d = std::strtol(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || d < 0) throw InputError("bench: --devices '" + item + "' is not a device index; write e.g. 0,1");
      execution.devices.push_back(static_cast<int>(d));
    }
  }
  std::vector<backend::Propagation> props;
  const std::string p = vm["propagation"].as<std::string>();
  if (p == "both") props = {backend::Propagation::two_pass, backend::Propagation::fused};
  else props = {backend::parse_propagation(p)};
  std::vector<physics::Storage> storages;
  const std::string st = vm["storage"].as<std::string>();
  if (st == "both") storages = {physics::Storage::float32, physics::Storage::float16};
  else storages = {physics::parse_storage(st)};
  const bool json = vm.count("json") > 0;

  const parallel::Comm comm = parallel::Comm::world();
  const bool loopback = vm.count("loopback") > 0;
  if (loopback && comm.size() > 1) {
    throw InputError("bench: --loopback stands for a second rank on one process; run it without mpiexec (or with "
                     "-n 1), or leave it out to time the " + std::to_string(comm.size()) + " ranks' exchange");
  }
  // with halos: several ranks, or one that is its own neighbour
  const pipeline::OneRank one_rank = loopback ? pipeline::OneRank::slab : pipeline::OneRank::whole;
  const bool slabs = comm.size() > 1 || loopback;
  std::vector<pipeline::ExecutionPlan> plans;  // one per transport; its transport may fall back
  for (const parallel::HaloTransportChoice t : transports) {
    execution.halo_transport = t;
    plans.push_back(pipeline::plan_execution(comm, execution, {}, one_rank));
    if (!slabs) break;  // no halos: one plan
  }
  const pipeline::ExecutionPlan& plan = plans.front();
  const bool on_gpu = plan.cuda;
  const bool weak = vm.count("weak") > 0;
  const int planes = vm.count("planes") ? vm["planes"].as<int>() : 0;
  if (vm.count("planes") && (!weak || planes < 4)) {
    throw InputError("bench: --planes needs --weak and at least 4 planes per rank");
  }
  const std::vector<int> sizes = parse_sizes(vm.count("sizes") ? vm["sizes"].as<std::string>()
                                                                : (on_gpu ? "256,512" : "64,128"));
  const std::string geometries = vm["geometries"].as<std::string>();
  const bool with_box = geometries.find("box") != std::string::npos;
  const bool with_pack = geometries.find("pack") != std::string::npos;
  if (!with_box && !with_pack) throw InputError("bench: --geometries '" + geometries + "' names neither box nor pack");
  std::vector<Case> cases;
  for (int n : sizes) {
    const std::int64_t per_rank = planes > 0 ? planes : n;
    const geometry::Dims d{n, n, weak ? per_rank * comm.size() : n};
    const std::string suffix = std::to_string(n) + (weak ? "w" : "") + (planes > 0 ? "x" + std::to_string(planes) : "");
    if (with_box) {
      cases.push_back({"box-" + suffix, [d] {
                         return geometry::PoreMask{d, std::vector<std::uint8_t>(d.voxels(), 1)};
                       }});
    }
    if (!with_pack) continue;
    geometry::SpherePackSpec spec;
    spec.dims = d;
    spec.porosity = porosity;
    spec.radius = std::max(3.0, n / 32.0);
    cases.push_back({"pack-" + suffix, [spec] {
                       return make_pore_mask(geometry::make_sphere_pack(spec), geometry::LabelSelection::parse("0"));
                     }});
  }
  if (vm.count("config")) {
    bool help = false;
    const RunOptions options = parse_run_options({"--config", vm["config"].as<std::string>()}, help);
    const pipeline::SampleSpec& sample = options.spec.sample;
    // read now, so that a volume that does not load stops the bench before its first row
    auto loaded = std::make_shared<geometry::PoreMask>();
    collectively(comm, [&] {
      if (comm.root()) *loaded = io::load_pore_mask(sample.volume, sample.open_labels()).mask;
    });
    cases.push_back({"sample:" + sample.volume.path.filename().string(), [loaded] { return std::move(*loaded); }});
  }

  // every case periodic on all faces, as it is (no filter, no buffers)
  pipeline::FlowSpec flow;
  flow.tau = 0.8;
  flow.force = 1e-6;
  flow.set_lateral_periodic(true);
  flow.inlet_outlet = geometry::InletOutlet::periodic;
  const physics::CollisionParams params =
      physics::make_collision_params(flow.collision, flow.tau, flow.magic, flow.flow_axis, flow.force);
  double copy_gbs = 0;
  std::string device;
  std::vector<Row> rows;
  std::vector<std::string> mismatches;  // rows that should have ended in the same state and did not
  for (Case& c : cases) {
    // the run's stages: one process gets the whole lattice; several, their slabs and halos
    geometry::PoreMask mask;  // rank 0's; its failure (a sample that does not load) on every rank
    collectively(comm, [&] {
      if (comm.root()) mask = c.make();
    });
    pipeline::Sample sample =
        pipeline::sample_from_mask(comm, std::move(mask), 1.0, flow, false, c.name, pipeline::SampleUse::benchmark);
    const geometry::Dims dims = sample.dims;
    const pipeline::RankLattice part = pipeline::decompose(comm, sample, flow.periodicity(),
                                                           backend::Propagation::fused, flow.edge_contacts, one_rank);
    const std::optional<parallel::SlabDomain>& domain = part.domain;
    const lattice::SparseLattice& lattice = part.lattice;
    const std::uint64_t fluid = sample.fluid;
    for (const physics::Storage storage : storages) {
    pipeline::ExecutionPlan with_storage = plan;
    with_storage.storage = storage;
    auto backend = pipeline::make_backend(with_storage, lattice, params);
    if (device.empty()) {
      device = backend->description();
      copy_gbs = pipeline::copy_bandwidth_gbs(plan);
      if (!json && comm.root()) {
        std::printf("device      %s%s\ncopy        %.1f GB/s (bytes read + written)\n", device.c_str(),
                    comm.size() > 1 ? (" x " + std::to_string(comm.size()) + " ranks").c_str() : "", copy_gbs);
        if (loopback) std::printf("loopback    each lattice is one slab that sends its halos to itself\n");
        for (const auto& pl : plans) {
          if (slabs) std::printf("halo        %s: %s\n", to_string(pl.halo_transport), pl.halo_note.c_str());
        }
        std::printf("\n");
        std::printf("%-16s %-14s %5s %12s %11s %8s %9s %8s %9s %-10s %9s %10s %9s\n", "case", "kernel", "ranks", "voxels",
                    "fluid", "B/cell", "MFLUPS", "GB/s", "of copy", "halo", "halo kB", "mpi ms", "of alone");
      }
    }
    for (const backend::Propagation prop : props) {
    // The reference of a decomposed row: every rank steps its own slab at once with no exchange
    // (its ghosts left as they are); the slowest rank's time per step is what the ranks' GPUs
    // (or cores) allow, so the decomposed time against it is what the decomposition costs. It
    // takes out how much the devices of one host differ (two H200s of one host: 2.4 % in fp16),
    // which an efficiency against one device alone counts as scaling loss.
    // Every row of a slab and its reference run the same steps from the same populations: fp16
    // steps of the 512^3 pack ran up to 6 % apart from one row to the next as the flow developed
    // (the same transport twice in one process: 94.8 and 99.7 % of alone; fp32 within 0.1 %).
    double alone = 0;
    std::vector<std::vector<double>> alone_ranks;
    std::vector<double> alone_ends;
    std::int64_t steps = requested_steps;
    std::vector<std::byte> start;
    if (domain) {
      backend->download_raw(start);
      solve::Stepper solo(*backend, prop);
      const Timing timing = time_steps(solo, *backend, comm, steps, repeats, &start);
      alone = timing.per_step();
      alone_ranks = timing.rank_repeats;
      alone_ends = timing.repeat_ends;
      steps = timing.steps;  // the same steps in every row
    }
    // the rows of this slab ran the same steps from the same populations with different halo
    // transports: their flow sums must agree to the bit (each rank's own, deterministic sums)
    std::optional<physics::FlowSums> first_sums;
    std::string first_halo;
    for (std::size_t k = 0; k < plans.size(); ++k) {
      pipeline::ExecutionPlan halo_plan = plans[k];
      std::optional<solve::Stepper> stepper;
      if (domain) {
        stepper.emplace(*backend, prop, comm, *domain, lattice, halo_plan.device_halo);
        if (!pipeline::connect_halos(halo_plan, transports[k], comm, *stepper)) {
          // as a run does: staged instead (the halo line above was printed before; say so here)
          if (comm.root()) std::printf("halo        %s: %s\n", to_string(halo_plan.halo_transport), halo_plan.halo_note.c_str());
          stepper.emplace(*backend, prop, comm, *domain, lattice, false);
        }
      } else {
        stepper.emplace(*backend, prop);
      }
      const Timing timing = time_steps(*stepper, *backend, comm, steps, repeats, domain ? &start : nullptr);
      if (domain) {
        const physics::FlowSums s = backend->sums(backend->owned());
        const auto same = [](const physics::FlowSums& a, const physics::FlowSums& b) {
          return a.mass == b.mass && a.velocity[0] == b.velocity[0] && a.velocity[1] == b.velocity[1] &&
                 a.velocity[2] == b.velocity[2] && a.speed == b.speed && a.max_speed == b.max_speed &&
                 a.finite == b.finite;
        };
        const bool differs = first_sums && !same(s, *first_sums);
        if (comm.max(differs ? 1.0 : 0.0) > 0) {
          mismatches.push_back(c.name + " " + to_string(prop) + " " + to_string(storage) + ": halos by " +
                               to_string(halo_plan.halo_transport) + " against " + first_halo);
        }
        if (!first_sums) {
          first_sums = s;
          first_halo = to_string(halo_plan.halo_transport);
        }
      }
      // memory a run of this propagation holds: the fused form also needs the negative table
      const backend::ByteModel model{prop, storage, backend->index_bytes()};
      const double bytes_per_cell = model.memory_per_cell() * lattice.padding();
      Row row{c.name, comm.size(), 0, 0, to_string(prop), storage, dims.voxels(), static_cast<std::uint32_t>(fluid),
              bytes_per_cell, static_cast<double>(fluid) / timing.per_step() * 1e-6, 0, 0,
              model.index_bytes, domain ? to_string(halo_plan.halo_transport) : "-"};
      row.gbs = row.mflups * 1e6 * model.traffic_per_update() * 1e-9 / comm.size();
      row.fraction = row.gbs / copy_gbs;
      row.halo_kb = comm.max(static_cast<double>(stepper->halo_bytes_per_step())) * 1e-3;
      row.mpi_ms = timing.mpi_ms;
      row.steps = timing.steps;
      row.repeat_seconds = timing.repeats;
      row.repeat_end_unix = timing.repeat_ends;
      row.rank_repeat_seconds = timing.rank_repeats;
      row.alone_rank_repeat_seconds = alone_ranks;
      row.alone_repeat_end_unix = alone_ends;
      if (alone > 0) {
        row.alone_ms = alone * 1e3;
        row.of_alone = alone / timing.per_step();
      }
      rows.push_back(row);
      if (!json && comm.root()) {
        char of_alone[16] = "-";
        if (row.of_alone > 0) std::snprintf(of_alone, sizeof of_alone, "%.1f%%", 100.0 * row.of_alone);
        std::printf("%-16s %-14s %5d %12llu %11u %8.1f %9.1f %8.1f %8.1f%% %-10s %9.1f %10.3f %9s\n", row.name.c_str(),
                    (row.propagation + " " + to_string(row.storage)).c_str(), row.ranks, static_cast<unsigned long long>(row.voxels), row.fluid,
                    row.bytes_per_cell, row.mflups, row.gbs, 100.0 * row.fraction, row.halo.c_str(), row.halo_kb, row.mpi_ms,
                    of_alone);
        std::fflush(stdout);
      }
      // the next transport's halo buffers replace these: every rank lets go of its peers' first
      stepper.reset();
      comm.barrier();
    }
    }
    }
  }
  // each rank's device, as a run's provenance names it ("<name> (<uuid>)", or "cpu"): a device
  // monitor's log (nvidia-smi prints the uuid) then says which clock paced which rank
  const std::vector<std::string> rank_devices = comm.gather(plan.identity());
  std::string mismatch;  // every rank's alike (built from agreed flags)
  for (const std::string& m : mismatches) mismatch += (mismatch.empty() ? "" : "; ") + m;
  const auto check = [&] {
    if (mismatch.empty()) return;
    throw on_all_ranks(RuntimeFailure("bench: rows that ran the same steps from the same state ended in different "
                                      "flow sums (" + mismatch + "): a halo transport moved wrong data"));
  };
  if (!comm.root()) {
    check();
    return 0;
  }
  if (json) {
    Json out;
    out["device"] = device;
    out["rank_devices"] = rank_devices;
    out["copy_gbs"] = copy_gbs;
    out["loopback"] = loopback;
    out["rows"] = Json::array();
    for (const Row& r : rows) {
      out["rows"].push_back(
          {{"case", r.name},
           {"kernel", r.propagation},
           {"storage", to_string(r.storage)},
           {"ranks", r.ranks},
           {"halo", r.halo},
           {"halo_kb_per_step", r.halo_kb},
           {"mpi_ms_per_step", r.mpi_ms},
           {"alone_ms_per_step", r.alone_ms},
           {"of_alone", r.of_alone},
           {"voxels", r.voxels},
           {"fluid_cells", r.fluid},
           {"bytes_per_cell", r.bytes_per_cell},
           {"bytes_per_update", backend::ByteModel{backend::parse_propagation(r.propagation), r.storage, r.index_bytes}
                                    .traffic_per_update()},
           {"mflups", r.mflups},
           {"gbs_per_rank", r.gbs},
           {"fraction_of_copy", r.fraction},
           {"steps_per_repeat", r.steps},
           {"repeat_seconds", r.repeat_seconds},
           {"repeat_end_unix", r.repeat_end_unix},
           {"rank_repeat_seconds", r.rank_repeat_seconds},
           {"alone_rank_repeat_seconds", r.alone_rank_repeat_seconds},
           {"alone_repeat_end_unix", r.alone_repeat_end_unix}});
    }
    out["flow_sums_agree"] = mismatch.empty();
    std::printf("%s\n", out.dump(2).c_str());
  }
  check();
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
