#pragma once
// The flow's Darcy-scale start and density corrections (issue 67; docs/ACCURACY.md, "The
// Darcy-scale start and corrections").
//
// On tight rock a run from rest spends most of its steps on the slow pressure mode: poorly
// connected pore regions filling through narrow throats, a diffusion of the density whose time
// grows with the square of the sample's length. Two uses of one Darcy-scale model of the pore
// space help it along:
//
// The model: Darcy's law cell by cell, q = (c / nu) (g - c_s^2 grad rho'), div q = 0, that is
// div(c grad p) = div(c g) with p = c_s^2 rho', on the lattice's own cells and its 18 links
// (lib/solve/conduction.hpp, Stencil::links: what the flow joins, edge contacts included, and
// nothing the faces alone would split), solved by the conduction engine's multigrid CG on the host
// or the rank's GPU (built once, ConductionSystem). The conductance of a cell is the square of its
// distance to the wall, (d - 1/2)^2, d the distance of its centre from the nearest solid voxel's
// (the bounce-back wall lies half a voxel from a wall cell's centre); averaged over a slit of width
// w it is w^2 / 12, the slit's own permeability in voxel^2. A grey cell conducts its phase's
// permeability K (voxel^2), at most what an open cell there would.
//
// The start (run.start = darcy): before the first step the density of the model's steady field
// under the drive (a unit mean gradient over the lattice's period, buffers and mirror included:
// the body force's twin; rho' = 3 g x less its mean, so that no mass is added).
//
// The corrections (run.extrapolation = darcy; the model as a preconditioner of the lattice's own
// residual, a defect correction): every cycle the run steps `settle` steps (momentum settles),
// holds the density, steps `interval` more and reads its rate R per cell. On the slow time scale,
// away from steady, R = -(c_s^2 / nu) A e with A = -div(c grad) (the model's operator) and e the
// density's distance from its steady field; so e = -3 nu / s A^-1 R, s the model's scale against
// the lattice's mobility (1 for an exact model). The run adds -e to every cell. s is measured
// cycle by cycle, not assumed: the rate the last correction removed is the model's prediction of
// it times the true scale, and a line search in the A-norm (which weighs the slow modes) sets the
// last correction's size again (factor within [1/4, 4]) before the next is added.
//
// The stop: what a correction changes in k the model says too, its current against the steady
// field's (DarcyModel::relative_flux, exact summation by parts on the links). A correction that
// moves k by a quarter of the tolerance or more (its floor, twice that, half the tolerance) restarts
// the monitor's history, as a pressure jump does, and the run does not stop before the next; a
// smaller one ("quiet") leaves the history going and the run free to stop, and twice its change of
// k is a floor under the stated error (what is left of the slow mode is less than what the last
// correction removed). A run's corrections end at the first quiet one (`until` = `quiet`): later
// ones cost their solves and buy the stop nothing. What the model cannot see (where the lattice's
// mobility is far below its conductance, the rate of a slow mode is small and so is its correction)
// the stop's own guards must: the flux through the planes and k's history.
//
// What the model is not: the steady density. Its conductances are the lattice's mobility only to a
// factor of order one cell by cell (3.5 % rms off the steady plane means on a 128^3 pack), and
// what a start leaves off relaxes at the slow mode's pace: the corrections measure it instead.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/solve/conduction.hpp"

namespace rockperm::solve {

struct DarcyStartProblem {
  int axis = 0;                           // of the drive
  std::uint64_t region_voxels = 0;        // all voxels of the lattice's whole period (every rank's)
  std::vector<double> grey_permeability;  // K of each grey phase (phase c = index + 1), voxel^2
  // of each solve: its relative residual (the model is a few per cent off the lattice's mobility;
  // a closer solve of it buys nothing)
  double tolerance = 1e-3;
  // of a correction's solve: the model is a factor of order one off cell by cell and the line search
  // measures its scale, so a rougher solve buys nothing either (on an H100 a 2.9 M-cell correction
  // took 110 iterations, 0.8 s, at 1e-3, 8 times its 600 steps)
  double correction_tolerance = 1e-2;
  std::int64_t max_iterations = 0;        // 0: ConductionProblem::automatic_iterations of `whole`
  geometry::Dims whole;                   // the lattice's whole period
};

struct DarcyStart {
  // rho' / g of this rank's owned cells, in cell order: 3 (x - its mean over every rank's cells)
  std::vector<float> density_per_force;
  ConductionResult solve;  // its iterations, residual, seconds and device (conductivity: the model's, per voxel)
};

// The cells' conductances (every local cell, ghosts included): (d - 1/2)^2 from the distance d
// (voxels, exact up to `reach`, capped there beyond) to the nearest solid voxel of the local
// lattice's box; its sides count as solid where the lattice does not wrap and no ghost plane
// stands for a neighbour. `ghost_low`/`ghost_high`: whether the local lattice's first/last plane
// along z is a ghost plane (a Z-slab's).
inline constexpr int darcy_reach = 11;
std::vector<double> darcy_conductances(const lattice::SparseLattice& local, const std::vector<double>& grey_permeability,
                                       bool ghost_low, bool ghost_high);

// The model on a rank's slab, built once. Collective over `comm` (construction and every call).
// Throws std::bad_alloc where the memory for it cannot be had (the caller then goes on without it
// and says so).
class DarcyModel {
 public:
  DarcyModel(const parallel::Comm& comm, const lattice::SparseLattice& local, const ConductionSlab& slab,
             const DarcyStartProblem& problem, const ConductionEngineFactory& engine = {});
  DarcyStart start();
  // x = A^-1 rate (a value per owned cell), less its mean over every rank's cells
  std::vector<double> inverse(const std::vector<double>& rate);
  // the iterations of the last inverse()'s solve
  std::int64_t last_iterations() const { return last_iterations_; }
  // The relative change of the sample's flux (of k) that a change of the density, in units of the
  // drive's (rho' / g: the start's density_per_force), makes by the model: its current over that of
  // the start's steady field (ConductionSystem::current). After start().
  double relative_flux(const std::vector<double>& density_per_force) const;

 private:
  parallel::Comm comm_;
  std::unique_ptr<ConductionSystem> system_;
  double open_current_ = 0, steady_current_ = 0;  // under the unit drive: of x = 0 and of the start's x
  double correction_tolerance_ = 1e-2;
  std::int64_t last_iterations_ = 0;
};

// The corrections' schedule and arithmetic (see above), apart from where the densities live: the
// caller reads the owned cells' density deviations at the steps asked and adds what it is given.
struct DensityCorrectionSettings {
  std::int64_t settle = 300, interval = 300;  // steps (rounded up to the checks')
  int max_cycles = 10;
  // a rate is read only where the density's rms change is at least this many float roundings of
  // its rms value (else the interval is doubled, up to max_stretch times; beyond, the corrections end)
  double resolution = 100.0;
  int max_stretch = 8;
  // corrections end once one's error floor (twice its change of k) is below this; a run sets it
  // and `quiet` to half its tolerance
  double until = 1e-5;
  // a correction whose error floor is below this does not restart the monitor
  double quiet = 2.5e-5;
  double first_scale = 2.0;  // s of the first correction (then measured): over-corrects nothing
  double min_factor = 0.25, max_factor = 4.0;  // of a line search
};

class DensityCorrection {
 public:
  DensityCorrection(const parallel::Comm& comm, const DensityCorrectionSettings& settings, double nu, double drop);
  bool active() const { return cycles_ < settings_.max_cycles && !done_; }
  // At a check of `step`: whether the caller is to hand the densities in (hold or measure).
  bool wants_density(std::int64_t step) const;
  // The owned cells' density deviations at `step` (wants_density said so). Returns the change to
  // add to each owned cell's density (empty: none now), using `inverse` (DarcyModel::inverse).
  // `effect`: the relative change of k that a change of the densities makes (DarcyModel::relative_flux
  // of it over g).
  std::vector<double> density(std::int64_t step, const std::vector<float>& rho,
                               const std::function<std::vector<double>(const std::vector<double>&)>& inverse,
                               const std::function<double(const std::vector<double>&)>& effect);
  int cycles() const { return cycles_; }
  double scale() const { return 3.0 * nu_ / beta_; }  // the model's scale s as measured (1: exact)
  // The relative change of k the last correction made as the model sees it (0 before the first)
  double last_effect() const { return last_effect_; }
  // The time (steps) over which what the last correction measured would decay by e by itself: the
  // model's Rayleigh quotient of its shape, 3 nu / s (x . x) / (x . R); 0 before the first
  double slow_time() const { return slow_time_; }
  double last_size() const { return last_size_; }      // rms of the last correction over the drop
  // Whether the corrections ended on their size (the last's error floor below `until`; not on the
  // floats' resolution or the cycles' limit)
  bool converged() const { return converged_; }
  // A bound on k's relative distance from steady that the slow mode leaves after the last
  // correction: twice the change of k the model says it made (what it removed is what the model saw,
  // and what is left is smaller, the next correction's; twice, for the model's cell-by-cell
  // mismatch with the lattice's mobility)
  double error_floor() const { return 2.0 * last_effect_; }
  // Whether the last correction was too small to restart the monitor's history (its error floor
  // below `quiet`): the run may stop while smaller ones go on
  bool quiet() const { return cycles_ > 0 && error_floor() < settings_.quiet; }
  // Whether the run may not stop yet: corrections go on and the last was not quiet
  bool holds() const { return active() && !quiet(); }

 private:
  parallel::Comm comm_;
  DensityCorrectionSettings settings_;
  double nu_, drop_, beta_;
  std::int64_t held_at_ = -1, next_hold_, stretched_ = 0;
  std::vector<float> held_;
  std::vector<double> rate_before_, shape_before_, added_before_;
  int cycles_ = 0;
  bool done_ = false, converged_ = false;
  double last_size_ = 0, last_effect_ = 0;
  double slow_time_ = 0;
};

}  // namespace rockperm::solve
