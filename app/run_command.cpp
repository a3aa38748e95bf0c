// rockperm run: one sample from its volume file to a permeability in mD.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "app/backend_factory.hpp"
#include "app/commands.hpp"
#include "io/atomic_file.hpp"
#include "io/raw_reader.hpp"
#include "io/report_writer.hpp"
#include "lib/config.hpp"
#include "lib/pore_mask.hpp"
#include "lib/solver.hpp"
#include "lib/sparse_lattice.hpp"

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

std::string warnings_for(const SolverResult& r, const config::RunConfig& cfg) {
  std::ostringstream w;
  if (!r.converged) {
    w << "not converged: k still changed by " << r.relative_change << " (tolerance " << cfg.run.monitor.tolerance
      << ") after " << r.steps << " steps; raise run.max_steps\n";
  }
  if (r.k.reynolds > 0.1) {
    w << "Reynolds number " << r.k.reynolds << " > 0.1: inertia may bias k; lower lbm.force\n";
  }
  if (r.k.mach > 0.1) {
    w << "Mach number " << r.k.mach << " > 0.1: compressibility error; lower lbm.force\n";
  }
  return w.str();
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  bool help = false;
  config::RunConfig cfg = config::parse_run_arguments(args, help);
  if (help) {
    std::cout << config::run_options_help();
    return 0;
  }
  io::ensure_directory(cfg.output.dir);  // fail before the long work, not after

  const BackendPlan plan = plan_backend(cfg.backend);
  cfg.run.propagation = resolve_propagation(cfg.propagation, plan);

  const auto setup_start = Clock::now();
  const Volume volume = io::read_raw_u8(cfg.input.file, cfg.input.dims, cfg.input.voxel_size_um);
  const PoreMask mask = make_pore_mask(volume, LabelSelection::parse(cfg.input.pore_labels));
  const bool fused = cfg.run.propagation == Propagation::fused;
  const SparseLattice lattice = SparseLattice::build(mask, cfg.periodicity(), fused);
  const double setup_seconds = seconds_since(setup_start);

  const MemoryEstimate mem = lattice.memory();
  const std::uint64_t voxels = volume.dims.voxels();
  std::printf("sample      %s\n", cfg.input.file.string().c_str());
  std::printf("geometry    %s voxels of %g um, flow along %c, lateral faces %s\n", volume.dims.str().c_str(),
              cfg.input.voxel_size_um, "xyz"[cfg.lbm.flow_axis], cfg.lbm.lateral_periodic ? "periodic" : "sealed");
  std::printf("pore space  %u fluid cells, porosity %.4f\n", lattice.fluid_count(),
              static_cast<double>(lattice.fluid_count()) / static_cast<double>(voxels));
  std::printf("memory      %.1f B per fluid cell (%.1f MB), %.1fx less than a dense array; setup %.2f s\n",
              mem.total_bytes_per_cell, mem.total_bytes_per_cell * lattice.fluid_count() * 1e-6, mem.reduction,
              setup_seconds);

  const physics::CollisionParams params = physics::make_collision_params(
      cfg.lbm.collision, cfg.lbm.tau, cfg.lbm.magic, cfg.lbm.flow_axis, cfg.lbm.force);
  auto backend = make_backend(plan, lattice, params);
  std::printf("backend     %s, %s propagation; %s\n", backend->description().c_str(),
              to_string(cfg.run.propagation), plan.note.c_str());
  std::fflush(stdout);

  FlowProblem problem;
  problem.flow_axis = cfg.lbm.flow_axis;
  problem.tau = cfg.lbm.tau;
  problem.acceleration = cfg.lbm.force;
  problem.region_voxels = voxels;
  problem.region_fluid = lattice.fluid_count();
  problem.voxel_size_um = cfg.input.voxel_size_um;

  ProgressPrinter printer;
  const SolverResult result =
      run_to_steady_state(*backend, lattice.fluid_count(), problem, cfg.run, std::ref(printer));

  io::RunReport report;
  report.sample = cfg.input.file.filename().string();
  report.backend = backend->description();
  report.config = cfg;
  report.voxels = voxels;
  report.fluid_cells = lattice.fluid_count();
  report.bytes_per_cell = backend->bytes_per_cell();
  report.setup_seconds = setup_seconds;
  report.result = result;
  report.warnings = warnings_for(result, cfg);
  io::write_run_reports(cfg.output.dir, report);

  const Permeability& k = result.k;
  std::printf("\npermeability  %.6g mD  (%.6g darcy, %.6e m^2, %.6g voxel^2)\n", k.k_md, k.k_darcy, k.k_m2,
              k.k_lattice);
  std::printf("porosity      %.4f   tortuosity %.4f   Re %.2e   Ma %.2e\n", k.porosity, k.tortuosity, k.reynolds,
              k.mach);
  std::printf("%s in %lld steps, %.2f s, %.1f MFLUPS\n", result.converged ? "converged" : "NOT converged",
              static_cast<long long>(result.steps), result.seconds, result.mflups);
  std::printf("report        %s\n", (cfg.output.dir / "report.json").string().c_str());
  std::istringstream warnings(report.warnings);
  for (std::string line; std::getline(warnings, line);) std::fprintf(stderr, "warning: %s\n", line.c_str());
  return result.converged ? 0 : 5;
}

}  // namespace rockperm::app
