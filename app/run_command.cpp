// rockperm run: one sample from its volume file to a permeability in mD, on one process or
// on Z-slabs over MPI ranks (one per GPU).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include "app/backend_factory.hpp"
#include "app/commands.hpp"
#include "app/sample_setup.hpp"
#include "io/atomic_file.hpp"
#include "io/volume_source.hpp"
#include "io/report_writer.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/config.hpp"
#include "lib/parallel/device_assignment.hpp"
#include "lib/base/error.hpp"
#include "lib/geometry/inlet_outlet.hpp"
#include "lib/solve/pressure_planes.hpp"
#include "lib/parallel/plan.hpp"
#include "lib/solve/solver.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "rockperm/config.hpp"
#if ROCKPERM_HAVE_VTK
#include "io/field_writer.hpp"
#endif

namespace rockperm::app {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One progress line per second at most, and always the last one.
class ProgressPrinter {
 public:
  void operator()(const Progress& p) {
    const bool final_check = p.step >= p.max_steps || p.relative_change < p.tolerance;
    if (p.seconds - last_ < 1.0 && !final_check && printed_) return;
    last_ = p.seconds;
    printed_ = true;
    std::fprintf(stderr, "  step %8lld  k = %12.6g mD  change %8.2e (tol %.0e)  %7.1f MFLUPS  %7.2f s\n",
                 static_cast<long long>(p.step), p.k.k_md, p.relative_change, p.tolerance, p.mflups, p.seconds);
  }

 private:
  double last_ = 0;
  bool printed_ = false;
};

std::string warnings_for(const SolverResult& r, const config::RunConfig& cfg, const SampleDrive& drive) {
  std::ostringstream w;
  if (!r.converged) {
    w << "not converged: k still changed by " << r.relative_change << " (tolerance " << cfg.run.monitor.tolerance
      << ") after " << r.steps << " steps; raise run.max_steps\n";
  }
  if (r.k.reynolds > 0.1) w << "Reynolds number " << r.k.reynolds << " > 0.1: inertia may bias k; lower lbm.force\n";
  if (r.k.mach > 0.1) w << "Mach number " << r.k.mach << " > 0.1: compressibility error; lower lbm.force\n";
  // k from the interior against k from the end planes: far apart when the pressure falls
  // unevenly along the sample (its tight throats lie near the faces, or it is a few pores long)
  const double faces = drive.acceleration / drive.end_planes - 1.0;
  if (std::abs(faces) > 0.1) {
    w << "k read across the whole sample would be " << std::showpos << 100.0 * faces << std::noshowpos
      << " % off the interior value: the pressure falls unevenly along the sample, so k is that of its "
         "interior; a longer sample gives a more representative k\n";
  }
  return w.str();
}

std::string hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  const Comm comm = Comm::world();
  bool help = false;
  config::RunConfig cfg = config::parse_run_arguments(args, help);
  if (help) {
    if (comm.root()) std::cout << config::run_options_help();
    return 0;
  }
  if (comm.root()) io::ensure_directory(cfg.output.dir);  // fail before the long work, not after

  BackendPlan plan = plan_backend(cfg.backend);
  cfg.run.propagation = resolve_propagation(cfg.propagation, plan);
  const bool fused = cfg.run.propagation == Propagation::fused;

  const auto setup_start = Clock::now();
  PoreMask mask;
  const SampleLayout layout = read_sample(comm, cfg, mask);
  if (layout.fluid == 0) throw on_all_ranks(InputError("the pore labels select no fluid cell"));
  const Dims& dims = layout.dims;
  cfg.input.dims = dims;  // resolved: what the report and config.ini show
  cfg.input.voxel_size_um = layout.voxel_size_um;
  const std::uint64_t voxels = dims.voxels();
  const Periodicity periodic = cfg.periodicity();
  const std::vector<Slab> slabs = partition_slabs(layout.plane_fluid, comm.size());
#if ROCKPERM_HAVE_VTK
  // the field output is set up (and its options checked) before the long work, not after
  io::FieldOutput out;
  io::OutputGrid grid{};
  if (cfg.output.fields) {
    try {
      const io::Crop crop = io::parse_crop(cfg.output.fields_crop_offset, cfg.output.fields_crop_size, "output.fields_crop");
      out.dir = cfg.output.dir;
      out.offset = crop.offset;
      out.size = crop.size;
      out.stride = cfg.output.fields_stride;
      out.voxel_size_m = cfg.input.voxel_size_um * 1e-6;
      out.viscosity_pa_s = cfg.output.viscosity_pa_s;
      out.pressure_gradient_pa_m = cfg.output.pressure_gradient_pa_per_m;
      out.nu_lattice = physics::viscosity(cfg.lbm.tau);
      out.g_lattice = cfg.lbm.force;
      out.origin_voxels[cfg.lbm.flow_axis] = -layout.sample_begin;
      grid = io::output_grid(out, dims);
    } catch (const InputError& e) {  // every rank has the same layout, so every rank fails alike
      throw on_all_ranks(InputError(e.what()));
    }
  }
#endif
  const std::vector<RankMemory> memory = plan_memory(layout.plane_fluid, comm.size(), cfg.run.propagation);

  if (comm.root()) {
    std::printf("sample      %s (%s)\n", cfg.input.file.string().c_str(), layout.format.c_str());
    std::printf("geometry    %s voxels of %g um, flow along %c, lateral faces %s\n", dims.str().c_str(),
                cfg.input.voxel_size_um, "xyz"[cfg.lbm.flow_axis], cfg.lbm.lateral_periodic ? "periodic" : "sealed");
    const PercolationReport& perc = layout.percolation;
    std::printf("pore space  porosity %.4f, connected %.4f (%.2f %% of the pore removed%s); %llu fluid cells\n",
                perc.total_porosity(), perc.connected_porosity(), 100.0 * perc.removed_fraction(),
                cfg.input.percolation_filter ? "" : ", filter off", static_cast<unsigned long long>(layout.fluid));
    std::printf("stages      read %.2f s, percolation %.2f s\n", layout.read_seconds, layout.percolation_seconds);
    std::printf("memory      %.0f B per fluid cell (%s), %.1f MB on the largest of %d rank(s); a dense array "
                "would need %.1fx more\n",
                ByteModel{cfg.run.propagation}.memory_per_cell(), to_string(cfg.run.propagation),
                std::max_element(memory.begin(), memory.end(), [](auto& a, auto& b) { return a.bytes < b.bytes; })
                        ->bytes * 1e-6,
                comm.size(), ByteModel{cfg.run.propagation}.dense_per_voxel() * voxels /
                                 (ByteModel{cfg.run.propagation}.memory_per_cell() * layout.fluid));
    if (comm.size() > 1) {
      for (int r = 0; r < comm.size(); ++r) {
        std::printf("  rank %d   planes %lld..%lld, %llu fluid cells, %.1f MB\n", r,
                    static_cast<long long>(slabs[r].z_begin), static_cast<long long>(slabs[r].z_end - 1),
                    static_cast<unsigned long long>(slabs[r].fluid), memory[r].bytes * 1e-6);
      }
    }
  }

  // GPU choice by host name (core paper, Algorithm 2), then the memory check before allocating
  if (plan.cuda) {
    std::string log;
    plan.device = assign_device(comm, hostname(), plan.gpus(), cfg.devices, log);
    if (comm.root() && comm.size() > 1) std::printf("gpus\n%s", log.c_str());
    const double capacity = plan.memory_of(plan.device);
    const bool fits = memory[comm.rank()].bytes <= 0.95 * capacity;
    if (comm.sum(std::uint64_t{fits ? 0u : 1u}) > 0) {
      const int needed = ranks_needed(layout.plane_fluid, capacity, cfg.run.propagation);
      throw on_all_ranks(InputError(
          "the sample needs more GPU memory than " + std::to_string(comm.size()) + " rank(s) of " +
          std::to_string(static_cast<int>(capacity / 1073741824.0)) + " GiB hold; run it on " +
          (needed > 0 ? "at least " + std::to_string(needed) + " ranks (one per GPU)" : "more ranks or crop it")));
    }
  }

  // this rank's lattice: the whole sample on one process, else its slab with ghost planes
  std::optional<SlabDomain> domain;
  SparseLattice lattice;
  if (comm.size() == 1) {
    lattice = SparseLattice::build(mask, periodic, fused, false, cfg.lbm.edge_contacts);
  } else {
    domain = slab_domain(slabs, comm.rank(), dims.nz, periodic[2]);
    const PoreMask local = distribute_planes(comm, mask, dims, slabs, *domain, periodic[2]);
    lattice = build_slab_lattice(local, *domain, periodic, fused, cfg.lbm.edge_contacts);
  }
  mask = PoreMask{};  // rank 0 no longer needs the whole mask
  const double setup_seconds = seconds_since(setup_start);

  const physics::CollisionParams params = physics::make_collision_params(
      cfg.lbm.collision, cfg.lbm.tau, cfg.lbm.magic, cfg.lbm.flow_axis, cfg.lbm.force);
  auto backend = make_backend(plan, lattice, params);
  std::optional<Stepper> stepper;
  const bool device_halo = plan.cuda && cfg.cuda_aware_mpi && comm.cuda_aware();
  if (domain) stepper.emplace(*backend, cfg.run.propagation, comm, *domain, lattice, device_halo);
  else stepper.emplace(*backend, cfg.run.propagation);
  if (comm.root()) {
    std::printf("backend     %s, %s propagation; %s; setup %.2f s\n", backend->description().c_str(),
                to_string(cfg.run.propagation), plan.note.c_str(), setup_seconds);
    if (comm.size() > 1) {
      std::printf("halo        %.1f kB per step from rank 0, %s\n", stepper->halo_bytes_per_step() * 1e-3,
                  device_halo ? "device buffers handed to CUDA-aware MPI"
                              : (plan.cuda ? "staged through pinned host buffers (MPI not CUDA-aware, or "
                                             "run.cuda_aware_mpi = off)"
                                           : "host buffers"));
    }
    std::fflush(stdout);
  }

  FlowProblem problem;
  problem.flow_axis = cfg.lbm.flow_axis;
  problem.tau = cfg.lbm.tau;
  problem.acceleration = cfg.lbm.force;
  problem.region_voxels = voxels;
  problem.region_fluid = layout.fluid;
  problem.voxel_size_um = cfg.input.voxel_size_um;

  ProgressPrinter printer;
  ProgressFn progress;
  if (comm.root()) progress = std::ref(printer);
  SolverResult result = run_to_steady_state(*stepper, layout.fluid, problem, cfg.run, progress);
  const double mpi_time = comm.max(stepper->mpi_seconds());

  // populations on the host, once, for the pressure correction and the fields
  const InletOutlet io_mode = parse_inlet_outlet(cfg.lbm.inlet_outlet);
  Macroscopic owned;
  const bool interior_gradient = io_mode != InletOutlet::periodic;
  if (interior_gradient || cfg.output.fields) backend->macroscopic(backend->owned(), owned);
  const std::int64_t first_local_z = domain ? domain->slab.z_begin - (domain->ghost_low ? 1 : 0) : 0;
  SampleDrive drive{PressureDrop{}, cfg.lbm.force, cfg.lbm.force};
  if (interior_gradient) {
    // the buffers resist less than the sample (and the mirror junctions conduct unlike the
    // bulk), so a pressure gradient builds up inside the sample and adds to the body force:
    // k = nu q / (g - (p_out - p_in) / (rho L)), from the mean gradient of the sample's
    // interior (lib/pressure_planes.hpp)
    const int axis = cfg.lbm.flow_axis;
    PressureProfile profile = pressure_profile(lattice, owned, axis, dims[axis], first_local_z);
    profile.rho_sum = comm.sum(profile.rho_sum);
    profile.cells = comm.sum(profile.cells);
    try {
      drive = sample_drive(profile, cfg.lbm.force, layout.sample_begin, layout.sample_end);
    } catch (const InputError& e) {  // the reduced profile is the same on every rank
      throw on_all_ranks(InputError(e.what()));
    }
    FlowProblem corrected = problem;
    corrected.acceleration = drive.acceleration;
    result.k = permeability(result.sums, corrected);
  }
#if ROCKPERM_HAVE_VTK
  if (cfg.output.fields) {
    const auto start = Clock::now();
    io::FieldPiece piece{&lattice, &owned, 0, 0, dims.nz};
    if (domain) {
      piece.first_local_plane_z = first_local_z;
      piece.z_begin = domain->slab.z_begin;
      piece.z_end = domain->slab.z_end;
    }
    io::write_field_piece(grid, piece, comm.rank());
    comm.barrier();
    if (comm.root()) {
      std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
      for (const Slab& s : slabs) ranges.emplace_back(s.z_begin, s.z_end);
      io::write_field_index(grid, ranges);
      std::printf("fields        %s (%lld x %lld x %lld cells, %.2f s; velocity in m/s and pressure in Pa for "
                  "%g Pa/m through %g Pa s)\n",
                  (cfg.output.dir / "fields.pvti").string().c_str(), static_cast<long long>(grid.cells[0]),
                  static_cast<long long>(grid.cells[1]), static_cast<long long>(grid.cells[2]), seconds_since(start),
                  out.pressure_gradient_pa_m, out.viscosity_pa_s);
    }
  }
#endif
  if (!comm.root()) return result.converged ? 0 : 5;

  io::RunReport report;
  report.sample = cfg.input.file.filename().string();
  report.backend = backend->description() + (comm.size() > 1 ? " x " + std::to_string(comm.size()) + " ranks" : "");
  report.config = cfg;
  report.voxels = voxels;
  report.fluid_cells = layout.fluid;
  report.bytes_per_cell = backend->bytes_per_cell();
  report.setup_seconds = setup_seconds;
  report.percolation = layout.percolation;
  report.drive_ratio = drive.acceleration / cfg.lbm.force;
  report.drive_ratio_end_planes = drive.end_planes / cfg.lbm.force;
  report.pressure_margin = drive.drop.margin;
  report.result = result;
  report.warnings = warnings_for(result, cfg, drive);
  io::write_run_reports(cfg.output.dir, report);

  const Permeability& k = result.k;
  std::printf("\npermeability  %.6g mD  (%.6g darcy, %.6e m^2, %.6g voxel^2)\n", k.k_md, k.k_darcy, k.k_m2,
              k.k_lattice);
  std::printf("porosity      %.4f (connected %.4f)   tortuosity %.4f   Re %.2e   Ma %.2e\n",
              layout.percolation.total_porosity(), layout.percolation.connected_porosity(), k.tortuosity, k.reynolds,
              k.mach);
  if (interior_gradient) {
    std::printf("inlet/outlet  %s; the pressure gradient inside the sample adds %.2f %% to the body force "
                "(k corrected; read %lld planes in from each face)\n",
                io_mode == InletOutlet::buffer ? (std::to_string(cfg.lbm.buffer_layers) + " buffer layers").c_str()
                                               : "mirrored",
                100.0 * (drive.acceleration / cfg.lbm.force - 1.0), static_cast<long long>(drive.drop.margin));
    std::printf("              read across the whole sample it would add %.2f %% (the faces' own effects "
                "included)\n",
                100.0 * (drive.end_planes / cfg.lbm.force - 1.0));
  }
  std::printf("%s in %lld steps, %.2f s, %.1f MFLUPS\n", result.converged ? "converged" : "NOT converged",
              static_cast<long long>(result.steps), result.seconds, result.mflups);
  if (comm.size() > 1) std::printf("exchange      %.2f s inside MPI (slowest rank), overlapping the interior\n", mpi_time);
  std::printf("report        %s\n", (cfg.output.dir / "report.json").string().c_str());
  std::istringstream warnings(report.warnings);
  for (std::string line; std::getline(warnings, line);) std::fprintf(stderr, "warning: %s\n", line.c_str());
  return result.converged ? 0 : 5;
}

}  // namespace rockperm::app
