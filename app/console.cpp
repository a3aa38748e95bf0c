#include "app/console.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lib/backend/byte_model.hpp"
#include "lib/parallel/plan.hpp"
#include "pipeline/report.hpp"
#include "lib/solve/time_scales.hpp"

namespace rockperm::app {

void print_sample(const pipeline::RunSpec& spec, const pipeline::Sample& s, const pipeline::FlowSpec& flow,
                  const pipeline::ExecutionPlan& plan, int ranks) {
  std::printf("sample      %s (%s)\n", spec.sample.volume.path.string().c_str(), s.input.format.c_str());
  std::printf("geometry    %s voxels of %g um, flow along %c, lateral faces %s\n", s.dims.str().c_str(),
              s.voxel_size_um, "xyz"[flow.flow_axis], flow.any_lateral_periodic() ? "periodic" : "sealed");
  const geometry::PercolationReport& perc = s.percolation;
  const std::vector<geometry::GreyPhase> grey = spec.sample.grey();
  if (grey.empty()) {
    std::printf("pore space  porosity %.4f, connected %.4f (%.2f %% of the pore removed%s); %llu fluid cells\n",
                perc.total_porosity(), perc.connected_porosity(), 100.0 * perc.removed_fraction(),
                spec.sample.percolation_filter ? "" : ", filter off", static_cast<unsigned long long>(s.fluid));
  } else {  // the resolved pores apart from the grey voxels, and the total with the grey phases' own pores
    std::vector<pipeline::GreyPhaseReport> phases(grey.size());
    for (std::size_t c = 0; c < grey.size(); ++c) {
      phases[c].porosity = grey[c].porosity;
      phases[c].voxels = s.grey_voxels_before[c];
      phases[c].connected = s.grey_voxels[c];
    }
    const pipeline::Porosities p = pipeline::porosities(perc, phases);
    std::printf("pore space  porosity %.4f resolved, connected %.4f; total %.4f with the grey phases' own pores "
                "(%.2f %% of the pore and grey voxels removed%s); %llu fluid cells\n",
                p.resolved, p.connected, p.total, 100.0 * perc.removed_fraction(),
                spec.sample.percolation_filter ? "" : ", filter off", static_cast<unsigned long long>(s.fluid));
  }
  const geometry::GreyMap& map = spec.sample.grey_map;
  if (map.enabled() && !grey.empty()) {  // a phase per intensity: the map in one line, over the phases present
    std::uint64_t voxels = 0, connected = 0;
    std::size_t present = 0, first = grey.size(), last = 0;  // phases run from the pore side
    for (std::size_t c = 0; c < grey.size(); ++c) {
      voxels += s.grey_voxels_before[c];
      connected += s.grey_voxels[c];
      if (s.grey_voxels_before[c] == 0) continue;
      ++present;
      first = std::min(first, c);
      last = c;
    }
    char exponent[48] = "", range[160] = "";
    if (map.law == geometry::PorosityLaw::power)
      std::snprintf(exponent, sizeof exponent, ", exponent %g", map.exponent);
    if (present > 0) {
      std::snprintf(range, sizeof range, ", porosity %.3g to %.3g, k %.4g to %.4g mD", grey[last].porosity,
                    grey[first].porosity, grey[last].permeability_m2 / physics::m2_per_darcy * 1e3,
                    grey[first].permeability_m2 / physics::m2_per_darcy * 1e3);
    }
    std::printf("grey        intensities %d (pore) to %d (solid), porosity linear between, k by %s through %.4g mD at "
                "porosity %g%s: %zu of %zu grey phases present%s: %.2f %% of the voxels, %.2f %% connected (counted "
                "as pore space above)\n",
                map.pore, map.solid, map.law == geometry::PorosityLaw::power ? "a power law" : "Kozeny-Carman",
                map.k_ref_m2 / physics::m2_per_darcy * 1e3, map.porosity_ref, exponent, present, grey.size(), range,
                100.0 * static_cast<double>(voxels) / static_cast<double>(perc.voxels),
                100.0 * static_cast<double>(connected) / static_cast<double>(perc.voxels));
  }
  for (std::size_t c = 0; c < grey.size() && !map.enabled(); ++c) {
    const geometry::GreyPhase& g = grey[c];
    std::printf("grey        labels %s: porosity %g, k %.4g mD (%.3g voxel^2, drag %.3g per step): %.2f %% of the "
                "voxels, %.2f %% connected (counted as pore space above)\n",
                g.labels.str().c_str(), g.porosity, g.permeability_m2 / physics::m2_per_darcy * 1e3,
                c < flow.grey_permeability.size() ? flow.grey_permeability[c] : 0.0,
                c < flow.grey_permeability.size() ? physics::viscosity(flow.tau) / flow.grey_permeability[c] : 0.0,
                100.0 * static_cast<double>(s.grey_voxels_before[c]) / static_cast<double>(perc.voxels),
                100.0 * static_cast<double>(s.grey_voxels[c]) / static_cast<double>(perc.voxels));
  }
  char hash[64];
  std::snprintf(hash, sizeof hash, s.hash_pending ? "beside the first steps" : "%.2f s beside them", s.hash_seconds);
  std::printf("stages      read %.2f s, percolation %.2f s, pore statistics %.2f s%s; SHA-256 %s; pore widths %s\n",
              s.read_seconds, s.percolation_seconds, s.pore_seconds,
              s.slabs ? " (each rank its own slab of the file)" : "", hash,
              plan.cuda ? "beside the solve" : "after the solve");
  const double length = static_cast<double>(s.dims[flow.flow_axis]);
  const solve::TimeScales t = solve::time_scales(s.pores, length, physics::viscosity(flow.tau));
  std::printf("flow        %s tau %g%s, force %.3g%s; pores %.1f voxels across, Kozeny-Carman k %.3g voxel^2: "
              "settling in pores ~%.0f steps, pressure along the sample ~%.0f steps\n",
              flow.collision == physics::CollisionModel::trt ? "TRT" : "BGK", flow.tau, flow.auto_tau ? " (auto)" : "",
              flow.force, flow.auto_force ? " (auto)" : "", s.pores.hydraulic_diameter, s.pores.kozeny_carman_k,
              t.momentum, t.pressure);
  const double index_bytes =
      plan.cuda ? parallel::gpu_index_bytes(s.plane_fluid, plan.propagation) : 4.0;  // the GPU's packed tables
  const backend::ByteModel model{plan.propagation, plan.storage, index_bytes};
  const std::vector<parallel::RankMemory> memory =
      parallel::plan_memory(s.plane_fluid, ranks, plan.propagation, plan.storage, index_bytes);
  const double largest =
      std::max_element(memory.begin(), memory.end(), [](auto& a, auto& b) { return a.bytes < b.bytes; })->bytes;
  std::printf("memory      %.0f B per fluid cell (%s, %s), %.1f MB on the largest of %d rank(s); a dense array "
              "would need %.1fx more\n",
              model.memory_per_cell(), to_string(plan.propagation), to_string(plan.storage), largest * 1e-6, ranks,
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

void print_backend(const pipeline::Simulation& simulation, const pipeline::ExecutionPlan& plan, int ranks,
                   double ready_seconds, bool flow) {
  std::printf("backend     %s, %s propagation; %s; setup %.2f s (lattice %.2f s, backend %.2f s)\n",
              simulation.backend_description().c_str(), to_string(plan.propagation), plan.note.c_str(),
              simulation.setup_seconds(), simulation.lattice_seconds(), simulation.backend_seconds());
  std::printf("ready       %.2f s after the run started: %s\n", ready_seconds,
              flow ? "the first step follows" : "the conduction solve follows (F alone: no step of the flow)");
  if (ranks > 1) {
    std::printf("halo        %.1f kB per step from rank 0, %s: %s\n", simulation.halo_bytes_per_step() * 1e-3,
                to_string(simulation.plan().halo_transport), simulation.plan().halo_note.c_str());
    if (!plan.split_note.empty()) {
      const pipeline::RankLattice& r = simulation.rank_lattice();
      std::string slabs;
      for (const parallel::Slab& s : r.slabs) slabs += (slabs.empty() ? "" : ", ") + std::to_string(s.fluid);
      std::printf("split       %s; cells per rank: %s\n", plan.split_note.c_str(), slabs.c_str());
    }
  }
  std::fflush(stdout);
}

void print_fields(const pipeline::FieldsWritten& f, const pipeline::FieldSpec& spec) {
  if (!f.flow) {
    std::printf("fields        %s (%lld x %lld x %lld cells, %.2f s; the pore mask and the potential in V for 1 V/m: "
                "no flow solved)\n",
                f.index.string().c_str(), static_cast<long long>(f.cells[0]), static_cast<long long>(f.cells[1]),
                static_cast<long long>(f.cells[2]), f.seconds);
    return;
  }
  std::printf("fields        %s (%lld x %lld x %lld cells, %.2f s; velocity in m/s and pressure in Pa for "
              "%g Pa/m through %g Pa s)\n",
              f.index.string().c_str(), static_cast<long long>(f.cells[0]), static_cast<long long>(f.cells[1]),
              static_cast<long long>(f.cells[2]), f.seconds, spec.pressure_gradient_pa_per_m, spec.viscosity_pa_s);
}

namespace {
// ", total 0.3000 with the grey phases' own pores" where grey phases are declared
std::string total_porosity_text(const pipeline::SampleResult& r) {
  if (!r.grey.any()) return "";
  char text[96];
  std::snprintf(text, sizeof text, ", total %.4f with the grey phases' own pores", r.total_porosity());
  return text;
}
}  // namespace

namespace {
std::string pressure(double pa) {
  char b[32];
  if (pa >= 1e6) std::snprintf(b, sizeof b, "%.4g MPa", pa / 1e6);
  else if (pa >= 1e3) std::snprintf(b, sizeof b, "%.4g kPa", pa / 1e3);
  else std::snprintf(b, sizeof b, "%.4g Pa", pa);
  return b;
}
std::string phase_flow(const pipeline::PhaseFlow& f) {
  char b[96];
  if (!f.solved) return "not made";
  if (!f.spans) return "0 (does not span)";
  std::snprintf(b, sizeof b, "%.4g +- %.1g%s", f.kr, f.kr_error, f.converged ? "" : " (not converged)");
  return b;
}
}  // namespace

void print_two_phase_curves(const pipeline::TwoPhaseReport& t) {
  std::printf("capillary     pore morphology: sigma %.4g N/m, theta %.4g deg (wetting %.4g), entry %s, wetting "
              "trapping %s; %.2f s\n",
              t.sigma_n_per_m, t.theta_deg, t.theta_wetting_deg, t.entry.c_str(), t.trapping ? "on" : "off",
              t.morphology_seconds);
  std::printf("              entry pressure %s, breakthrough %s; S_w of the connected pore space (%llu voxels)\n",
              pressure(t.entry_pressure_pa).c_str(),
              t.breakthrough_pressure_pa > 0 ? pressure(t.breakthrough_pressure_pa).c_str() : "none",
              static_cast<unsigned long long>(t.pore_voxels));
  // one row per pressure: the imbibition's points are the drainage's pressures, falling
  const bool both = !t.imbibition.empty();
  std::printf("              %10s  %10s  %10s%s\n", "Pc", "radius um", "S_w drain", both ? "  S_w imbibe" : "");
  for (std::size_t i = 0; i < t.drainage.size(); ++i) {
    const pipeline::CapillaryPoint& p = t.drainage[i];
    std::printf("              %10s  %10.4g%s %10.4f", pressure(p.pc_pa).c_str(), p.radius_um, p.resolved ? " " : "*",
                p.saturation);
    if (both && i < t.imbibition.size()) std::printf("  %11.4f", t.imbibition[t.imbibition.size() - 1 - i].saturation);
    std::printf("\n");
  }
  if (!t.drainage.empty() && !t.drainage.back().resolved) {
    std::printf("              * below one voxel: the scan does not resolve pores that narrow (the non-wetting phase "
                "spans the sample only there)\n");
  }
  std::printf("              residual saturations (trapped): wetting %.4f after drainage", t.residual_wetting);
  if (both) std::printf(", non-wetting %.4f after imbibition to Pc = 0", t.residual_nonwetting);
  std::printf("\n");
  std::fflush(stdout);
}

std::string two_phase_flow(const pipeline::ColourFlowPoint& f) {
  char b[256];
  if (!f.solved) return "not made: " + f.note;
  std::snprintf(b, sizeof b, "k_rw %.4g +- %.1g, k_rn %.4g +- %.1g%s at S_w %.4f, Ca %.2g, viscosity ratio %.3g", f.kr_w,
                f.kr_w_error, f.kr_n, f.kr_n_error, f.converged ? "" : " (not converged)", f.saturation,
                f.capillary_number, f.viscosity_ratio);
  std::string out = b;
  if (f.start != "morphology") out += " (from a " + f.start + " start)";
  if (!f.wetting_spans || !f.nonwetting_spans) {
    out += !f.wetting_spans && !f.nonwetting_spans ? "; neither phase spans"
           : !f.wetting_spans                     ? "; the wetting phase does not span"
                                                  : "; the non-wetting phase does not span";
  }
  for (const std::string& flag : f.flags) out += "; CHECK: " + flag;
  return out;
}

void print_colour_flow_progress(const pipeline::ColourFlowProgress& p) {
  if (p.displacement) {
    std::printf("  displacing  %s: step %lld, S_w %.4f, Ca %.2g\n", p.label.c_str(), static_cast<long long>(p.step),
                p.saturation, p.capillary_number);
  } else if (p.known) {
    std::printf("  flowing     %s: step %lld, S_w %.4f, k_rw %.4g +- %.1g, k_rn %.4g +- %.1g\n", p.label.c_str(),
                static_cast<long long>(p.step), p.saturation, p.kr_w, p.error_w, p.kr_n, p.error_n);
  } else {
    std::printf("  flowing     %s: step %lld, S_w %.4f, k_rw %.4g, k_rn %.4g (no error yet)\n", p.label.c_str(),
                static_cast<long long>(p.step), p.saturation, p.kr_w, p.kr_n);
  }
  std::fflush(stdout);
}

namespace {
std::string displacement_point(const pipeline::DisplacementPoint& p) {
  char b[160];
  if (p.steps == 0) return p.note;
  std::snprintf(b, sizeof b, "S_w %.4f (quasi-static %.4f), Ca %.2g, %lld steps, %.1f s", p.saturation,
                p.saturation_quasi_static, p.capillary_number, static_cast<long long>(p.steps), p.seconds);
  return std::string(b) + (p.note.empty() ? "" : "; " + p.note);
}
}  // namespace

void print_displacement_point(const std::string& curve, const pipeline::DisplacementPoint& p, std::size_t done,
                              std::size_t total) {
  std::printf("displaced     %zu/%zu %s Pc %s: %s\n", done, total, curve.c_str(), pressure(p.pc_pa).c_str(),
              displacement_point(p).c_str());
  std::fflush(stdout);
}

void print_relperm_point(const pipeline::RelPermPoint& p, std::size_t done, std::size_t total) {
  std::printf("relperm       %zu/%zu %s S_w %.4f (Pc %s): k_rw %s, k_rn %s (%lld + %lld steps, %.1f s)\n", done, total,
              p.curve.c_str(), p.saturation, pressure(p.pc_pa).c_str(), phase_flow(p.wetting).c_str(),
              phase_flow(p.nonwetting).c_str(), static_cast<long long>(p.wetting.steps),
              static_cast<long long>(p.nonwetting.steps), p.wetting.seconds + p.nonwetting.seconds);
  if (p.flow.asked) {
    std::printf("  by flow     %s (%lld steps, %.1f s, %s)\n", two_phase_flow(p.flow).c_str(),
                static_cast<long long>(p.flow.steps), p.flow.seconds, p.flow.backend.c_str());
  }
  std::fflush(stdout);
}

void print_forchheimer_point(const pipeline::ForchheimerPoint& p, std::size_t index, std::size_t total) {
  char error[32] = "";
  if (std::isfinite(p.error)) std::snprintf(error, sizeof error, " +- %.1g", (p.error + p.lattice_error) * p.k_md);
  std::printf("forchheimer   %zu/%zu Re %-9.4g k_app %.6g%s mD, %.5f of k (Re_k %.3g, Ma %.3f, tau %.4f; %lld steps, "
              "%.1f s)%s\n",
              index, total - 1, p.reynolds, p.k_md, error, p.k_ratio, p.reynolds_k, p.mach, p.tau,
              static_cast<long long>(p.steps), p.seconds, p.converged ? "" : " not converged");
  std::fflush(stdout);
}

void print_result(const pipeline::SampleResult& r, const std::filesystem::path& report) {
  const physics::Permeability& k = r.k;
  const bool f_alone = r.formation_factor_alone();
  if (f_alone) {
    std::printf("\npermeability  not solved (run.formation_factor = only: F alone)\n");
    std::printf("porosity      %.4f%s (connected %.4f)%s\n", r.porosity(), r.grey.any() ? " resolved" : "",
                r.connected_porosity(), total_porosity_text(r).c_str());
  } else {
    std::printf("\npermeability  %.6g mD  (%.6g darcy, %.6e m^2, %.6g voxel^2)\n", k.k_md, k.k_darcy, k.k_m2,
                k.k_lattice);
    std::printf("porosity      %.4f (connected %.4f)%s   tortuosity %.4f   Re %.2e   Ma %.2e\n",
                r.porosity(), r.connected_porosity(), total_porosity_text(r).c_str(), k.tortuosity, k.reynolds, k.mach);
  }
  if (r.conduction.done) {
    const pipeline::ConductionReport& c = r.conduction;
    std::printf("formation     F %.6g +- %.2g (relative) along %c: tortuosity factor F phi %.4g, Archie m %.4g at "
                "total connected porosity %.4f (%lld iterations, %.2f s on %s, %.2f s of it setting up)\n",
                c.formation_factor, c.error, "xyz"[r.flow.flow_axis], c.tortuosity_factor, c.cementation_exponent,
                c.porosity, static_cast<long long>(c.iterations), c.seconds, c.device == "host" ? "the host's cores" : c.device.c_str(), c.setup_seconds);
    if (c.formation_factor_interior > 0) {
      std::printf("              F of the interior alone %.6g (%+.2f %%): a representative-volume check, F is the whole "
                  "sample's\n",
                  c.formation_factor_interior, 100.0 * (c.formation_factor_interior / c.formation_factor - 1.0));
    }
    if (!c.device_note.empty()) std::printf("formation     not on the GPU: %s\n", c.device_note.c_str());
  } else if (r.conduction.asked) {
    std::printf("formation     not made: %s\n", r.conduction.note.c_str());
  }
  if (r.resolution.done) {
    char coarser[64] = "";
    if (r.resolution.k_coarser_md) std::snprintf(coarser, sizeof coarser, ", %.6g mD at 4x", *r.resolution.k_coarser_md);
    std::printf("resolution    k %.6g mD on the sample coarsened 2x%s (%lld steps, %.2f s): at zero voxel size %.6g mD, "
                "a discretisation error of %.2f %% (order %g)\n",
                r.resolution.k_coarse_md, coarser, static_cast<long long>(r.resolution.coarse_steps),
                r.resolution.coarse_seconds, r.resolution.k_extrapolated_md, 100.0 * r.resolution.discretisation_error,
                r.resolution.order);
    if (!r.resolution.note.empty()) std::printf("              %s\n", r.resolution.note.c_str());
  } else if (r.resolution.asked) {
    std::printf("resolution    study %s\n", r.resolution.note.c_str());
  }
  if (r.grey.any()) {
    std::printf("grey          %.2f %% of the voxels in %zu grey phase(s) carry %.2f %% of the flow; sub-resolution "
                "porosity %.4f (total %.4f)\n",
                100.0 * static_cast<double>(r.grey.voxels()) / static_cast<double>(r.percolation.voxels),
                r.grey.phases.size(), 100.0 * r.grey.flow_fraction,
                r.grey.subresolution_porosity(r.percolation.voxels), r.total_porosity());
    if (r.grey.without_done) {
      std::printf("              with the grey voxels solid k = %.6g mD (%lld steps, %.2f s)%s%s\n", r.grey.k_without_md,
                  static_cast<long long>(r.grey.without_steps), r.grey.without_seconds,
                  r.grey.without_note.empty() ? "" : ": ", r.grey.without_note.c_str());
    } else if (r.grey.without_asked) {
      std::printf("              k with the grey voxels solid %s\n", r.grey.without_note.c_str());
    }
  }
  const pipeline::FlowSpec& flow = r.flow;
  if (flow.inlet_outlet != geometry::InletOutlet::periodic && !f_alone) {
    if (flow.inlet_outlet == geometry::InletOutlet::buffer) {
      std::printf("inlet/outlet  %d buffer layers; k across the whole sample, face to face: the pressure falling "
                  "through it adds %.2f %% to the body force\n",
                  flow.buffer_layers, 100.0 * (r.drive.acceleration / flow.force - 1.0));
    } else {
      std::printf("inlet/outlet  mirrored; k across the whole sample, the mirrored period read whole (its junctions "
                  "are equipotential faces)\n");
    }
    if (r.k_interior_md > 0) {
      std::printf("interior      k %.6g mD over the middle planes (%lld in from each face), %+.2f %% off the whole "
                  "sample: a representative-volume check\n",
                  r.k_interior_md, static_cast<long long>(r.drive.interior.margin),
                  100.0 * pipeline::interior_difference(r));
    }
  }
  const char* ended = r.converged() ? "converged"
                      : r.status == pipeline::RunStatus::interrupted ? "INTERRUPTED"
                      : r.status == pipeline::RunStatus::not_converged ? "NOT converged"
                                                                       : "converged, but INVALID";
  if (f_alone) {
    std::printf("%s: F %s\n", ended, r.conduction.converged ? "to its tolerance" : "short of its tolerance");
  } else {
    std::printf("%s in %lld steps, %.2f s, %.1f MFLUPS", ended, static_cast<long long>(r.steps), r.timings.solve,
                r.performance.mflups);
    if (r.extrapolations > 0) std::printf("; pressure extrapolated %d time(s)", r.extrapolations);
    std::printf("\n");
    if (r.start.done) {
      std::printf("started from a Darcy-scale pressure field: %lld iterations on %s, %.2f s",
                  static_cast<long long>(r.start.iterations), r.start.device.c_str(), r.start.seconds);
      if (r.start.corrections > 0) {
        std::printf("; %d density correction(s), %.2f s, the model's scale %.3g", r.start.corrections,
                    r.start.correction_seconds, r.start.correction_scale);
        if (r.start.correction_converged) {
          std::printf(" (converged: k within %.1e of steady as far as the model sees)", r.start.correction_error_floor);
        }
      }
      std::printf("\n");
    } else if (!r.start.note.empty() && r.start.method == "darcy") {
      std::printf("note: %s\n", r.start.note.c_str());
    }
  }
  if (r.steps > 0) {
    char error[32] = "? (unknown)";
    if (std::isfinite(r.error_estimate)) std::snprintf(error, sizeof error, "%.1e", r.error_estimate);
    std::printf("steady        k may still change by %s (relative; tolerance %.0e); the flux through the planes "
                "across the flow agrees to %.1e\n",
                error, r.tolerance, r.flux_nonuniformity);
    std::printf("pores         %.1f %% of the pore volume narrower than 3 voxels, %.1f %% 3-5, %.1f %% 5-10, %.1f %% wider\n",
                100.0 * r.width_fraction[0], 100.0 * r.width_fraction[1], 100.0 * r.width_fraction[2],
                100.0 * r.width_fraction[3]);
    if (r.k_halves_md[0] > 0) {
      std::printf("halves        k of the first and second half of the sample along the flow: %.6g and %.6g mD\n",
                  r.k_halves_md[0], r.k_halves_md[1]);
    }
    if (r.drive_adjustments > 0) {
      std::printf("drive         force lowered %d time(s) during the run, to %.3g, to keep Re and Ma near %g\n",
                  r.drive_adjustments, r.flow.force, pipeline::FlowSpec::target_mach);
    }
    std::printf("verdict       %s\n", pipeline::verdict(r).c_str());
  }
  if (r.two_phase.done) {
    const pipeline::TwoPhaseReport& t = r.two_phase;
    char residual[64] = "";
    if (!t.imbibition.empty()) std::snprintf(residual, sizeof residual, ", residual S_nw %.4f", t.residual_nonwetting);
    std::printf("two phases    entry %s, residual S_w %.4f%s; %zu relative permeability point(s) in %.1f s (the other "
                "phase a no-slip wall)%s%s\n",
                pressure(t.entry_pressure_pa).c_str(), t.residual_wetting, residual, t.relperm.size(),
                t.relperm_seconds, t.note.empty() ? "" : "; ", t.note.c_str());
    for (const pipeline::RelPermPoint& p : t.relperm) {
      std::printf("              %-10s S_w %.4f  Pc %9s  k_rw %-18s k_rn %s\n", p.curve.c_str(), p.saturation,
                  pressure(p.pc_pa).c_str(), phase_flow(p.wetting).c_str(), phase_flow(p.nonwetting).c_str());
      if (p.flow.asked) std::printf("                by two-phase flow: %s\n", two_phase_flow(p.flow).c_str());
    }
    const pipeline::DisplacementReport& d = t.displacement;
    if (d.asked) {
      std::printf("displacement  the curves by two-phase flow (%s), %.1f s%s%s\n", d.backend.empty() ? "not made" : d.backend.c_str(),
                  d.seconds, d.note.empty() ? "" : "; ", d.note.c_str());
      for (const std::string& flag : d.flags) std::printf("              CHECK: %s\n", flag.c_str());
      for (const auto& [name, points] : {std::pair{"drainage", &d.drainage}, std::pair{"imbibition", &d.imbibition}}) {
        for (const pipeline::DisplacementPoint& p : *points) {
          std::printf("              %-10s Pc %9s  %s\n", name, pressure(p.pc_pa).c_str(), displacement_point(p).c_str());
        }
      }
    }
  }
  if (r.forchheimer.asked) {
    const pipeline::ForchheimerReport& f = r.forchheimer;
    const auto onset = [](double re) {
      char b[32] = "beyond the sweep";
      if (std::isfinite(re)) std::snprintf(b, sizeof b, "%.3g", re);
      return std::string(b);
    };
    if (f.fit.done) {
      std::printf("forchheimer   k %.6g mD, beta %.4g 1/m, c_F = beta sqrt(k) %.4g (Forchheimer's line over Re %.3g to "
                  "%.3g, residual %.2g %%)\n",
                  f.fit.k_md, f.fit.beta_per_m, f.fit.c_f, f.points[f.fit.first].reynolds,
                  f.points[f.fit.last].reynolds, 100 * f.fit.residual);
    }
    if (f.done) {
      std::printf("              k_app falls 1 %% below k at Re %s, 10 %% at Re %s (Re = rho (q / phi) d / mu, pore "
                  "diameter d = %.4g um); %lld steps, %.1f s\n",
                  onset(f.reynolds_1pct).c_str(), onset(f.reynolds_10pct).c_str(), f.pore_diameter_um,
                  static_cast<long long>(f.steps), f.seconds);
    }
    if (!f.note.empty()) std::printf("forchheimer   %s\n", f.note.c_str());
  }
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

void ProgressPrinter::operator()(const solve::Progress& p) {
  if (p.extrapolation.jumped) {
    std::fprintf(stderr,
                 "  step %8lld  pressure extrapolated: the density changes shrank by %.3f per %lld steps, every cell "
                 "jumped %.2f such changes ahead\n",
                 static_cast<long long>(p.step), p.extrapolation.ratio,
                 static_cast<long long>(p.extrapolation.interval), p.extrapolation.factor);
  }
  if (p.correction.made) {
    std::fprintf(stderr,
                 "  step %8lld  density correction %d: %.2e of the drive's density drop, k moved %.1e by the model "
                 "(its scale %.3g; its solve %lld iterations, %.2f s)%s\n",
                 static_cast<long long>(p.step), p.correction.number, p.correction.size, p.correction.k_change,
                 p.correction.scale, static_cast<long long>(p.correction.iterations), p.correction.seconds,
                 p.correction.last ? "; the last" : (p.correction.quiet ? "; quiet: the run may stop" : ""));
  }
  const bool final_check = p.step >= p.max_steps || p.error_estimate < p.tolerance;
  // a loop started again (a rate of a Forchheimer sweep counts its seconds from 0): its first check
  // is shown, then one a period as before
  if (p.seconds < last_) printed_ = false;
  if (p.seconds - last_ < seconds_ && !final_check && printed_) return;
  last_ = p.seconds;
  printed_ = true;
  char error[32];
  if (std::isfinite(p.error_estimate)) std::snprintf(error, sizeof error, "%8.2e", p.error_estimate);
  else std::snprintf(error, sizeof error, "%8s", "?");
  std::fprintf(stderr,
               "  step %8lld  k = %13.8g mD  error %s (tol %.0e)  flux spread %8.2e  %7.1f MFLUPS  %7.2f s\n",
               static_cast<long long>(p.step), p.k.k_md, error, p.tolerance, p.flux_nonuniformity, p.mflups,
               p.seconds);
}

std::string describe(const pipeline::Warning& w) {
  const std::string options = option_names_for(w.field);
  return w.message + (options.empty() ? "" : " (option " + options + ")");
}

}  // namespace rockperm::app
