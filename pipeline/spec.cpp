#include "pipeline/spec.hpp"

#include <cmath>
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

void RunSpec::validate() const {
  sample.validate();
  flow.validate();
  execution.validate();
  output.validate();
  if (!permeability && !formation_factor) {
    throw InputError("formation_factor", "a run makes k, F or both; with k off F must be on (run.formation_factor = only)");
  }
  if (!(grey_cementation >= 1.0 && grey_cementation <= 5.0)) {
    throw InputError("grey_cementation", "the grey phases' cementation exponent must be in [1, 5] (Archie's m: "
                                          "about 2 for most rock; 1 makes a grey voxel conduct as its pores' share)");
  }
}

}  // namespace rockperm::pipeline
