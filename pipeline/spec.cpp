#include "pipeline/spec.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "lib/base/error.hpp"
#include "pipeline/result.hpp"

namespace rockperm::pipeline {

const char* to_string(BackendChoice b) { return name_in(backend_names, b); }

const char* to_string(PropagationChoice p) { return name_in(propagation_names, p); }

const char* to_string(StorageChoice s) { return name_in(storage_names, s); }

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::converged: return "converged";
    case RunStatus::not_converged: return "not_converged";
    case RunStatus::diverged: return "diverged";
    case RunStatus::interrupted: return "interrupted";
    case RunStatus::input_error: return "input_error";
    case RunStatus::output_error: return "output_error";
    case RunStatus::invalid_physics: return "invalid_physics";
    case RunStatus::runtime_error: return "runtime_error";
  }
  return "?";
}

std::optional<RunStatus> parse_status(const std::string& text) {
  for (const RunStatus s : {RunStatus::converged, RunStatus::not_converged, RunStatus::diverged, RunStatus::interrupted,
                            RunStatus::input_error, RunStatus::output_error, RunStatus::invalid_physics,
                            RunStatus::runtime_error}) {
    if (text == to_string(s)) return s;
  }
  return std::nullopt;
}

int exit_code(RunStatus s) {
  switch (s) {
    case RunStatus::converged: return 0;
    case RunStatus::not_converged: return exit_not_converged;
    case RunStatus::diverged: return SimulationError("").exit_code();
    case RunStatus::interrupted: return exit_interrupted;
    case RunStatus::input_error: return InputError("").exit_code();
    case RunStatus::output_error: return OutputError("").exit_code();
    case RunStatus::invalid_physics: return PhysicsError("").exit_code();
    case RunStatus::runtime_error: return RuntimeFailure("").exit_code();
  }
  return 1;
}

RunStatus status_of(const Error& e) {
  switch (e.exit_code()) {
    case 2: return RunStatus::input_error;
    case 3: return RunStatus::diverged;
    case 7: return RunStatus::output_error;
    case 8: return RunStatus::invalid_physics;
    default: return RunStatus::runtime_error;
  }
}

geometry::Periodicity FlowSpec::periodicity() const {
  geometry::Periodicity p = lateral_periodic;
  p[flow_axis] = true;  // driven by a body force: periodic along the flow
  return p;
}

bool FlowSpec::any_lateral_periodic() const {
  for (int a = 0; a < 3; ++a) {
    if (a != flow_axis && lateral_periodic[a]) return true;
  }
  return false;
}

namespace {

// Written so that NaN fails: !(lo <= v && v <= hi).
bool within(double v, double lo, double hi) { return lo <= v && v <= hi; }

std::string range(double lo, double hi) {
  std::ostringstream o;
  o << "[" << lo << ", " << hi << "]";
  return o.str();
}

}  // namespace

void SampleSpec::validate() const {
  const double um = volume.voxel_size_um;
  if (um != 0 && !within(um, io::min_voxel_um, io::max_voxel_um)) {
    throw InputError("sample.volume.voxel_size_um",
                     "the voxel size must be in " + range(io::min_voxel_um, io::max_voxel_um) +
                         " micrometres (0.1 nm to 10 cm), or 0 to take it from the header");
  }
  grey_map.validate();
  if (grey_map.enabled() && !grey_phases.empty()) {
    throw InputError("sample.grey_map", "grey phases come either from labels (input.grey_labels) or from intensities "
                                        "(input.grey_map); give one of them");
  }
  const std::string pore = pore_labels.str();
  if (grey_map.enabled() && pore != "0" && pore != grey_map.pore_side().str()) {
    throw InputError("sample.pore_labels", "with input.grey_map the open pore is the intensities " +
                                               grey_map.pore_side().str() + " (the map's pore end and beyond); leave "
                                               "input.pore_labels out");
  }
}

std::vector<geometry::GreyPhase> SampleSpec::grey() const {
  return grey_map.enabled() ? grey_map.phases() : grey_phases;
}

geometry::LabelSelection SampleSpec::open_labels() const {
  return grey_map.enabled() ? grey_map.pore_side() : pore_labels;
}

void FlowSpec::validate() const {
  if (collision == physics::CollisionModel::bgk && !auto_tau && std::abs(tau - 1.0) > 1e-12) {
    throw PhysicsError("BGK puts the bounce-back wall at a place that moves with tau, so its k depends on tau "
                       "(+83 % at tau = 2 on a sphere pack): use TRT, or BGK with tau = 1");
  }
  if (!auto_tau && !(tau > 0.5 && tau < 100.0)) {
    throw InputError("flow.tau", "tau = " + std::to_string(tau) +
                                     " must be in (0.5, 100), or leave it to rockperm (auto: the fastest for the sample)");
  }
  if (!(magic > 0 && magic <= 100)) {
    throw InputError("flow.magic", "the TRT magic parameter must be in (0, 100] (3/16 is the default)");
  }
  if (!auto_force && !(force > 0 && force <= 0.1)) {
    throw InputError("flow.force", "the body force must be in (0, 0.1] voxel/step^2 (creeping flow needs about "
                                   "1e-6 to 1e-4), or auto");
  }
  if (flow_axis < 0 || flow_axis > 2) throw InputError("flow.flow_axis", "the flow axis must be x, y or z");
  if (inlet_outlet == geometry::InletOutlet::buffer && buffer_layers < 1) {
    throw InputError("flow.buffer_layers", "buffer mode needs at least one buffer layer");
  }
  if (buffer_layers < 0 || buffer_layers > max_buffer_layers) {
    throw InputError("flow.buffer_layers", "the buffer layers must be 0 to " + std::to_string(max_buffer_layers) +
                                               " (each side; 10 is the default)");
  }
  if (grey_permeability.size() > static_cast<std::size_t>(physics::max_grey_phases)) {
    throw InputError("sample.grey_labels", "at most " + std::to_string(physics::max_grey_phases) +
                                               " grey phases can be declared; merge labels of similar porosity and k");
  }
  for (const double k : grey_permeability) {
    if (!(k > 0 && std::isfinite(k))) {
      throw InputError("sample.grey_labels", "the permeability of a grey phase must be a positive number");
    }
  }
}

void ExecutionSpec::validate() const {
  if (max_steps < 1) throw InputError("execution.max_steps", "the step limit must be at least 1");
  if (!(gpu_memory_gib >= 0)) {
    throw InputError("execution.gpu_memory_gib", "the GPU memory to plan with must be 0 (all of it) or more GiB");
  }
  if (check_interval < 1) throw InputError("execution.check_interval", "the check interval must be at least 1 step");
  if (!(monitor.tolerance <= 0.5)) {
    throw InputError("execution.monitor.tolerance", "the tolerance must be at most 0.5 (a relative error of k)");
  }
  if (!monitor.auto_flux_tolerance && !(monitor.flux_tolerance <= 0.5)) {
    throw InputError("execution.monitor.flux_tolerance", "the flux tolerance must be at most 0.5 (a relative spread)");
  }
  if (!(monitor.tolerance >= 1e-9)) {
    throw InputError("execution.monitor.tolerance",
                     "float populations resolve k to about 1e-9 (relative) at best, so a tolerance below 1e-9 is "
                     "never met; use 1e-9 or more");
  }
  if (!monitor.auto_flux_tolerance && !(monitor.flux_tolerance >= 1e-9)) {
    throw InputError("execution.monitor.flux_tolerance",
                     "float populations resolve the flux through a plane to about 1e-9 (relative) at best; use "
                     "1e-9 or more");
  }
  if (checkpoint_interval < 0) throw InputError("execution.checkpoint_interval", "must not be negative");
  // a year of minutes is more than any allocation
  if (!within(checkpoint_minutes, 0, 525600)) {
    throw InputError("execution.checkpoint_minutes", "must be 0 (off) to 525600 minutes");
  }
  if (!within(walltime_minutes, 0, 525600)) {
    throw InputError("execution.walltime_minutes", "must be 0 (no limit) to 525600 minutes");
  }
  for (const int d : devices) {
    if (d < 0) throw InputError("execution.devices", "a device index must not be negative");
  }
}

void OutputSpec::validate() const {
  if (fields.stride < 1) throw InputError("output.fields.stride", "the field stride must be at least 1");
  if (!within(fields.viscosity_pa_s, 1e-9, 1e9)) {
    throw InputError("output.fields.viscosity_pa_s", "the viscosity must be in " + range(1e-9, 1e9) + " Pa s");
  }
  if (!within(fields.pressure_gradient_pa_per_m, 1e-9, 1e15)) {
    throw InputError("output.fields.pressure_gradient_pa_per_m",
                     "the pressure gradient must be in " + range(1e-9, 1e15) + " Pa/m");
  }
  for (int a = 0; a < 3; ++a) {
    if (fields.crop.offset[a] < 0 || fields.crop.size[a] < 0) {
      throw InputError("output.fields.crop", "the field crop's offset and size must not be negative");
    }
  }
  if (!within(progress_seconds, 0, 86400)) {
    throw InputError("output.progress_seconds", "the seconds between progress lines must be 0 (every check) or more");
  }
  if (dir.empty()) throw InputError("output.dir", "no run directory given");
}

double TwoPhaseSpec::sigma() const {
  return sigma_n_per_m > 0 ? sigma_n_per_m : fluids == Fluids::mercury ? 0.485 : 0.072;
}
double TwoPhaseSpec::theta() const { return theta_deg >= 0 ? theta_deg : fluids == Fluids::mercury ? 140.0 : 0.0; }
double TwoPhaseSpec::cos_wetting() const { return std::abs(std::cos(theta() * 3.14159265358979323846 / 180.0)); }
geometry::EntryFaces TwoPhaseSpec::entry_faces() const {
  return entry ? *entry : fluids == Fluids::mercury ? geometry::EntryFaces::all : geometry::EntryFaces::inlet;
}
bool TwoPhaseSpec::trap_wetting() const { return trapping ? *trapping : fluids != Fluids::mercury; }

void TwoPhaseSpec::validate() const {
  if (flow != Flow::off && !enabled()) {
    throw InputError("two_phase.flow", "two-phase flow runs at points of the capillary pressure curves: set "
                                       "capillary.curves to drainage or both");
  }
  if (displacement && !enabled()) {
    throw InputError("two_phase.displacement", "the displacement holds the pressures of the capillary pressure curves: "
                                               "set capillary.curves to drainage or both");
  }
  if (displacement_steps < 1000) {
    throw InputError("two_phase.displacement_steps", "give each pressure of the displacement at least 1000 steps (it "
                                                     "is held until its saturation moves less than 1e-3 in 4000)");
  }
  if (!enabled()) return;
  if (!(sigma_n_per_m >= 0) || !std::isfinite(sigma_n_per_m)) {  // 0: the fluids'
    throw InputError("two_phase.sigma", "the interfacial tension must be positive (N/m; brine/air 0.072, mercury 0.485)");
  }
  const double t = theta();
  if (!(t >= 0 && t < 180)) {
    throw InputError("two_phase.theta", "the contact angle must be in [0, 180) degrees (brine/air 0, mercury 140)");
  }
  if (std::abs(t - 90) < 1e-9 || cos_wetting() < 1e-3) {
    throw InputError("two_phase.theta", "a contact angle of 90 degrees has no capillary pressure (cos theta = 0): "
                                        "neither phase wets, and the morphology needs one that does; use an angle "
                                        "below 90 (through the wetting phase) or above it (through the invading one)");
  }
  if (pressures_pa.empty() && pressure_count < 2) {
    throw InputError("two_phase.pressures", "no pressures: give a list of capillary pressures (Pa) or a count of at least 2");
  }
  if (pressure_count > static_cast<int>(geometry::max_displacement_steps)) {
    throw InputError("two_phase.pressures", "at most " + std::to_string(geometry::max_displacement_steps) + " pressures");
  }
  for (std::size_t i = 0; i < pressures_pa.size(); ++i) {
    if (!(pressures_pa[i] > 0) || !std::isfinite(pressures_pa[i])) {
      throw InputError("two_phase.pressures", "capillary pressures must be positive (Pa)");
    }
    if (i > 0 && !(pressures_pa[i] > pressures_pa[i - 1])) {
      throw InputError("two_phase.pressures", "give the capillary pressures rising, each once (Pa)");
    }
  }
  for (const double s : relperm_saturations) {
    if (!(s > 0 && s < 1)) throw InputError("two_phase.relperm", "relative permeability saturations must be in (0, 1)");
  }
  if (!(relperm_tolerance >= 1e-9 && relperm_tolerance <= 0.1)) {
    throw InputError("two_phase.relperm_tolerance", "the relative permeabilities' tolerance must be in [1e-9, 0.1]");
  }
  if (relperm_points < 0 || relperm_points > 100) {
    throw InputError("two_phase.relperm", "the number of relative permeability points must be in [0, 100]");
  }
  if (flow != Flow::off || displacement) {
    if (flow != Flow::off && relperm_points == 0 && relperm_saturations.empty()) {
      throw InputError("two_phase.flow", "two-phase flow runs at the relative permeability points, and there are none: "
                                         "set capillary.relperm to a count or to saturations");
    }
    const double m = viscosity_ratio;
    const auto g = [](double v) {
      char b[32];
      std::snprintf(b, sizeof b, "%.3g", v);
      return std::string(b);
    };
    if (!(m > 0) || !std::isfinite(m) || m > max_viscosity_ratio || m < 1 / max_viscosity_ratio) {
      // the less viscous phase at tau 1, the other at 0.5 + ratio / 2 (or 0.5 + 1 / (2 ratio))
      const double tau = m > 0 && std::isfinite(m) ? 0.5 + 0.5 * std::max(m, 1 / m) : 0.0;
      throw InputError("two_phase.viscosity_ratio",
                       "the viscosity ratio mu_nw / mu_w must be positive and within [" + g(1 / max_viscosity_ratio) +
                           ", " + g(max_viscosity_ratio) + "]" +
                           (tau > 0 ? ": " + g(m) + " needs a relaxation time of " + g(tau) +
                                          " for the more viscous phase, beyond the 10.5 the lattice holds stably"
                                    : std::string()));
    }
    if (!(capillary_number >= 1e-6 && capillary_number <= 1e-2)) {
      throw InputError("two_phase.capillary_number",
                       "the capillary number of the drive must be in [1e-6, 1e-2] (1e-3 by default; below about 1e-4 "
                       "the model's spurious currents are as fast as the flow)");
    }
    if (!(flow_tolerance >= 1e-4 && flow_tolerance <= 0.2)) {
      throw InputError("two_phase.flow_tolerance", "the two-phase flow's tolerance must be in [1e-4, 0.2]");
    }
  }
  if (flow_start != FlowStart::morphology && flow == Flow::off) {
    throw InputError("two_phase.flow_start", "a random start sets where the two-phase flow starts: give "
                                             "capillary.flow=steady with it");
  }
  if (wall_wetting != WallWetting::phase_field && flow == Flow::off && !displacement) {
    throw InputError("two_phase.wall_wetting", "the walls' wetting is the two-phase flow's: give capillary.flow=steady "
                                               "or capillary.displacement=on with it");
  }
  for (std::size_t i = 0; i < wetting_labels.size(); ++i) {
    const LabelAngle& w = wetting_labels[i];
    if (flow == Flow::off && !displacement) {
      throw InputError("two_phase.wetting_labels", "wetting by label sets the walls of the two-phase flow: give "
                                                   "capillary.flow=steady or capillary.displacement=on with it");
    }
    if (!(w.theta_deg >= 0 && w.theta_deg < 180)) {
      throw InputError("two_phase.wetting_labels", "label " + std::to_string(w.label) +
                                                       ": a contact angle must be in [0, 180) degrees");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (wetting_labels[j].label == w.label) {
        throw InputError("two_phase.wetting_labels", "label " + std::to_string(w.label) + " is given twice");
      }
    }
  }
  if (entry_faces() != geometry::EntryFaces::inlet && trap_wetting()) {
    throw InputError("two_phase.trapping", std::string("the wetting phase cannot leave: with entry faces '") +
                                               geometry::to_string(entry_faces()) +
                                               "' no face is left for it to leave through; set trapping off (as in "
                                               "mercury injection, where it is evacuated) or enter at the inlet");
  }
}

void ForchheimerSpec::validate() const {
  if (!enabled) return;
  if (!(max_reynolds > 0) || !std::isfinite(max_reynolds) || max_reynolds > 1000) {
    throw InputError("forchheimer.max_reynolds", "the sweep's top pore Reynolds number must be in (0, 1000] (10 is the "
                                                 "default: well past the end of Darcy flow in rock)");
  }
  if (min_reynolds < 0 || !std::isfinite(min_reynolds) || (min_reynolds > 0 && !(min_reynolds < max_reynolds))) {
    throw InputError("forchheimer.min_reynolds", "the sweep's first pore Reynolds number must be positive and below "
                                                 "forchheimer.max_reynolds (0: a hundredth of it)");
  }
  if (points < 2) {
    throw InputError("forchheimer.points", "a sweep needs at least 2 rates above the creeping one (a fit of k and beta "
                                           "needs two points past Darcy flow; 8 is the default)");
  }
  if (points > max_points) {
    throw InputError("forchheimer.points", "at most " + std::to_string(max_points) + " rates in a sweep");
  }
  if (!(tolerance >= 1e-9 && tolerance <= 0.1)) {
    throw InputError("forchheimer.tolerance", "the sweep's tolerance must be in [1e-9, 0.1] (relative change of k_app)");
  }
}

void RunSpec::validate() const {
  sample.validate();
  flow.validate();
  execution.validate();
  output.validate();
  if (!permeability && !formation_factor) {
    throw InputError("formation_factor", "a run makes k, F or both; with k off F must be on (run.formation_factor = only)");
  }
  two_phase.validate();
  if (two_phase.enabled() && (!sample.grey().empty())) {
    throw InputError("two_phase.curves", "capillary curves need a sample without grey phases: the morphology places "
                                         "fluids in resolved pores only; drop the grey labels (or make them pore or solid)");
  }
  if (two_phase.enabled() && !permeability) {
    throw InputError("two_phase.curves", "capillary curves and relative permeabilities need the flow (k): "
                                         "run.formation_factor = only solves none");
  }
  if (two_phase.enabled() && all_axes) {
    throw InputError("two_phase.curves", "capillary curves are made along one flow axis: choose x, y or z");
  }
  forchheimer.validate();
  if (forchheimer.enabled && !permeability) {
    throw InputError("forchheimer.sweep", "a Forchheimer sweep raises the flow's drive: it needs the flow (k), and "
                                          "run.formation_factor = only solves none");
  }
  if (!(grey_cementation >= 1.0 && grey_cementation <= 5.0)) {
    throw InputError("grey_cementation", "the grey phases' cementation exponent must be in [1, 5] (Archie's m: "
                                          "about 2 for most rock; 1 makes a grey voxel conduct as its pores' share)");
  }
}

}  // namespace rockperm::pipeline
