#include "app/console.hpp"

#include <algorithm>
#include <cstdio>

#include "lib/backend/byte_model.hpp"
#include "lib/parallel/plan.hpp"

namespace rockperm::app {

void print_sample(const RunOptions& options, const pipeline::Sample& s, const pipeline::ExecutionPlan& plan,
                  int ranks) {
  const pipeline::FlowSpec& flow = options.spec.flow;
  std::printf("sample      %s (%s)\n", options.spec.sample.volume.path.string().c_str(), s.input.format.c_str());
  std::printf("geometry    %s voxels of %g um, flow along %c, lateral faces %s\n", s.dims.str().c_str(),
              s.voxel_size_um, "xyz"[flow.flow_axis], flow.any_lateral_periodic() ? "periodic" : "sealed");
  const PercolationReport& perc = s.percolation;
  std::printf("pore space  porosity %.4f, connected %.4f (%.2f %% of the pore removed%s); %llu fluid cells\n",
              perc.total_porosity(), perc.connected_porosity(), 100.0 * perc.removed_fraction(),
              options.spec.sample.percolation_filter ? "" : ", filter off", static_cast<unsigned long long>(s.fluid));
  std::printf("stages      read %.2f s, percolation %.2f s\n", s.read_seconds, s.percolation_seconds);
  const ByteModel model{plan.propagation};
  const std::vector<RankMemory> memory = plan_memory(s.plane_fluid, ranks, plan.propagation);
  const double largest =
      std::max_element(memory.begin(), memory.end(), [](auto& a, auto& b) { return a.bytes < b.bytes; })->bytes;
  std::printf("memory      %.0f B per fluid cell (%s), %.1f MB on the largest of %d rank(s); a dense array "
              "would need %.1fx more\n",
              model.memory_per_cell(), to_string(plan.propagation), largest * 1e-6, ranks,
              model.dense_per_voxel() * s.dims.voxels() / (model.memory_per_cell() * s.fluid));
  if (ranks > 1) {
    for (int r = 0; r < ranks; ++r) {
      std::printf("  rank %d   planes %lld..%lld, %llu fluid cells, %.1f MB\n", r,
                  static_cast<long long>(memory[r].slab.z_begin), static_cast<long long>(memory[r].slab.z_end - 1),
                  static_cast<unsigned long long>(memory[r].slab.fluid), memory[r].bytes * 1e-6);
    }
    if (plan.cuda) std::printf("gpus\n%s", plan.device_log.c_str());
  }
}

void print_backend(const pipeline::Simulation& simulation, const pipeline::ExecutionPlan& plan, int ranks) {
  std::printf("backend     %s, %s propagation; %s; setup %.2f s\n", simulation.backend_description().c_str(),
              to_string(plan.propagation), plan.note.c_str(), simulation.setup_seconds());
  if (ranks > 1) {
    std::printf("halo        %.1f kB per step from rank 0, %s\n", simulation.halo_bytes_per_step() * 1e-3,
                plan.device_halo ? "device buffers handed to CUDA-aware MPI"
                                 : (plan.cuda ? "staged through pinned host buffers (MPI not CUDA-aware, or "
                                                "run.cuda_aware_mpi = off)"
                                              : "host buffers"));
  }
  std::fflush(stdout);
}

void print_fields(const pipeline::FieldsWritten& f, const pipeline::FieldSpec& spec) {
  std::printf("fields        %s (%lld x %lld x %lld cells, %.2f s; velocity in m/s and pressure in Pa for "
              "%g Pa/m through %g Pa s)\n",
              f.index.string().c_str(), static_cast<long long>(f.cells[0]), static_cast<long long>(f.cells[1]),
              static_cast<long long>(f.cells[2]), f.seconds, spec.pressure_gradient_pa_per_m, spec.viscosity_pa_s);
}

void print_result(const pipeline::SampleResult& r, const std::filesystem::path& report) {
  const Permeability& k = r.k;
  std::printf("\npermeability  %.6g mD  (%.6g darcy, %.6e m^2, %.6g voxel^2)\n", k.k_md, k.k_darcy, k.k_m2,
              k.k_lattice);
  std::printf("porosity      %.4f (connected %.4f)   tortuosity %.4f   Re %.2e   Ma %.2e\n",
              r.percolation.total_porosity(), r.percolation.connected_porosity(), k.tortuosity, k.reynolds, k.mach);
  const pipeline::FlowSpec& flow = r.flow;
  if (flow.inlet_outlet != InletOutlet::periodic) {
    std::printf("inlet/outlet  %s; the pressure gradient inside the sample adds %.2f %% to the body force "
                "(k corrected; read %lld planes in from each face)\n",
                flow.inlet_outlet == InletOutlet::buffer ? (std::to_string(flow.buffer_layers) + " buffer layers").c_str()
                                                         : "mirrored",
                100.0 * (r.drive.acceleration / flow.force - 1.0), static_cast<long long>(r.drive.drop.margin));
    std::printf("              read across the whole sample it would add %.2f %% (the faces' own effects "
                "included)\n",
                100.0 * (r.drive.end_planes / flow.force - 1.0));
  }
  const char* ended = r.converged() ? "converged"
                      : r.status == pipeline::RunStatus::interrupted ? "INTERRUPTED"
                      : r.status == pipeline::RunStatus::not_converged ? "NOT converged"
                                                                       : "converged, but INVALID";
  std::printf("%s in %lld steps, %.2f s, %.1f MFLUPS\n", ended, static_cast<long long>(r.steps), r.timings.solve,
              r.performance.mflups);
  if (!r.checkpoint.empty()) std::printf("checkpoint    %s\n", r.checkpoint.string().c_str());
  if (r.performance.ranks > 1) {
    std::printf("exchange      %.2f s inside MPI (slowest rank), overlapping the interior\n", r.performance.mpi_seconds);
  }
  std::printf("report        %s\n", report.string().c_str());
  std::fflush(stdout);
  for (const pipeline::Warning& w : r.warnings) std::fprintf(stderr, "warning: %s\n", describe(w).c_str());
  if (!r.converged() && r.status != pipeline::RunStatus::not_converged) {
    std::fprintf(stderr, "status: %s: %s\n", to_string(r.status), r.message.c_str());
  }
}

void ProgressPrinter::operator()(const Progress& p) {
  const bool final_check = p.step >= p.max_steps || p.relative_change < p.tolerance;
  if (p.seconds - last_ < 1.0 && !final_check && printed_) return;
  last_ = p.seconds;
  printed_ = true;
  std::fprintf(stderr, "  step %8lld  k = %12.6g mD  change %8.2e (tol %.0e)  %7.1f MFLUPS  %7.2f s\n",
               static_cast<long long>(p.step), p.k.k_md, p.relative_change, p.tolerance, p.mflups, p.seconds);
}

std::string describe(const pipeline::Warning& w) {
  const std::string options = option_names_for(w.field);
  return w.message + (options.empty() ? "" : " (option " + options + ")");
}

}  // namespace rockperm::app
