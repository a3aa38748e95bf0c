#pragma once
// Beyond Darcy: apparent permeability and the Forchheimer coefficient from a rate sweep
// (spec.forchheimer; docs/manual/forchheimer.md):
//
//   the run's converged creeping state (point 0) -> for each pore Reynolds number of the sweep,
//   geometric from its first to its top, while the fastest cell's u_max / nu stays within what the
//   lattice holds: tau for the Mach number of its fastest velocity (k's where that allows it),
//   checks every half momentum time, the
//   force from Forchheimer's law as measured so far, the state scaled to it (velocity with g / nu,
//   density with g), the loop to its own stop -> k_app(Re) -> Forchheimer's line
//   1/k_app = 1/k + beta (rho q / mu) fitted over the points past a 1 % fall, and the Reynolds
//   numbers where k_app falls 1 % and 10 %.
//
// The same Simulation steps on (its lattice, backend and ranks), so a step costs its own steps
// only; TRT with the magic 3/16 keeps the wall where it is whatever tau a step takes.
#include <cstdint>
#include <functional>
#include <vector>

#include "lib/parallel/comm.hpp"
#include "pipeline/driver.hpp"
#include "pipeline/result.hpp"
#include "pipeline/simulation.hpp"

namespace rockperm::pipeline {

// The pore diameter of the Reynolds number, voxels: 4 phi / S, S the pore-solid faces per voxel
// times 2/3 (a staircase's faces are 3/2 of the smooth surface they approximate, averaged over
// orientations). 0 where the pore space has no surface.
double pore_diameter_voxels(const geometry::PoreStatistics& pores);

// The highest pore Reynolds number the lattice reaches on pores `diameter` voxels wide, where the
// fastest velocity is `peak` times the mean pore velocity q / phi: there that velocity crosses
// ForchheimerSpec::max_grid_reynolds voxels per viscous time (u_max / nu = Re peak / d, whatever tau).
double reachable_reynolds(double diameter, double peak);

// Before any step: throws InputError (forchheimer.max_reynolds) where the sweep's top is beyond the
// lattice's reach on this sample even with the flattest velocity profile there is (a slit's
// 1.5 times the mean), naming the reach and what would extend it.
void check_forchheimer_reach(const ForchheimerSpec& spec, const geometry::PoreStatistics& pores);

// A rate's check interval: half its momentum time d^2 / (pi^2 nu) (d the hydraulic diameter), even,
// within [ForchheimerSpec::min_check_interval, the run's]. A rate starts from the last one's
// converged field, so what it has left to relax is the pore-scale change of the flow, on that time;
// the stop's fit needs eight checks, which then span four momentum times instead of 800 steps.
std::int64_t rate_check_interval(const geometry::PoreStatistics& pores, double nu, std::int64_t run_interval);

struct SweepSettings {
  std::function<bool()> stop_requested;  // a signal arrived (this process's view)
  double walltime_minutes = 0;           // left for the sweep (0: no limit)
  solve::ProgressFn progress;            // after every check (rank 0)
  // after each point (rank 0): the point, its index and the points asked
  std::function<void(const ForchheimerPoint&, std::size_t, std::size_t)> point_done;
};

// Collective: the sweep from `simulation`'s converged state (result: its result, the sweep into
// result.forchheimer). A step that does not converge is reported with its stated error, one that
// goes unstable ends the sweep (the note says where). Returns the reason where a stop signal or
// the wall-time limit ended it (the points made are reported), else empty.
std::string run_forchheimer(const parallel::Comm& comm, Simulation& simulation, const ForchheimerSpec& spec,
                            std::int64_t max_steps, const SweepSettings& settings, SampleResult& result);

// The fit over the points from the first whose k_app is 1 % below point 0's to the last (done
// false where fewer than two, or the line does not meet 1/k_app > 0). Ordinary least squares of
// 1/k_app (1/m^2) on rho q / mu (1/m).
ForchheimerFit fit_forchheimer(const std::vector<ForchheimerPoint>& points);
// The pore Reynolds number where k_app / k first falls to 1 - drop, linear in ln Re between the
// points around it; NaN where the sweep does not reach it.
double onset_reynolds(const std::vector<ForchheimerPoint>& points, double drop);

}  // namespace rockperm::pipeline
