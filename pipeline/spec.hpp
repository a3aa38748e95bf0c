#pragma once
// What one sample's run is asked to do, as typed values: the library's whole input. Front ends
// fill it (rockperm run from INI keys and flags, a campaign from its table, a test directly)
// and validate() checks it before any work; an InputError names the rejected member by its
// path here ("flow.tau", "output.fields.crop"), which a front end maps to its own option names.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "io/volume_source.hpp"
#include "lib/base/names.hpp"
#include "lib/geometry/grey_map.hpp"
#include "lib/geometry/inlet_outlet.hpp"
#include "lib/geometry/morphology.hpp"
#include "lib/geometry/pore_mask.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/halo_transport.hpp"
#include "lib/parallel/work_split.hpp"
#include "lib/physics/collision.hpp"
#include "lib/solve/extrapolation.hpp"
#include "lib/solve/monitor.hpp"

namespace rockperm::pipeline {

enum class BackendChoice { auto_select, cpu, cuda };
inline constexpr std::array<Named<BackendChoice>, 3> backend_names{
    {{"auto", BackendChoice::auto_select}, {"cuda", BackendChoice::cuda}, {"cpu", BackendChoice::cpu}}};
enum class PropagationChoice { auto_select, two_pass, fused };
inline constexpr std::array<Named<PropagationChoice>, 3> propagation_names{
    {{"auto", PropagationChoice::auto_select}, {"two-pass", PropagationChoice::two_pass}, {"fused", PropagationChoice::fused}}};
// fp32; fp16 (half the population bytes, lib/physics/storage.hpp); auto: fp32, or fp16 on GPUs
// that fp32 does not fit
enum class StorageChoice { auto_select, fp32, fp16 };
inline constexpr std::array<Named<StorageChoice>, 3> storage_names{
    {{"auto", StorageChoice::auto_select}, {"fp32", StorageChoice::fp32}, {"fp16", StorageChoice::fp16}}};
const char* to_string(StorageChoice s);
const char* to_string(BackendChoice b);
const char* to_string(PropagationChoice p);

// Reading: the volume, which labels are pore, and whether isolated pores are removed.
struct SampleSpec {
  io::VolumeSpec volume;
  geometry::LabelSelection pore_labels = geometry::LabelSelection::parse("0");
  std::vector<geometry::GreyPhase> grey_phases;  // sub-resolution porous labels (input.grey_labels); none by default
  geometry::GreyMap grey_map;  // or grey phases from CT intensities (input.grey_map, input.grey_law); none by default
  bool percolation_filter = true;
  bool hash_input = true;  // SHA-256 of the volume's bytes for the report (one more read of the file)
  // a run's own sample: the hash may outlast the preparation (it is needed by the first
  // checkpoint and the report, not by the first step): Sample::hash_pending, settle_input_hash()
  bool hash_later = false;
  // the voxel size, when given, within io::min_voxel_um .. io::max_voxel_um; a grey map whole, and
  // not beside grey labels or pore labels of its own
  void validate() const;
  // What the mask is made from: the grey phases declared or mapped, and the labels of open pore
  // (the map's pore side where a map is given)
  std::vector<geometry::GreyPhase> grey() const;
  geometry::LabelSelection open_labels() const;
};

// The flow problem in lattice units and its boundaries.
struct FlowSpec {
  physics::CollisionModel collision = physics::CollisionModel::trt;
  double tau = 1.0;
  // tau chosen for the sample by resolve_flow (pipeline/sample.hpp): the fastest to steady
  // flow by the time scales of lib/solve/time_scales.hpp (TRT only; k does not depend on tau)
  bool auto_tau = false;
  double magic = 3.0 / 16.0;
  double force = 1e-5;  // body acceleration along the flow axis, voxel/step^2
  // force chosen by resolve_flow: reference_force scaled with the viscosity, so that the flow
  // is as fast as with tau = 1 and the reference force whatever tau is, and lowered where the
  // Kozeny-Carman estimate of the flow puts Re or Ma above their targets; during the run the
  // Simulation lowers it again (scaling the state, exact in creeping flow) where the measured Re
  // or Ma is more than twice its target
  bool auto_force = false;
  // set by resolve_flow: tau and force are numbers for this sample (the auto flags stay, for the
  // reports to say they were chosen); what a Simulation takes
  bool resolved = false;
  bool needs_resolving() const { return (auto_tau || auto_force) && !resolved; }
  static constexpr double reference_force = 1e-5;
  static constexpr double target_reynolds = 0.01;  // a tenth of the validity limit
  static constexpr double target_mach = 0.01;
  static constexpr double peak_to_mean_speed = 10;  // fastest pore velocity / mean, for the estimate
  int flow_axis = 0;
  // Per axis; the flow axis's entry is ignored (always periodic). false: sealed walls.
  geometry::Periodicity lateral_periodic{false, false, false};
  void set_lateral_periodic(bool periodic) { lateral_periodic = {periodic, periodic, periodic}; }
  bool any_lateral_periodic() const;
  geometry::InletOutlet inlet_outlet = geometry::InletOutlet::buffer;
  int buffer_layers = 10;
  static constexpr int max_buffer_layers = 4096;
  geometry::EdgeContacts edge_contacts = geometry::EdgeContacts::open;
  // The permeability of each grey phase of the sample's mask (PoreMask codes; phase c = index + 1)
  // in voxel^2: the Darcy drag nu / K of its cells (lib/physics/collision.hpp). Set from the
  // sample's grey labels and voxel size by read_sample, or given directly (a mask in memory).
  std::vector<double> grey_permeability;

  // Periodic along the flow (driven by a body force); laterally as asked.
  geometry::Periodicity periodicity() const;
  void validate() const;
};

// Where and how it runs, and when it stops.
struct ExecutionSpec {
  BackendChoice backend = BackendChoice::auto_select;
  PropagationChoice propagation = PropagationChoice::auto_select;
  StorageChoice storage = StorageChoice::auto_select;
  bool cuda_aware_mpi = true;  // hand MPI device buffers when the library reports CUDA support
  parallel::HaloTransportChoice halo_transport =
      parallel::HaloTransportChoice::auto_select;  // lib/parallel/halo_transport.hpp
  std::vector<int> devices;    // device index for each rank of a host, in order (empty: by host name)
  // One rank beyond a host's GPUs runs on its cores, with a share of the cells from the speeds or
  // memory (auto), a fixed share, or is refused (off): lib/parallel/work_split.hpp
  parallel::HostShare host_share;
  // Plan as if each GPU held at most this many GiB (0: all it has): a GPU shared with other work;
  // what does not fit goes to more ranks or the host's cores
  double gpu_memory_gib = 0;
  std::int64_t max_steps = 200000;
  std::int64_t check_interval = 100;  // rounded up to even for the fused form
  solve::MonitorSettings monitor;
  // the pressure extrapolation (lib/solve/extrapolation.hpp): fewer steps on tight rock
  solve::ExtrapolationSettings extrapolation;
  // the state of the first step: at rest, or at rest with the density of a Darcy-scale pressure
  // solve (lib/solve/darcy_start.hpp)
  enum class Start { rest, darcy };
  Start start = Start::rest;
  // density corrections by the same Darcy-scale model (lib/solve/darcy_start.hpp), in place of the
  // pressure extrapolation (run.extrapolation = darcy; it implies the Darcy start)
  bool correction = false;
  // checkpoints (pipeline/driver.hpp): every so many steps and/or wall minutes (0: not by
  // that), and at the end; a stop by signal or wall-time limit always writes one
  std::int64_t checkpoint_interval = 0;
  double checkpoint_minutes = 30;
  bool checkpoint_at_end = false;
  double walltime_minutes = 0;  // stop cleanly (checkpoint, report) before this much wall time
  void validate() const;
};

// The flow fields for ParaView, scaled to a stated physical case (io/field_writer.hpp).
struct FieldSpec {
  bool enabled = true;
  io::Crop crop;  // of the simulated volume; sizes 0: to the end
  int stride = 1;
  double viscosity_pa_s = 1.0e-3;
  double pressure_gradient_pa_per_m = 1.0e5;
};

struct OutputSpec {
  std::filesystem::path dir;  // the run directory
  FieldSpec fields;
  double progress_seconds = 1.0;  // a progress line at most this often (0: at every check)
  // Checks what can be checked before the sample is read: a directory is named, stride and
  // physical case are positive (the directory itself is taken by pipeline::RunDirectory, which
  // creates it, checks it is writable and locks it).
  void validate() const;
};

// Two phases from the scan (pipeline/two_phase.hpp; the [capillary] options): capillary pressure
// curves by pore morphology (lib/geometry/morphology.hpp) and the quasi-static relative
// permeabilities, k of each phase by the flow solve in the cells it holds, the other phase a wall.
struct TwoPhaseSpec {
  enum class Curves { off, drainage, both };  // both: drainage, then imbibition from its last state
  Curves curves = Curves::off;
  // The fluid pair whose defaults the unset values take: brine/air (0.072 N/m, 0 degrees, entry at
  // the inlet, wetting trapped) or mercury/vacuum (0.485 N/m, 140 degrees, entry at all faces, no
  // trapping: the vacuum is evacuated): MICP.
  enum class Fluids { brine_air, mercury };
  Fluids fluids = Fluids::brine_air;
  double sigma_n_per_m = 0;  // interfacial tension; 0: the fluids'
  // Contact angle in degrees, in [0, 180) and not 90: below 90 measured through the wetting phase
  // (brine), above it through the invading one (mercury's 140), which wets at 180 - theta; the
  // invading phase is always the non-wetting one. Negative: the fluids'.
  double theta_deg = -1;
  std::optional<geometry::EntryFaces> entry;  // unset: the fluids'
  std::optional<bool> trapping;               // wetting trapped in drainage; unset: the fluids'
  std::vector<double> pressures_pa;           // rising; empty: `pressure_count` of them
  int pressure_count = 20;  // from the entry pressure to that of a one-voxel inscribed radius, geometric
  // Relative permeabilities at these wetting saturations (the curve's points nearest them), else at
  // `relperm_points` points spread over each curve's range (0: none)
  std::vector<double> relperm_saturations;
  int relperm_points = 5;
  // each phase's flow stops at this tolerance (as run.tolerance for k): k_r to a tenth of a percent
  // is finer than any lab's, and a tight phase takes steps for every digit more
  double relperm_tolerance = 1e-3;
  // Two-phase flow at the same points (issue 69; pipeline/colour_flow.hpp): off, or steady: both
  // phases driven alike from the point's morphology state by the colour-gradient model until their
  // fluxes are steady; k_r with the momentum the interfaces pass and the viscosity ratio, beside the
  // quasi-static k_r (never in its place)
  enum class Flow { off, steady };
  Flow flow = Flow::off;
  double viscosity_ratio = 1.0;     // mu_nw / mu_w
  double capillary_number = 1e-3;   // mu_w q / sigma of the drive, q the single-phase Darcy velocity
  double flow_tolerance = 1e-2;     // each phase's flux steady to this (relative; absolute below k_r 0.1)
  // where the flow starts: the point's morphology state, or its pore voxels drawn at random at the
  // point's saturation (geometry::random_phases), as LBPM's steady-state protocol may
  enum class FlowStart { morphology, random };
  FlowStart flow_start = FlowStart::morphology;
  // how the flow's walls wet: by the phase field they show (cos theta; holds no angle below about 21
  // degrees) or by the interface's direction at them (physics::colour::geometric_wall_phi)
  enum class WallWetting { phase_field, geometric };
  WallWetting wall_wetting = WallWetting::phase_field;
  // The displacement (issue 69's unsteady protocol; pipeline/colour_flow.hpp, displace): the
  // curves again by two-phase flow, the non-wetting phase pushed in from a reservoir at the inlet by
  // each pressure of the curve in turn (and the wetting one back from the outlet for imbibition),
  // each held until the saturation settles
  bool displacement = false;
  std::int64_t displacement_steps = 200000;  // at most this many steps per pressure
  static constexpr double max_viscosity_ratio = 20;  // the more viscous phase's tau then 10.5
  // Wetting by solid label in the flow: walls of `label` show the contact angle `theta_deg`
  // (degrees, through the wetting phase); other walls the run's (cos_wetting). The quasi-static
  // curves keep one angle.
  struct LabelAngle {
    std::uint32_t label = 0;
    double theta_deg = 0;
  };
  std::vector<LabelAngle> wetting_labels;
  bool enabled() const { return curves != Curves::off; }
  double sigma() const;
  double theta() const;
  double cos_wetting() const;  // cos of the wetting phase's angle: |cos theta|
  geometry::EntryFaces entry_faces() const;
  bool trap_wetting() const;
  void validate() const;
};
inline constexpr std::array<Named<TwoPhaseSpec::Curves>, 3> two_phase_curve_names{
    {{"off", TwoPhaseSpec::Curves::off}, {"drainage", TwoPhaseSpec::Curves::drainage}, {"both", TwoPhaseSpec::Curves::both}}};
inline constexpr std::array<Named<TwoPhaseSpec::Flow>, 2> two_phase_flow_names{
    {{"off", TwoPhaseSpec::Flow::off}, {"steady", TwoPhaseSpec::Flow::steady}}};
inline constexpr std::array<Named<TwoPhaseSpec::FlowStart>, 2> two_phase_flow_start_names{
    {{"morphology", TwoPhaseSpec::FlowStart::morphology}, {"random", TwoPhaseSpec::FlowStart::random}}};
inline constexpr std::array<Named<TwoPhaseSpec::WallWetting>, 2> two_phase_wall_wetting_names{
    {{"phase_field", TwoPhaseSpec::WallWetting::phase_field}, {"geometric", TwoPhaseSpec::WallWetting::geometric}}};
inline constexpr std::array<Named<TwoPhaseSpec::Fluids>, 2> two_phase_fluid_names{
    {{"brine-air", TwoPhaseSpec::Fluids::brine_air}, {"mercury", TwoPhaseSpec::Fluids::mercury}}};

// Beyond Darcy (pipeline/forchheimer.hpp; the [forchheimer] options): after k, the drive raised in
// steps to a pore Reynolds number, each step's apparent permeability k_app = nu q / g read as k is,
// from the previous step's field; Forchheimer's law 1/k_app = 1/k + beta rho q / mu fitted where
// the flow has left Darcy's. The pore Reynolds number is Re = (q / phi) d / nu on the pore diameter
// d = 4 phi / S, S the pore surface per volume (the voxel faces' count times 2/3: a staircase's
// faces are 3/2 of the smooth surface they approximate, averaged over orientations).
struct ForchheimerSpec {
  bool enabled = false;
  double max_reynolds = 10;  // the sweep's top
  double min_reynolds = 0;   // its first step above the creeping run's; 0: max_reynolds / 100
  int points = 8;            // steps above the creeping run, geometric from min to max (at least 2)
  // each step stops as k does (run.tolerance), at this tolerance: k_app to a tenth of a percent
  // resolves a 1 % fall
  double tolerance = 1e-3;
  static constexpr double target_mach = 0.1;   // the fastest velocity's Mach number a step is set for
  // the fastest cell's u_max / nu (its grid Reynolds number) a step may reach: TRT held 9.8 on a
  // tight pack and diverged at 16.8 (docs/ACCURACY.md, "Beyond Darcy")
  static constexpr double max_grid_reynolds = 10;
  // k_app's own error at speed, relative: this times (u_max / nu)^2 (a straight duct's, which has no
  // inertia: 1e-5 at u_max / nu 0.36, 1.9e-4 at 1.36, 9.0e-3 at 9.8)
  static constexpr double lattice_error_coefficient = 1e-4;
  // the least check interval of a rate (rate_check_interval, pipeline/forchheimer.hpp)
  static constexpr std::int64_t min_check_interval = 20;
  static constexpr int max_points = 64;
  double first_reynolds() const { return min_reynolds > 0 ? min_reynolds : max_reynolds / 100.0; }
  void validate() const;
};

struct RunSpec {
  SampleSpec sample;
  FlowSpec flow;
  // The permeability tensor: one run along each axis (flow.flow_axis ignored), from one read of
  // the volume, in <output.dir>/x, y and z, and the tensor from their mean velocities.
  bool all_axes = false;
  // Also run the sample coarsened 2x and 4x and extrapolate k to zero voxel size
  // (pipeline/resolution_study.hpp): on, off, or automatic: where more than
  // narrow_flow_limit of the flow passes pores narrower than 3 voxels (the trust report).
  enum class Study { off, on, automatic };
  Study resolution_study = Study::automatic;
  // Where grey labels are declared, also run the sample with its grey voxels solid: k of the
  // resolved pores alone beside k with the grey phase (pipeline/companion.hpp).
  bool without_grey = true;
  // Also solve the electrical conduction of the brine in the same lattice: the formation factor
  // F, F phi and Archie's m beside k (pipeline/conduction.hpp); grey phases conduct as
  // sigma_w phi_c^grey_cementation.
  bool formation_factor = false;
  // With formation_factor: also the flow and k (false: F alone, run.formation_factor = only;
  // no step of the flow is taken and report.json's permeability is null)
  bool permeability = true;
  double grey_cementation = 2.0;
  TwoPhaseSpec two_phase;
  ForchheimerSpec forchheimer;
  ExecutionSpec execution;
  OutputSpec output;
  void validate() const;  // everything above
};

}  // namespace rockperm::pipeline
