#pragma once
// The permeability tensor of a sample, composed from the typed results of its three runs (flow
// along x, y and z; lbm.flow_axis = all). Column j comes from the run driven along j: its k is
// k_jj, and the mean velocity across, u_i, gives k_ij = k_jj u_i / u_j (= nu u_i / g_j). The
// cross terms are measured only where the flow can cross: every face periodic (with sealed
// lateral faces or buffers the walls stop any net cross flow, and they are reported as null).
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "lib/parallel/comm.hpp"
#include "pipeline/report.hpp"
#include "pipeline/result.hpp"

namespace rockperm::pipeline {

// What the tensor takes from one axis's run: from its SampleResult (of), or, for an axis a
// resumed tensor keeps, from the report.json that run wrote (read_axis_outcome).
struct AxisOutcome {
  RunStatus status = RunStatus::runtime_error;
  std::string message;  // for a status other than converged
  std::string reason;   // invalid_physics: "no_path" where the pore space does not join the faces (k = 0)
  bool solved = false;  // k measured
  double k_md = 0, k_lattice = 0;
  std::array<double, 3> mean_velocity{};  // lattice units, all three components
  std::int64_t steps = 0;
  std::optional<double> porosity, connected_porosity;
  // run.formation_factor: F along this axis and its stated error (absent: not asked or not made)
  std::optional<double> formation_factor, formation_factor_error;
  // forchheimer.sweep: Forchheimer's beta (1/m) and the pore Re of the 1 % and 10 % falls of k_app
  // along this axis (absent: not reached or not made); `forchheimer` whether the sweep was asked
  bool forchheimer = false;
  std::optional<double> beta_per_m, reynolds_1pct, reynolds_10pct;
  InputRecord input;

  bool no_path() const { return status == RunStatus::invalid_physics && reason == "no_path"; }
  static AxisOutcome of(const SampleResult& result);
};

// The outcome a report.json records; nullopt where the file is missing or not a report.
std::optional<AxisOutcome> read_axis_outcome(const std::filesystem::path& report_json);

struct PermeabilityTensor {
  // the worst of the three runs' (a direction without a path is a k of 0, not a failure; a run
  // that never ended counts as interrupted)
  RunStatus status = RunStatus::converged;
  std::string message;  // the diagonal, or the first axis that failed and why
  std::array<std::array<double, 3>, 3> k_md{}, k_voxel2{};
  std::array<std::array<bool, 3>, 3> known{};  // measured; the others are null in report.json
  bool cross_terms = false;
  std::optional<double> symmetry_error;             // max |k_ij - k_ji| / sqrt(k_ii k_jj), every term known
  std::optional<std::array<double, 3>> principal_md;  // eigenvalues of the symmetric part, ascending
  std::optional<double> max_over_min_diagonal, kz_over_mean_kx_ky;
  std::array<std::optional<AxisOutcome>, 3> axes;
  bool flow = true;  // k solved along the axes (false: F alone, run.formation_factor = only)

  std::array<double, 3> diagonal_md() const { return {k_md[0][0], k_md[1][1], k_md[2][2]}; }
};

// Whether the flow can cross the drive (every face periodic): the off-diagonal terms are measured.
bool measures_cross_terms(const FlowSpec& flow);

// `flow`: k was solved along the axes; without it (F alone) the message gives F along each axis.
PermeabilityTensor compose_tensor(const std::array<std::optional<AxisOutcome>, 3>& axes, bool cross_terms,
                                  bool flow = true);

// Eigenvalues of a symmetric 3x3 matrix, ascending (Eigen's self-adjoint solver).
std::array<double, 3> symmetric_eigenvalues(const std::array<std::array<double, 3>, 3>& m);

// The tensor's report.json (the matrix, principal values, anisotropy, each axis's status).
std::string tensor_json(const PermeabilityTensor& tensor, const std::string& sample_name);

// Writes <dir>/report.html and <dir>/report.json (last, atomically: the mark of a finished tensor).
void write_tensor_reports(const std::filesystem::path& dir, const PermeabilityTensor& tensor,
                          const std::string& sample_name);

struct RunRequest;  // pipeline/run.hpp

// Collective: the tensor of request.spec (all_axes): the volume read once (or request.volume),
// a run along each axis in <dir>/x, y and z (each a run directory of its own: config, report,
// checkpoint), the tensor from their results (<dir>/report.json, report.html). With
// DirectoryUse::resume the axes done with this configuration and input are kept and a stopped
// one resumed. A failed axis is recorded in the tensor (its status, the axis that failed and
// why), not thrown; a stop request ends it after the axis that runs (status interrupted).
SampleResult run_tensor(const parallel::Comm& comm, const RunRequest& request);

}  // namespace rockperm::pipeline
