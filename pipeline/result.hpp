#pragma once
// What a run of one sample gives back: k in every unit and everything needed to judge it,
// as typed values (reports, campaign tables and the service are written from this).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/base/error.hpp"
#include "lib/geometry/distance_transform.hpp"
#include "lib/geometry/percolation.hpp"
#include "lib/physics/permeability.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/spec.hpp"
#include "lib/solve/pressure_planes.hpp"

namespace rockperm::pipeline {

// How a run ended. Only `converged` is a k to file; every other status comes with a message
// and a non-zero exit code (docs/manual/running-a-sample.md, "Statuses and exit codes").
enum class RunStatus {
  converged,        // steady, inside the validity limits (exit 0)
  not_converged,    // the step limit came first (5)
  diverged,         // NaN/Inf or mass drift (3)
  interrupted,      // a signal or the wall-time limit; a checkpoint was written (6)
  input_error,      // a file, option or geometry is wrong (2)
  output_error,     // a result could not be written (7)
  invalid_physics,  // no valid Darcy k for this problem as posed (8)
  runtime_error,    // a CUDA or MPI call failed (4)
};
const char* to_string(RunStatus s);
std::optional<RunStatus> parse_status(const std::string& text);  // to_string's inverse
int exit_code(RunStatus s);
// The status of a run that ended with this error.
RunStatus status_of(const Error& e);

// The validity limits of a Darcy k from this model: above them inertia (Re) or compressibility
// (Ma) bias k by more than about a percent, and a converged run ends as invalid_physics.
inline constexpr double reynolds_limit = 0.1;
inline constexpr double mach_limit = 0.1;

// A condition the user should know about; `field` names the spec member that would change it.
struct Warning {
  std::string code;     // stable identifier: not_converged, reynolds, mach, interior_differs, ...
  std::string message;  // one line, without option names
  double value = 0;     // the quantity that triggered it
  std::string field;    // e.g. "execution.max_steps", "flow.force"
};

struct Timings {
  double read = 0, percolation = 0;  // rank 0
  double pore_analysis = 0;          // rank 0: pore statistics and width classes (on a GPU run, beside the solve)
  double hash = 0;                   // rank 0: the input's SHA-256, beside percolation and pore analysis
  double setup = 0;                  // read to first step: lattice, decomposition, backend
  double lattice = 0, backend = 0;   // of setup: decomposition and lattice build; backend (device) start
  double solve = 0;                  // time loop only
  double finish = 0;                 // after the loop: trust analysis, pictures, fields, reports (app)
};

struct Performance {
  std::string backend;  // description, with the rank count
  backend::Propagation propagation = backend::Propagation::two_pass;
  int ranks = 1;
  double mflups = 0;
  double bytes_per_cell = 0;    // device bytes per fluid cell actually held (rank 0)
  double mpi_seconds = 0;       // slowest rank's time inside the exchange
  double halo_bytes_per_step = 0;  // rank 0
  int checkpoints = 0;             // written by this run
  double checkpoint_seconds = 0;   // wall time they took
  // host memory: the peak resident set of every rank added up, and of the largest rank, in
  // bytes; when the run was ready for its first step, and at its end (its peak overall)
  double host_peak_ready = 0, host_peak_ready_rank = 0;
  double host_peak = 0, host_peak_rank = 0;
};

// Where a result comes from: enough to reproduce it and to tell runs apart.
struct Provenance {
  std::string version, commit, build_type;  // rockperm's
  std::string date_utc;                     // ISO 8601, when the run started
  std::string host;                         // rank 0's
  std::string command_line;
  int ranks = 1;
  std::vector<std::string> devices;         // one per rank: "cpu" or "<name> (<uuid>)"
  std::string input_sha256;                 // of the volume's bytes (io::hash_volume)
  std::string pore_labels, crop;
  bool percolation_filter = true;
  bool resumed = false;                     // continued from a checkpoint
};

// A picture for report.html (pipeline/fields.hpp): a PNG as a data: URI and what it shows.
struct SliceImage {
  std::string id, title, caption, data_uri;
};

// The grey (sub-resolution porous) phases of a sample (input.grey_labels) and what they carry.
struct GreyPhaseReport {
  std::string labels;
  double porosity = 0;             // declared: of the voxel's own sub-resolution pores
  double permeability_m2 = 0;      // declared
  double permeability_voxel2 = 0;  // at the sample's voxel size: the drag nu / K
  std::uint64_t voxels = 0;        // of the sample, before the percolation filter
  std::uint64_t connected = 0;     // after it
};
struct GreyReport {
  std::vector<GreyPhaseReport> phases;  // empty: none declared
  std::string map, law;  // where the phases come from CT intensities: input.grey_map and input.grey_law
  double flow_fraction = 0;  // of the flow along the axis that passes grey cells (sum of u there / sum of u)
  // run.without_grey: the same sample with its grey voxels solid, the k of the resolved pores alone
  // (0 where they alone do not join the faces), or a note why it was not made
  bool without_asked = false, without_done = false;
  double k_without_md = 0;
  std::string without_note;
  std::int64_t without_steps = 0;
  double without_seconds = 0;
  bool any() const { return !phases.empty(); }
  std::uint64_t voxels() const;     // all phases, before the filter
  std::uint64_t connected() const;  // after
  // sum over phases of porosity x voxels (before the filter) / the sample's voxels
  double subresolution_porosity(std::uint64_t sample_voxels) const;
};

// The resolution study (pipeline/resolution_study.hpp; run.resolution_study): k on the sample
// coarsened 2x and 4x, k extrapolated to zero voxel size, and the discretisation error.
struct ResolutionStudy {
  bool asked = false;
  bool done = false;
  std::string note;                   // why it was not made, or what limits it
  double k_coarse_md = 0;             // the sample at twice the voxel size
  std::optional<double> k_coarser_md; // at four times (absent: too small, no path or not converged)
  double k_extrapolated_md = 0;       // to zero voxel size
  double order = 0;                   // of the error in the voxel size used to extrapolate
  // the three grids change k as that order says (the 4x grid confirms the extrapolation)
  bool asymptotic = false;
  // relative: Roache's grid convergence index, the extrapolation's change times a safety factor of
  // 1.25 where the order is confirmed, 3 where not (pipeline/resolution_study.hpp)
  double discretisation_error = 0;
  std::int64_t coarse_steps = 0;
  double coarse_seconds = 0;          // the whole study: read, coarsen, run
};

// The formation factor (run.formation_factor, pipeline/conduction.hpp): the electrical
// conduction of the brine in the same pore space, grains insulating (lib/solve/conduction.hpp).
struct ConductionReport {
  bool asked = false, done = false, converged = false;
  std::string note;                // why it was not made, or what limits it
  double formation_factor = 0;     // F = sigma_w / sigma_eff along the flow axis
  double error = 0;                // stated, relative (as k's)
  // between buffers or mirrored: F read over the sample's interior only, a representative-volume
  // check beside the whole sample's F (0: none, periodic or shorter than 8 planes)
  double formation_factor_interior = 0;
  double porosity = 0;             // phi of F phi and of Archie's m: resolved and sub-resolution pores of the sample
  double tortuosity_factor = 0;    // F phi
  double cementation_exponent = 0; // m = -ln F / ln phi (Archie, a = 1)
  double grey_cementation = 0;     // run.grey_cementation: the exponent of a grey phase that declares none
  std::vector<double> grey_phase_cementation;  // each grey phase's m (its own, else grey_cementation)
  std::int64_t iterations = 0;
  double seconds = 0;
  double setup_seconds = 0; // of `seconds`: the operator, the multigrid levels and the engine's start
  std::string device;       // where the solve ran: "host" (the rank's cores) or the GPU's name
  std::string device_note;  // why not on the rank's GPU where the flow ran on one; empty otherwise
};

// Two phases by pore morphology (pipeline/two_phase.hpp; run spec two_phase).
struct CapillaryPoint {
  double pc_pa = 0;          // capillary pressure
  double radius_um = 0;      // the inscribed radius it enters: 2 sigma cos(theta_w) / Pc
  double saturation = 0;     // S_w, of the connected pore space
  double leverett_j = 0;     // Pc sqrt(k / phi) / (sigma cos theta_w); 0 where k is not known
  bool resolved = true;      // the radius is at least a voxel (below it the scan does not resolve the pores)
};
// One phase's flow at one saturation: k_r = k_phase / k, its stated error (the two stops'), or 0
// with the reason where it was not solved.
struct PhaseFlow {
  bool solved = false;     // a k of the phase (0 where it does not span: spans false)
  bool converged = true;   // solved to the tolerance (false: stopped at the step limit, kr_error says how far)
  bool spans = true;       // the phase joins the inlet and outlet faces
  double k_md = 0, kr = 0, kr_error = 0;
  std::int64_t steps = 0;
  double seconds = 0;
  std::string note;        // why not solved
};
// k_r by two-phase flow at a point (spec.two_phase.flow; pipeline/colour_flow.hpp): both phases
// driven alike by the colour-gradient model from the point's morphology state, the fluid-fluid
// interfaces passing momentum, each phase at its own viscosity. A different quantity from the
// quasi-static k_r of PhaseFlow (the other phase a wall): reported beside it, never for it.
struct ColourFlowPoint {
  bool asked = false;
  bool solved = false;       // k_r made (converged, or stopped at the step limit with its stated error)
  bool converged = false;    // both phases' fluxes steady to the tolerance
  double kr_w = 0, kr_n = 0, kr_w_error = 0, kr_n_error = 0;
  double saturation = 0;        // S_w at the end: the wetting phase's fraction of the pore cells
  double saturation_start = 0;  // at the start: the morphology state's (or its random draw's), on the lattice
  std::string start = "morphology";  // where it started: the morphology state, or "random" (TwoPhaseSpec::flow_start)
  double capillary_number = 0;  // mu_w q / sigma as it ran, q both phases' Darcy velocity
  double viscosity_ratio = 1;   // mu_nw / mu_w
  bool wetting_spans = false, nonwetting_spans = false;  // at the end, inlet face to outlet face
  // each phase's flux through the planes normal to the flow, averaged over the last checks:
  // (largest - smallest) / mean
  double flux_spread_w = 0, flux_spread_n = 0;
  // the largest speed |u| of any cell at any check, lattice units: the flow's and the interfaces'
  // spurious currents together (the recolouring's populations turn negative above (1 - beta) / 4)
  double fastest = 0;
  std::vector<std::string> flags;  // trust checks that failed, in words
  std::int64_t steps = 0;
  double seconds = 0;
  std::string backend;             // where it ran
  std::string note;                // why not made, or what limits it
  std::string field;               // the phases at the end for ParaView (output.fields): the .vti's name
};
// A check of a two-phase flow (spec.two_phase.flow, pipeline/colour_flow.hpp): k_r by flow as it
// stands, with its stated errors where the flux history gives them (known).
struct ColourFlowProgress {
  std::string label;  // the point ("drainage S_w 0.45"), or "single phase" for the reference
  std::int64_t step = 0;
  double saturation = 0;
  double kr_w = 0, kr_n = 0, error_w = 0, error_n = 0;
  bool known = false;
  // the displacement's (label: the curve and its pressure): no k_r, the capillary number instead
  bool displacement = false;
  double capillary_number = 0;
};

struct RelPermPoint {
  std::string curve;       // "drainage" or "imbibition"
  std::size_t point = 0;   // index into that curve
  double pc_pa = 0, saturation = 0;
  double target = -1;      // the saturation asked for (two_phase.relperm_saturations), -1: spread
  PhaseFlow wetting, nonwetting;
  ColourFlowPoint flow;    // spec.two_phase.flow: k_r by two-phase flow (asked false: not run)
  std::string field;       // the phases for ParaView (output.fields): the .vti's name in the run directory
};
// The displacement (spec.two_phase.displacement; ColourFlowRuns::displace): one pressure of a
// curve held across the sample until its saturation settled.
struct DisplacementPoint {
  double pc_pa = 0;
  double saturation = 0;          // wetting, over the sample's pore cells (the reservoirs left out)
  double saturation_quasi_static = 0;  // the curve's at the same pressure
  // mu_w u / sigma of the fastest the displacement ran at this pressure (u the mean velocity along
  // the flow over the domain at a check): how far from quasi-static it was
  double capillary_number = 0;
  std::int64_t steps = 0;
  double seconds = 0;
  bool settled = false;
  bool stopped = false;  // a signal or the wall-time limit ended it
  std::string note;  // why it did not settle, or was not made
};
struct DisplacementReport {
  bool asked = false, done = false;
  std::string note;
  std::string backend;
  int reservoir_planes = 0;      // each reservoir's, along the flow
  double settle = 0;             // a pressure is held until S_w moves less than this over `window` steps
  std::int64_t window = 0;
  double seconds = 0;
  std::vector<std::string> flags;  // trust checks that failed, in words (ColourFlowRuns::wetting_flags)
  std::vector<DisplacementPoint> drainage, imbibition;
};
struct TwoPhaseReport {
  bool asked = false, done = false;
  // a signal or the wall-time limit ended the relative permeabilities before their last point (the
  // run is then interrupted, and a resume makes them again)
  bool stopped = false;
  std::string note;                 // why not made, or what limits it
  std::string fluids, entry;
  double sigma_n_per_m = 0, theta_deg = 0, theta_wetting_deg = 0;
  std::string wall_wetting = "phase_field";  // the flow's walls' wetting (TwoPhaseSpec::wall_wetting)
  bool trapping = false;
  double entry_pressure_pa = 0;         // the non-wetting phase first enters (the widest pore of its faces)
  double breakthrough_pressure_pa = 0;  // it first spans the flow axis's faces
  std::vector<CapillaryPoint> drainage, imbibition;
  double residual_wetting = 0;      // S_w trapped after the drainage's last point
  double residual_nonwetting = 0;   // S_nw trapped after the imbibition's last point (imbibition made)
  std::uint64_t pore_voxels = 0;    // the connected pore space the saturations are fractions of
  double morphology_seconds = 0, relperm_seconds = 0;
  std::vector<RelPermPoint> relperm;
  double k_md = 0;                  // the single-phase k k_r is relative to
  // the flow's wetting by solid label (spec.two_phase.wetting_labels): each label's angle and how
  // many of the sample's solid voxels carry it
  struct WettingLabel {
    std::uint32_t label = 0;
    double theta_deg = 0;
    std::uint64_t solid_voxels = 0;
  };
  std::vector<WettingLabel> wetting_labels;
  DisplacementReport displacement;
};

// Beyond Darcy: the rate sweep (pipeline/forchheimer.hpp; run spec forchheimer). Point 0 is the
// run's own creeping k.
struct ForchheimerPoint {
  double reynolds = 0;         // pore Re = (q / phi) d / nu (ForchheimerSpec)
  double reynolds_k = 0;       // q sqrt(k_app) / nu, on the permeability's length
  double inertial_per_m = 0;   // rho q / mu (1/m): the abscissa of Forchheimer's line
  double darcy_velocity = 0;   // q, lattice units (the next rate's drive is set from it)
  double k_md = 0;             // k_app
  double k_ratio = 1;          // k_app / k
  double error = 0;            // k_app's stated relative error, the stop's (+inf where unknown)
  // the lattice's own relative error at speed, one-sided (k_app reads low): 1e-4 (u_max / nu)^2, as
  // a straight duct (exactly Darcy) measures it from u_max / nu = 0.2 to 9.8 (docs/ACCURACY.md)
  double lattice_error = 0;
  double mach = 0;             // of the fastest velocity
  double tau = 0, force = 0;   // lattice units, as run
  std::int64_t steps = 0;
  double seconds = 0;
  bool converged = true;
};
struct ForchheimerFit {
  bool done = false;
  double k_md = 0;             // 1 / intercept
  double beta_per_m = 0;       // slope: the inertial (non-Darcy) coefficient
  double c_f = 0;              // beta sqrt(k): Ward's dimensionless Forchheimer coefficient
  double residual = 0;         // rms of (fitted - measured) / measured k_app over the points used
  std::size_t first = 0, last = 0;  // the points used, inclusive
};
struct ForchheimerReport {
  bool asked = false, done = false;
  std::string note;                 // why not made, or what limits it
  double pore_diameter_um = 0;      // d of the pore Reynolds number
  double k_md = 0;                  // the run's k the ratios are relative to
  std::vector<ForchheimerPoint> points;
  ForchheimerFit fit;
  // the pore Re where k_app first falls 1 % and 10 % below k (interpolated); NaN: not within the sweep
  double reynolds_1pct = 0, reynolds_10pct = 0;
  double seconds = 0;
  std::int64_t steps = 0;           // of the sweep's steps above the creeping run
};

// The share of the flow through pores narrower than 3 voxels above which k is under-resolved: the
// verdict says so, and run.resolution_study = auto runs the study.
inline constexpr double narrow_flow_limit = 0.1;

struct PermeabilityTensor;  // pipeline/tensor.hpp
struct FlowFields;          // pipeline/fields.hpp
class TwoPhase;             // pipeline/two_phase.hpp

// How the flow started (ExecutionSpec::start; lib/solve/darcy_start.hpp).
struct StartReport {
  std::string method = "rest";  // rest | darcy
  bool done = false;             // darcy: the pressure field was solved and added
  std::int64_t iterations = 0;   // of the Darcy-scale solve
  double residual = 0;           // relative, at its end
  double seconds = 0;            // its wall time (before the first step; not in Timings::solve)
  std::string device;            // where it ran: "host" or the GPU's name
  std::string note;              // why it started from rest instead, or the engine's note
  double setup_seconds = 0;      // of `seconds`: the model's operator, multigrid levels and engine
  // the density corrections (run.extrapolation = darcy): how many, their solves' seconds, the
  // model's scale against the lattice's mobility as measured (1: exact), the last one's size
  // (rms over the drive's density drop along the sample)
  int corrections = 0;
  double correction_seconds = 0;
  double correction_scale = 0;
  double correction_size = 0;
  // whether they ended on their size (the first quiet one: its change of k by the model under a
  // quarter of the tolerance), and then the bound on k's relative error they left, twice that
  // change, which the stated error includes (DensityCorrection::error_floor)
  bool correction_converged = false;
  double correction_error_floor = 0;
};

struct SampleResult {
  InputIdentity input;
  RunStatus status = RunStatus::not_converged;
  std::string message;           // for a status other than converged: what happened, one line
  // invalid_physics: its code where one is named ("no_path": k = 0); input_error: "capacity" where
  // the sample needs more GPU memory than the run's ranks hold (pipeline/execution.hpp)
  std::string reason;
  Provenance provenance;
  std::filesystem::path checkpoint;  // the last checkpoint written, if any
  bool converged() const { return status == RunStatus::converged; }
  // F alone (run.formation_factor = only): the conduction solved, no step of the flow taken
  bool formation_factor_alone() const { return steps == 0 && conduction.asked; }
  physics::Permeability k;       // k_lattice (voxel^2), m^2, darcy, mD; tortuosity, Re, Ma
  geometry::PercolationReport percolation; // porosity and connected porosity of the sample
  geometry::PoreStatistics pores;          // of the connected pore space: surface, pore size, an estimate of k
  std::int64_t steps = 0;
  int extrapolations = 0;        // pressure extrapolations (lib/solve/extrapolation.hpp)
  StartReport start;
  double relative_change = 0;    // of k between the last two checks, per 100 steps
  double error_estimate = 0;     // relative remaining change of k, from its history (+inf: unknown)
  double flux_nonuniformity = 0; // (largest - smallest flux through a plane) / mean
  // Trust: how wide the pores are (share of the sample's pore volume in each width class of
  // lib/geometry/distance_transform.hpp), the share of the flux carried where they are narrower
  // than 3 voxels (there k is under-resolved), and k of the two halves of the sample's interior
  // along the flow (apart when the sample is smaller than a representative volume).
  std::array<double, geometry::width_classes> width_fraction{};
  double narrow_flow_fraction = 0;
  std::array<double, 2> k_halves_md{};
  // buffers and mirror: k read over the sample's interior only (lib/solve/pressure_planes.hpp), a
  // representative-volume check beside the whole sample's k; 0 where there is none
  double k_interior_md = 0;
  GreyReport grey;
  ResolutionStudy resolution;
  ConductionReport conduction;
  TwoPhaseReport two_phase;
  ForchheimerReport forchheimer;
  // the porosity of the resolved pores (open voxels; grey ones are in `grey`), before and after
  // the percolation filter: PercolationReport's where no grey phase is declared
  double porosity() const;
  double connected_porosity() const;
  // the total porosity a lab measures on the plug: the resolved pores and each grey phase's own
  // porosity times its voxels (before the filter); and the same of the connected space, the
  // porosity of F phi and Archie's m. Equal to the two above where no grey phase is declared.
  double total_porosity() const;
  double connected_total_porosity() const;
  int drive_adjustments = 0;     // times the auto force was lowered during the run (flow.force: the last)
  double mass_drift = 0;
  solve::SampleDrive drive;      // the drive k is divided by (g without buffers or mirror)
  // sum of the velocity of all fluid cells / voxels of the simulated volume, per axis (lattice
  // units): the off-axis components give the off-diagonal terms of the permeability tensor
  std::array<double, 3> mean_velocity{};
  // k (mD) at the checks, thinned to at most 256 values over the run (lib/solve/monitor.hpp)
  std::vector<std::pair<std::int64_t, double>> history_md;
  geometry::Dims dims;           // simulated volume
  geometry::Dims sample_dims;
  double voxel_size_um = 0;
  std::uint64_t fluid_cells = 0;
  FlowSpec flow;                 // as run
  double tolerance = 0;
  double flux_tolerance = 0;
  std::vector<Warning> warnings;
  std::vector<SliceImage> slices;  // report.html only (not in report.json)
  Timings timings;
  Performance performance;
  // lbm.flow_axis = all (rank 0): the tensor composed from the three runs; status and message
  // are its own, the fields above are not set
  std::shared_ptr<const PermeabilityTensor> tensor;
  // RunRequest::keep_fields (rank 0): velocity and pressure on the sample's voxels
  std::shared_ptr<const FlowFields> fields;
  // RunRequest::keep_phases with spec.two_phase (rank 0): the curves' phases, point by point
  std::shared_ptr<const TwoPhase> two_phase_state;
};

// The porosities of a sample from its percolation counts (grey voxels counted as pore there) and its
// grey phases (declared porosity, voxels before and after the filter): the resolved pores, before
// and after the filter, and with each grey phase's own porosity times its voxels (the total a lab
// measures, and that of the connected space: F phi's and Archie's). One definition for the run's
// console, reports and Python.
struct Porosities {
  double resolved = 0, connected = 0, total = 0, connected_total = 0;
};
Porosities porosities(const geometry::PercolationReport& percolation, const std::vector<GreyPhaseReport>& grey);

// The interior's k over the whole sample's, less 1 (0 where there is no interior reading).
double interior_difference(const SampleResult& r);

}  // namespace rockperm::pipeline
