#include "pipeline/report.hpp"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/atomic_file.hpp"
#include "pipeline/report_html.hpp"
#include "pipeline/report_json.hpp"

namespace rockperm::pipeline {

namespace {
std::string quoted_csv(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
// JSON has no infinity: an unknown estimate is null
nlohmann::ordered_json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}
}  // namespace

std::string verdict(const SampleResult& r) {
  std::ostringstream o;
  if (r.steps == 0) return std::string(to_string(r.status)) + ": " + r.message;
  o << "k = " << std::setprecision(5) << r.k.k_md;
  if (std::isfinite(r.error_estimate)) o << " ± " << std::setprecision(2) << r.error_estimate * std::abs(r.k.k_md);
  o << " mD (" << to_string(r.status) << ")";
  if (r.resolution.done) {  // the discretisation error beside the convergence error
    o << "; at zero voxel size k ≈ " << std::setprecision(5) << r.resolution.k_extrapolated_md << " mD (discretisation "
      << std::setprecision(2) << 100.0 * r.resolution.discretisation_error << " %, from the "
      << (r.resolution.k_coarser_md ? "2x and 4x coarser samples" : "2x coarser sample")
      << (r.resolution.asymptotic ? "" : ", the order unconfirmed") << ")";
  } else if (r.resolution.asked) {
    o << "; resolution study " << r.resolution.note;
  }
  if (r.status == RunStatus::not_converged) {
    o << ", the flux through the planes still differs by " << std::setprecision(2) << 100.0 * r.flux_nonuniformity
      << " %";
  }
  o << "; " << std::setprecision(2) << std::fixed << 100.0 * r.narrow_flow_fraction << std::defaultfloat
    << " % of the flow passes pores narrower than 3 voxels";
  if (r.narrow_flow_fraction > narrow_flow_limit) o << ", where k is under-resolved: a finer scan would change it";
  const double apart = interior_difference(r);
  const double stated = std::isfinite(r.error_estimate) ? r.error_estimate : r.tolerance;
  if (apart != 0 && std::abs(apart) > stated) {
    o << "; the interior (the middle ~70 % along the flow) gives " << std::setprecision(5) << r.k_interior_md
      << " mD, " << std::showpos << std::setprecision(2) << 100.0 * apart << std::noshowpos
      << " % off the whole sample (" << (std::abs(apart) > 0.1 ? "not representative along the flow" : "a check, not the answer")
      << ")";
  }
  const double h0 = r.k_halves_md[0], h1 = r.k_halves_md[1];
  if (h0 > 0 && h1 > 0 && std::abs(h0 - h1) > 0.2 * 0.5 * (h0 + h1)) {
    o << "; its two halves give " << std::setprecision(3) << h0 << " and " << h1
      << " mD: smaller than a representative volume";
  }
  return o.str();
}

double interior_difference(const SampleResult& r) {
  return r.k_interior_md > 0 && r.k.k_md > 0 ? r.k_interior_md / r.k.k_md - 1.0 : 0.0;
}

std::uint64_t GreyReport::voxels() const {
  std::uint64_t n = 0;
  for (const GreyPhaseReport& g : phases) n += g.voxels;
  return n;
}

std::uint64_t GreyReport::connected() const {
  std::uint64_t n = 0;
  for (const GreyPhaseReport& g : phases) n += g.connected;
  return n;
}

double GreyReport::subresolution_porosity(std::uint64_t sample_voxels) const {
  double pore = 0;
  for (const GreyPhaseReport& g : phases) pore += g.porosity * static_cast<double>(g.voxels);
  return sample_voxels ? pore / static_cast<double>(sample_voxels) : 0.0;
}

Porosities porosities(const geometry::PercolationReport& percolation, const std::vector<GreyPhaseReport>& grey) {
  const auto voxels = static_cast<double>(percolation.voxels);
  std::uint64_t grey_before = 0, grey_after = 0;
  double own_before = 0, own_after = 0;  // the grey phases' own pore volume
  for (const GreyPhaseReport& g : grey) {
    grey_before += g.voxels;
    grey_after += g.connected;
    own_before += g.porosity * static_cast<double>(g.voxels);
    own_after += g.porosity * static_cast<double>(g.connected);
  }
  Porosities p;
  p.resolved = static_cast<double>(percolation.pore - grey_before) / voxels;
  p.connected = static_cast<double>(percolation.connected - grey_after) / voxels;
  p.total = p.resolved + own_before / voxels;
  p.connected_total = p.connected + own_after / voxels;
  return p;
}

double SampleResult::porosity() const { return porosities(percolation, grey.phases).resolved; }
double SampleResult::connected_porosity() const { return porosities(percolation, grey.phases).connected; }
double SampleResult::total_porosity() const { return porosities(percolation, grey.phases).total; }
double SampleResult::connected_total_porosity() const { return porosities(percolation, grey.phases).connected_total; }

InputRecord input_record(const SampleResult& r) {
  const Provenance& p = r.provenance;
  return InputRecord{r.input.path.string(), r.input.format,  r.input.bytes,       p.input_sha256,
                     p.pore_labels,         p.crop,          p.percolation_filter};
}

nlohmann::ordered_json input_json(const InputRecord& in) {
  return {{"path", in.path},       {"format", in.format}, {"bytes", in.bytes},
          {"sha256", in.sha256},   {"pore_labels", in.pore_labels}, {"crop", in.crop},
          {"percolation_filter", in.percolation_filter}};
}

std::optional<InputRecord> read_input_record(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  try {
    return InputRecord{j.value("path", ""),        j.value("format", ""), j.value("bytes", std::uint64_t{0}),
                       j.value("sha256", ""),      j.value("pore_labels", ""), j.value("crop", ""),
                       j.value("percolation_filter", true)};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

nlohmann::ordered_json two_phase_json(const TwoPhaseReport& t) {
  using nlohmann::ordered_json;
  const auto finite = [](double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); };
  const auto curve = [&](const std::vector<CapillaryPoint>& c) {
    ordered_json pc = ordered_json::array(), radius = ordered_json::array(), sw = ordered_json::array(),
                 j = ordered_json::array(), resolved = ordered_json::array();
    for (const CapillaryPoint& p : c) {
      resolved.push_back(p.resolved);
      pc.push_back(p.pc_pa);
      radius.push_back(p.radius_um);
      sw.push_back(p.saturation);
      j.push_back(p.leverett_j > 0 ? ordered_json(p.leverett_j) : ordered_json(nullptr));
    }
    return ordered_json{{"pc_Pa", pc}, {"radius_um", radius}, {"saturation_wetting", sw}, {"leverett_j", j},
                        {"resolved", resolved}};
  };
  const auto phase = [&](const PhaseFlow& f) {
    return ordered_json{{"solved", f.solved},
                        {"converged", f.solved && f.converged},
                        {"spans", f.spans},
                        {"k_mD", f.solved ? ordered_json(f.k_md) : ordered_json(nullptr)},
                        {"kr", f.solved ? ordered_json(f.kr) : ordered_json(nullptr)},
                        {"kr_error", f.solved ? finite(f.kr_error) : ordered_json(nullptr)},
                        {"steps", f.steps},
                        {"seconds", f.seconds},
                        {"note", f.note}};
  };
  const auto flow = [&](const ColourFlowPoint& f) -> ordered_json {
    if (!f.asked) return nullptr;
    const auto made = [&](double v) { return f.solved ? finite(v) : ordered_json(nullptr); };
    return ordered_json{{"method", "colour-gradient two-phase flow (both phases driven alike, periodic along the flow)"},
                        {"solved", f.solved},
                        {"converged", f.solved && f.converged},
                        {"kr_w", made(f.kr_w)},
                        {"kr_w_error", made(f.kr_w_error)},
                        {"kr_n", made(f.kr_n)},
                        {"kr_n_error", made(f.kr_n_error)},
                        {"saturation_wetting", f.saturation},
                        {"saturation_wetting_start", f.saturation_start},
                        {"start", f.start},
                        {"capillary_number", f.capillary_number},
                        {"viscosity_ratio", f.viscosity_ratio},
                        {"wetting_spans", f.wetting_spans},
                        {"nonwetting_spans", f.nonwetting_spans},
                        {"flux_spread_wetting", f.flux_spread_w},
                        {"flux_spread_nonwetting", f.flux_spread_n},
                        {"fastest_lattice_speed", f.fastest},
                        {"flags", f.flags},
                        {"steps", f.steps},
                        {"seconds", f.seconds},
                        {"backend", f.backend},
                        {"note", f.note},
                        {"phase_field", f.field.empty() ? ordered_json(nullptr) : ordered_json(f.field)}};
  };
  ordered_json points = ordered_json::array();
  for (const RelPermPoint& p : t.relperm) {
    points.push_back({{"curve", p.curve},
                      {"point", p.point},
                      {"pc_Pa", p.pc_pa},
                      {"saturation_wetting", p.saturation},
                      {"saturation_asked", p.target >= 0 ? ordered_json(p.target) : ordered_json(nullptr)},
                      {"wetting", phase(p.wetting)},
                      {"nonwetting", phase(p.nonwetting)},
                      {"flow", flow(p.flow)},
                      {"phase_field", p.field.empty() ? ordered_json(nullptr) : ordered_json(p.field)}});
  }
  ordered_json wetting_labels = ordered_json::array();
  for (const auto& w : t.wetting_labels) {
    wetting_labels.push_back({{"label", w.label}, {"theta_deg", w.theta_deg}, {"solid_voxels", w.solid_voxels}});
  }
  const DisplacementReport& d = t.displacement;
  const auto held = [&](const std::vector<DisplacementPoint>& points) {
    ordered_json out = ordered_json::array();
    for (const DisplacementPoint& p : points) {
      out.push_back({{"pc_Pa", p.pc_pa},
                     {"saturation_wetting", p.steps > 0 ? ordered_json(p.saturation) : ordered_json(nullptr)},
                     {"saturation_quasi_static", p.saturation_quasi_static},
                     {"settled", p.settled},
                     {"capillary_number", p.capillary_number},
                     {"steps", p.steps},
                     {"seconds", p.seconds},
                     {"note", p.note}});
    }
    return out;
  };
  const ordered_json displacement =
      !d.asked ? ordered_json(nullptr)
               : ordered_json{{"method", "colour-gradient two-phase flow: the sample between a non-wetting reservoir at "
                                         "the inlet and a wetting one at the outlet, each pressure a body force whose pull "
                                         "over the periodic domain is the capillary pressure, held until S_w settles"},
                              {"done", d.done},
                              {"note", d.note},
                              {"flags", d.flags},
                              {"backend", d.backend},
                              {"reservoir_planes", d.reservoir_planes},
                              {"settle", d.settle},
                              {"window_steps", d.window},
                              {"seconds", d.seconds},
                              {"drainage", held(d.drainage)},
                              {"imbibition", d.imbibition.empty() ? ordered_json(nullptr) : held(d.imbibition)}};
  return {{"done", t.done},
          {"note", t.note},
          {"method", "pore morphology (Hilpert & Miller 2001; contact angle: Schulz et al. 2015); k_r quasi-static, "
                     "the other phase a no-slip wall"},
          {"fluids", t.fluids},
          {"sigma_N_per_m", t.sigma_n_per_m},
          {"theta_deg", t.theta_deg},
          {"theta_wetting_deg", t.theta_wetting_deg},
          {"wetting_labels", wetting_labels},
          {"wall_wetting", t.wall_wetting},
          {"entry_faces", t.entry},
          {"wetting_trapping", t.trapping},
          {"entry_pressure_Pa", t.entry_pressure_pa},
          {"breakthrough_pressure_Pa", t.breakthrough_pressure_pa > 0 ? ordered_json(t.breakthrough_pressure_pa) : ordered_json(nullptr)},
          {"pore_voxels", t.pore_voxels},
          {"drainage", curve(t.drainage)},
          {"imbibition", t.imbibition.empty() ? ordered_json(nullptr) : curve(t.imbibition)},
          {"residual_wetting_saturation", t.residual_wetting},
          {"residual_nonwetting_saturation", t.imbibition.empty() ? ordered_json(nullptr) : ordered_json(t.residual_nonwetting)},
          {"k_mD", t.k_md > 0 ? ordered_json(t.k_md) : ordered_json(nullptr)},
          {"relative_permeability", points},
          {"displacement", displacement},
          {"morphology_seconds", t.morphology_seconds},
          {"relperm_seconds", t.relperm_seconds}};
}

nlohmann::ordered_json forchheimer_json(const ForchheimerReport& f) {
  using nlohmann::ordered_json;
  ordered_json re = ordered_json::array(), re_k = ordered_json::array(), x = ordered_json::array(),
               k = ordered_json::array(), ratio = ordered_json::array(), error = ordered_json::array(),
               mach = ordered_json::array(), tau = ordered_json::array(), force = ordered_json::array(),
               steps = ordered_json::array(), converged = ordered_json::array(), fo = ordered_json::array(),
               lattice = ordered_json::array();
  const double k_fit_m2 = f.fit.k_md * 1e-3 * physics::m2_per_darcy;
  for (const ForchheimerPoint& p : f.points) {
    re.push_back(p.reynolds);
    re_k.push_back(p.reynolds_k);
    x.push_back(p.inertial_per_m);
    k.push_back(p.k_md);
    ratio.push_back(p.k_ratio);
    error.push_back(finite_or_null(p.error));
    lattice.push_back(p.lattice_error);
    mach.push_back(p.mach);
    tau.push_back(p.tau);
    force.push_back(p.force);
    steps.push_back(p.steps);
    converged.push_back(p.converged);
    fo.push_back(f.fit.done ? ordered_json(k_fit_m2 * f.fit.beta_per_m * p.inertial_per_m) : ordered_json(nullptr));
  }
  ordered_json fit = nullptr;
  if (f.fit.done) {
    fit = {{"k_mD", f.fit.k_md},
           {"beta_per_m", f.fit.beta_per_m},
           {"c_F", f.fit.c_f},
           {"residual", f.fit.residual},
           {"points", {f.fit.first, f.fit.last}},
           {"reynolds_range", {f.points[f.fit.first].reynolds, f.points[f.fit.last].reynolds}}};
  }
  return {{"done", f.done},
          {"note", f.note},
          {"method", "rate sweep from the creeping state; Forchheimer's law 1/k_app = 1/k + beta rho q / mu fitted "
                     "(least squares) over the points past a 1 % fall of k_app"},
          {"reynolds_definition", "Re = rho (q / phi) d / mu, d = 4 phi / S (the pore surface per volume S: the voxel "
                                  "faces' count times 2/3); reynolds_k = rho q sqrt(k_app) / mu"},
          {"pore_diameter_um", f.pore_diameter_um},
          {"k_mD", f.k_md},
          {"points", {{"reynolds", re},
                      {"reynolds_k", re_k},
                      {"rho_q_over_mu_per_m", x},
                      {"k_app_mD", k},
                      {"k_app_over_k", ratio},
                      {"k_app_error", error},
                      {"k_app_lattice_error", lattice},
                      {"forchheimer_number", fo},
                      {"mach", mach},
                      {"tau", tau},
                      {"force_lattice", force},
                      {"steps", steps},
                      {"converged", converged}}},
          {"fit", fit},
          {"reynolds_1pct", finite_or_null(f.reynolds_1pct)},
          {"reynolds_10pct", finite_or_null(f.reynolds_10pct)},
          {"steps", f.steps},
          {"seconds", f.seconds}};
}

std::string to_json(const SampleResult& r) {
  using nlohmann::ordered_json;
  const physics::Permeability& k = r.k;
  const FlowSpec& f = r.flow;
  const Provenance& p = r.provenance;
  const bool solved = r.steps > 0;  // k and the flow figures exist once a check was made
  ordered_json warnings = ordered_json::array();
  for (const Warning& w : r.warnings) {
    warnings.push_back({{"code", w.code}, {"message", w.message}, {"value", w.value}, {"field", w.field}});
  }
  ordered_json j;
  j["sample"] = r.input.name;
  j["status"] = to_string(r.status);
  j["message"] = r.message;
  if (!r.reason.empty()) j["reason"] = r.reason;
  j["converged"] = r.converged();
  j["permeability"] = solved ? ordered_json{{"mD", k.k_md}, {"darcy", k.k_darcy}, {"m2", k.k_m2},
                                             {"lattice_voxel2", k.k_lattice}}
                             : ordered_json(nullptr);
  j["porosity"] = r.porosity();
  j["connected_porosity"] = r.connected_porosity();
  j["total_porosity"] = r.total_porosity();
  j["removed_pore_fraction"] = r.percolation.removed_fraction();
  if (r.grey.any()) {  // sub-resolution porous phases (docs/ACCURACY.md, "Grey voxels")
    ordered_json phases = ordered_json::array();
    const double voxels = static_cast<double>(r.percolation.voxels);
    for (const GreyPhaseReport& g : r.grey.phases) {
      phases.push_back({{"labels", g.labels},
                        {"porosity", g.porosity},
                        {"k_mD", g.permeability_m2 / physics::m2_per_darcy * 1e3},
                        {"k_lattice_voxel2", g.permeability_voxel2},
                        {"voxel_fraction", static_cast<double>(g.voxels) / voxels},
                        {"connected_voxel_fraction", static_cast<double>(g.connected) / voxels}});
    }
    const double sub = r.grey.subresolution_porosity(r.percolation.voxels);
    j["grey"] = {{"phases", phases},
                 {"flow_fraction", r.grey.flow_fraction},
                 {"subresolution_porosity", sub},
                 {"total_porosity", r.total_porosity()}};
    if (!r.grey.map.empty()) j["grey"]["map"] = {{"intensities", r.grey.map}, {"law", r.grey.law}};
    if (r.grey.without_asked) {
      j["grey"]["without_grey"] = {
          {"k_mD", r.grey.without_done ? ordered_json(r.grey.k_without_md) : ordered_json(nullptr)},
          {"note", r.grey.without_note},
          {"steps", r.grey.without_steps},
          {"seconds", r.grey.without_seconds}};
    }
  }
  j["tortuosity"] = k.tortuosity;
  j["steps"] = r.steps;
  j["extrapolations"] = r.extrapolations;
  j["start"] = {{"method", r.start.method},
                {"done", r.start.done},
                {"iterations", r.start.iterations},
                {"residual", r.start.residual},
                {"seconds", r.start.seconds},
                {"device", r.start.device},
                {"setup_seconds", r.start.setup_seconds},
                {"note", r.start.note},
                {"corrections", r.start.corrections},
                {"correction_seconds", r.start.correction_seconds},
                {"correction_scale", r.start.correction_scale},
                {"correction_size", r.start.correction_size},
                {"correction_converged", r.start.correction_converged},
                {"correction_error_floor", r.start.correction_error_floor}};
  j["k_error_estimate"] = finite_or_null(r.error_estimate);
  j["k_error_estimate_mD"] = solved ? finite_or_null(r.error_estimate * k.k_md) : ordered_json(nullptr);
  j["flux_nonuniformity"] = r.flux_nonuniformity;
  j["relative_change"] = r.relative_change;
  j["tolerance"] = r.tolerance;
  j["flux_tolerance"] = r.flux_tolerance;
  ordered_json halves = nullptr;
  if (r.k_halves_md[0] > 0 && r.k_halves_md[1] > 0) halves = {r.k_halves_md[0], r.k_halves_md[1]};
  j["trust"] = {{"verdict", verdict(r)},
                {"k_error_estimate", finite_or_null(r.error_estimate)},
                {"flux_nonuniformity", r.flux_nonuniformity},
                {"mach", k.mach},
                {"reynolds", k.reynolds},
                {"pore_width_fraction",
                 {{"under_3_voxels", r.width_fraction[0]},
                  {"3_to_5_voxels", r.width_fraction[1]},
                  {"5_to_10_voxels", r.width_fraction[2]},
                  {"10_voxels_and_over", r.width_fraction[3]}}},
                {"flow_fraction_under_3_voxels", r.narrow_flow_fraction},
                {"k_halves_mD", halves},
                {"k_interior_mD", r.k_interior_md > 0 ? ordered_json(r.k_interior_md) : ordered_json(nullptr)},
                {"interior_difference", r.k_interior_md > 0 ? ordered_json(interior_difference(r)) : ordered_json(nullptr)}};
  if (r.resolution.asked) {
    const ResolutionStudy& rs = r.resolution;
    j["resolution"] = {{"done", rs.done},
                       {"note", rs.note},
                       {"k_coarse_mD", rs.done ? ordered_json(rs.k_coarse_md) : ordered_json(nullptr)},
                       {"k_coarser_mD", rs.k_coarser_md ? ordered_json(*rs.k_coarser_md) : ordered_json(nullptr)},
                       {"asymptotic", rs.asymptotic},
                       {"k_extrapolated_mD", rs.done ? ordered_json(rs.k_extrapolated_md) : ordered_json(nullptr)},
                       {"discretisation_error", rs.done ? ordered_json(rs.discretisation_error) : ordered_json(nullptr)},
                       {"order", rs.order},
                       {"coarse_steps", rs.coarse_steps},
                       {"seconds", rs.coarse_seconds}};
  }
  if (r.conduction.asked) {
    const ConductionReport& c = r.conduction;
    const auto value = [&](double v) { return c.done ? ordered_json(v) : ordered_json(nullptr); };
    j["conduction"] = {{"done", c.done},
                       {"converged", c.converged},
                       {"note", c.note},
                       {"formation_factor", value(c.formation_factor)},
                       {"formation_factor_error", value(c.error)},
                       {"formation_factor_interior",
                        c.done && c.formation_factor_interior > 0 ? ordered_json(c.formation_factor_interior) : ordered_json(nullptr)},
                       {"porosity", value(c.porosity)},
                       {"tortuosity_factor", value(c.tortuosity_factor)},
                       {"cementation_exponent", value(c.cementation_exponent)},
                       {"grey_cementation", c.grey_cementation},
                       {"grey_phase_cementation", c.grey_phase_cementation},
                       {"iterations", c.iterations},
                       {"seconds", c.seconds},
                       {"setup_seconds", c.setup_seconds},
                       {"device", c.device}};
  }
  if (r.two_phase.asked) j["two_phase"] = two_phase_json(r.two_phase);
  if (r.forchheimer.asked) j["forchheimer"] = forchheimer_json(r.forchheimer);
  j["mass_drift"] = r.mass_drift;
  j["reynolds"] = k.reynolds;
  j["mach"] = k.mach;
  j["darcy_velocity_lattice"] = k.darcy_velocity;
  j["mean_velocity_lattice"] = r.mean_velocity;
  nlohmann::ordered_json steps = nlohmann::ordered_json::array(), ks = nlohmann::ordered_json::array();
  for (const auto& [step, k] : r.history_md) {
    steps.push_back(step);
    ks.push_back(k);
  }
  j["history"] = {{"step", steps}, {"k_mD", ks}};
  j["input"] = input_json(input_record(r));
  j["geometry"] = {{"dims", {r.dims.nx, r.dims.ny, r.dims.nz}},
                   {"sample_dims", {r.sample_dims.nx, r.sample_dims.ny, r.sample_dims.nz}},
                   {"voxel_size_um", r.voxel_size_um},
                   {"voxels", r.dims.voxels()},
                   {"fluid_cells", r.fluid_cells},
                   {"flow_axis", std::string(1, "xyz"[f.flow_axis])},
                   {"lateral", f.any_lateral_periodic() ? "periodic" : "sealed"},
                   {"inlet_outlet", to_string(f.inlet_outlet)},
                   {"buffer_layers", f.buffer_layers},
                   {"edge_contacts", to_string(f.edge_contacts)},
                   {"drive_ratio", r.drive.acceleration / f.force},
                   {"drive_ratio_interior", r.drive.has_interior() ? ordered_json(r.drive.interior_acceleration / f.force)
                                                                   : ordered_json(nullptr)},
                   {"interior_margin_planes", r.drive.interior.margin}};
  j["model"] = {{"collision", name_in(physics::collision_names, f.collision)},
                {"tau", f.tau},
                {"tau_choice", f.auto_tau ? "auto" : "given"},
                {"magic", f.magic},
                {"force_lattice", f.force},
                {"force_choice", f.auto_force ? "auto" : "given"},
                {"force_adjustments", r.drive_adjustments}};
  j["pore_space"] = {{"specific_surface_per_voxel", r.pores.specific_surface},
                     {"hydraulic_diameter_voxels", r.pores.hydraulic_diameter},
                     {"kozeny_carman_k_voxel2", r.pores.kozeny_carman_k}};
  j["performance"] = {{"backend", r.performance.backend},
                      {"propagation", to_string(r.performance.propagation)},
                      {"ranks", r.performance.ranks},
                      {"mflups", r.performance.mflups},
                      {"bytes_per_fluid_cell", r.performance.bytes_per_cell},
                      {"read_seconds", r.timings.read},
                      {"percolation_seconds", r.timings.percolation},
                      {"pore_analysis_seconds", r.timings.pore_analysis},
                      {"hash_seconds", r.timings.hash},
                      {"setup_seconds", r.timings.setup},
                      {"lattice_seconds", r.timings.lattice},
                      {"backend_seconds", r.timings.backend},
                      {"solve_seconds", r.timings.solve},
                      {"finish_seconds", r.timings.finish},
                      {"mpi_seconds", r.performance.mpi_seconds},
                      {"checkpoints", r.performance.checkpoints},
                      {"checkpoint_seconds", r.performance.checkpoint_seconds},
                      {"host_peak_bytes_at_ready", r.performance.host_peak_ready},
                      {"host_peak_bytes_at_ready_largest_rank", r.performance.host_peak_ready_rank},
                      {"host_peak_bytes", r.performance.host_peak},
                      {"host_peak_bytes_largest_rank", r.performance.host_peak_rank}};
  j["provenance"] = {{"version", p.version},   {"commit", p.commit}, {"build_type", p.build_type},
                     {"date_utc", p.date_utc}, {"host", p.host},     {"command_line", p.command_line},
                     {"ranks", p.ranks},       {"devices", p.devices}, {"resumed", p.resumed},
                     {"checkpoint", r.checkpoint.string()}};
  j["warnings"] = warnings;
  // file names and messages may hold bytes that are not UTF-8 (a Latin-1 name): replace them
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

namespace {
std::string joined_warnings(const SampleResult& r) {
  std::string codes;
  for (const Warning& w : r.warnings) codes += (codes.empty() ? "" : ";") + w.code;
  return codes;
}
}  // namespace

std::string csv_header() {
  return "sample,path,status,k_mD,k_m2,porosity,connected_porosity,tortuosity,steps,k_error_estimate,flux_nonuniformity,reynolds,mach,"
         "flow_axis,voxel_size_um,collision,tau,force,inlet_outlet,warnings,mflups,backend,version,sha256,message,"
         "formation_factor,formation_factor_error,cementation_exponent,entry_pressure_Pa,breakthrough_pressure_Pa,"
         "residual_wetting_saturation,residual_nonwetting_saturation,forchheimer_k_mD,forchheimer_beta_per_m,"
         "forchheimer_c_F,reynolds_1pct,reynolds_10pct\r\n";
}

std::string to_csv_row(const SampleResult& r) {
  const physics::Permeability& k = r.k;
  const bool solved = r.steps > 0;
  std::ostringstream o;
  o << std::setprecision(10) << quoted_csv(r.input.name) << ',' << quoted_csv(r.input.path.string()) << ','
    << to_string(r.status) << ',';
  if (solved) o << k.k_md << ',' << k.k_m2;
  else o << ',';
  o << ',' << r.porosity() << ',' << r.connected_porosity() << ',' << k.tortuosity
    << ',' << r.steps << ',';
  if (std::isfinite(r.error_estimate)) o << r.error_estimate;
  o << ',' << r.flux_nonuniformity << ',' << k.reynolds << ',' << k.mach << ','
    << "xyz"[r.flow.flow_axis] << ',' << r.voxel_size_um << ','
    << name_in(physics::collision_names, r.flow.collision) << ',' << r.flow.tau << ','
    << r.flow.force << ',' << to_string(r.flow.inlet_outlet) << ',' << quoted_csv(joined_warnings(r)) << ','
    << r.performance.mflups << ',' << quoted_csv(r.performance.backend) << ',' << quoted_csv(r.provenance.version)
    << ',' << r.provenance.input_sha256 << ',' << quoted_csv(r.message) << ',';
  if (r.conduction.done) o << r.conduction.formation_factor << ',' << r.conduction.error << ',' << r.conduction.cementation_exponent;
  else o << ",,";
  const TwoPhaseReport& t = r.two_phase;
  o << ',';
  if (t.done) o << t.entry_pressure_pa;
  o << ',';
  if (t.done && t.breakthrough_pressure_pa > 0) o << t.breakthrough_pressure_pa;
  o << ',';
  if (t.done) o << t.residual_wetting;
  o << ',';
  if (t.done && !t.imbibition.empty()) o << t.residual_nonwetting;
  const ForchheimerReport& fh = r.forchheimer;
  o << ',';
  if (fh.fit.done) o << fh.fit.k_md << ',' << fh.fit.beta_per_m << ',' << fh.fit.c_f;
  else o << ",,";
  o << ',';
  if (std::isfinite(fh.reynolds_1pct) && fh.done) o << fh.reynolds_1pct;
  o << ',';
  if (std::isfinite(fh.reynolds_10pct) && fh.done) o << fh.reynolds_10pct;
  o << "\r\n";
  return o.str();
}

void write_reports(const std::filesystem::path& dir, const SampleResult& result) {
  io::ensure_directory(dir);
  io::write_file_atomically(dir / "report.csv", csv_header() + to_csv_row(result));
  io::write_file_atomically(dir / "report.html", to_html(result));
  io::write_file_atomically(dir / "report.json", to_json(result));
}

}  // namespace rockperm::pipeline
