// The displacement: the capillary pressure curves again by two-phase flow (ColourFlowRuns::displace,
// pipeline/colour_flow.hpp; issue 69's unsteady protocol).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "lib/geometry/inlet_outlet.hpp"
#include "lib/geometry/morphology.hpp"
#include "lib/lattice/colour_propagation.hpp"
#include "lib/solve/colour_displacement.hpp"
#include "pipeline/colour_flow.hpp"
#include "pipeline/colour_flow_state.hpp"

namespace rockperm::pipeline {

namespace {

// A meniscus narrower than this many voxels (its radius of curvature 2 sigma cos(theta) / Pc) lies
// inside the model's interface, about 4 voxels wide: such pressures are not held.
constexpr double min_meniscus_voxels = 2;
// The reservoirs' planes next to the sample that do not feed their phase (about the interface's width).
constexpr std::int64_t free_planes = 4;
static_assert(free_planes < ColourFlowRuns::reservoir_planes);

std::string kpa(double pa) {
  char b[48];
  std::snprintf(b, sizeof b, "%.4g kPa", pa / 1000);
  return b;
}

}  // namespace

std::string ColourFlowRuns::backend() const { return s_->backend; }
std::string ColourFlowRuns::note() const { return s_->note; }

std::vector<DisplacementPoint> ColourFlowRuns::displace(const std::vector<std::uint8_t>& start, const std::string& curve,
                                                        const std::vector<double>& pressures_pa,
                                                        const std::vector<double>& quasi_static, double pa_per_lattice,
                                                        const std::function<bool()>& stop, RunObserver* observer) {
  State& s = *s_;
  const parallel::Comm& comm = s.comm;
  const int axis = s.spec.flow.flow_axis;
  std::vector<DisplacementPoint> out;
  if (s.kind != Domain::reservoirs) throw Error("internal: a displacement on a domain without reservoirs");
  if (!s.displacing) {
    // the domain: the sample's pore space between its reservoirs (rank 0 builds it; the phases of
    // `start` set only which voxels are solid: every pore starts wetting)
    geometry::ExtendedSample extended;
    if (comm.root()) extended = geometry::extend_along_flow(geometry::PoreMask(s.dims, start), axis, s.mode, s.layers);
    if (!s.lattice) s.build(extended);
    if (const std::string refused = s.memory_refusal(); !refused.empty()) {
      s.note = "not made: " + refused;
      return out;
    }
    const lattice::SparseLattice& lat = *s.lattice;
    // the inlet's reservoir non-wetting (-1), the sample and the outlet's reservoir wetting. Each
    // reservoir's cells feed its phase but for the `free_planes` next to the sample, which hold the
    // menisci at its faces (a fed cell there would take up the phase the interface passes it: a sink
    // that drains the pores at any pressure); what breaks through is taken into the outlet's phase
    // beyond them, before it can reach another pore's outlet, and the two reservoirs meet flat
    // across the wrap.
    std::vector<float> phi(lat.fluid_count(), 1.0f);
    std::vector<std::uint32_t> to_a, to_b;
    for (std::uint32_t c = lat.owned_begin(); c < lat.owned_end(); ++c) {
      const std::int64_t p = s.along(lat.coords()[c], axis);
      if (p < s.sample_begin) phi[c] = -1.0f;
      if (p < s.sample_begin - free_planes) to_b.push_back(c);
      if (p >= s.sample_end + free_planes) to_a.push_back(c);
    }
    s.displacing = s.model(phi, s.params);
    s.displacing->set_wall_phi(s.wall_phi);
    s.displacing->set_sources(to_a, to_b);
    s.backend = s.plan.cuda ? "cuda device " + std::to_string(s.plan.device) : "cpu";
    if (comm.size() > 1) s.backend += ", Z-slabs on " + std::to_string(comm.size()) + " ranks";
  }
  if (!s.note.empty()) return out;
  backend::ColourBackend& model = *s.displacing;
  const lattice::SparseLattice& lat = *s.lattice;
  const double length = static_cast<double>(s.domain_dims[axis]);
  const double voxels = static_cast<double>(s.domain_dims.voxels());
  // what a check reads, summed over the ranks in fixed point (lib/lattice/colour_propagation.hpp's
  // sum_scale), so that it and every decision on it are the same on any number of ranks
  const auto probe = [&] {
    const backend::ColourBackend::Fields f = model.fields();
    const double scale = lattice::colour_step::sum_scale;
    std::vector<std::int64_t> local(3, 0);  // the sample's wetting fraction, its cells, the velocity along the flow
    double bad = 0;
    for (std::uint32_t c = lat.owned_begin(); c < lat.owned_end(); ++c) {
      const double u = f.u[3 * std::size_t{c} + axis];
      if (!std::isfinite(f.phi[c]) || !std::isfinite(u) || std::abs(u) > 1) {
        bad = 1;
        continue;
      }
      local[2] += std::llrint(u * scale);
      const std::int64_t p = s.along(lat.coords()[c], axis);
      if (p < s.sample_begin || p >= s.sample_end) continue;
      local[0] += std::llrint(physics::colour::fraction_a(f.phi[c]) * scale);
      local[1] += 1;
    }
    const std::vector<std::int64_t> all = comm.sum(local);
    solve::DisplacementProbe out;
    out.saturation = static_cast<double>(all[0]) / scale / std::max<double>(1.0, static_cast<double>(all[1]));
    out.velocity = static_cast<double>(all[2]) / scale / voxels;
    out.finite = comm.max(bad) == 0;  // every rank's values finite
    return out;
  };
  const std::function<bool()> stop_all = [&] { return comm.max(stop && stop() ? 1.0 : 0.0) > 0; };
  solve::DisplacementControls controls;
  controls.max_steps = s.spec.two_phase.displacement_steps;
  const double nu_w = s.params.nu[0], sigma = s.params.sigma;
  const double cos_theta = std::abs(s.params.wall_phi);
  for (std::size_t i = 0; i < pressures_pa.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    DisplacementPoint point;
    point.pc_pa = pressures_pa[i];
    point.saturation_quasi_static = i < quasi_static.size() ? quasi_static[i] : 0.0;
    const double pc = pressures_pa[i] / pa_per_lattice;  // lattice pressure
    const double meniscus = pc > 0 ? 2 * sigma * cos_theta / pc : 0;
    if (pc > 0 && meniscus < min_meniscus_voxels) {
      char b[200];
      std::snprintf(b, sizeof b, "not held: its menisci would be %.2g voxels across, inside the model's interface (about 4)",
                    2 * meniscus);
      point.note = b;
      out.push_back(point);
      if (observer && comm.root()) observer->displacement_point(curve, out.back(), i + 1, pressures_pa.size());
      continue;
    }
    float g[2][3] = {};
    g[0][axis] = g[1][axis] = static_cast<float>(pc / length);  // the pull over the domain's length: pc
    model.set_force(g);
    const std::string label = curve + " Pc " + kpa(point.pc_pa);
    const auto progress = [&](std::int64_t step, const solve::DisplacementProbe& p) {
      if (!observer || !comm.root()) return;
      ColourFlowProgress shown;
      shown.label = label;
      shown.step = step;
      shown.saturation = p.saturation;
      shown.displacement = true;
      shown.capillary_number = nu_w * std::abs(p.velocity) / sigma;
      observer->colour_flow_progress(shown);
    };
    const solve::DisplacementLevel level = solve::hold_pressure(model, controls, probe, progress, stop_all);
    point.saturation = level.saturation;
    point.steps = level.steps;
    point.settled = level.settled;
    point.capillary_number = nu_w * level.peak_velocity / sigma;
    point.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (level.not_finite) point.note = "the flow became NaN or infinite after " + std::to_string(level.steps) + " steps";
    else if (level.stopped) point.note = "stopped after " + std::to_string(level.steps) + " steps: S_w as it stood";
    else if (!level.settled)
      point.note = "did not settle in " + std::to_string(level.steps) + " steps: S_w as it stood";
    point.stopped = level.stopped;
    out.push_back(point);
    if (observer && comm.root()) observer->displacement_point(curve, out.back(), i + 1, pressures_pa.size());
    if (level.not_finite) {
      s.note = "the displacement stopped at " + label + ": " + point.note;
      break;
    }
    if (level.stopped) break;
  }
  return out;
}

}  // namespace rockperm::pipeline
