#pragma once
// The resolution study (issue 36, part 2; run.resolution_study): the sample run once more on a
// grid twice as coarse, and k extrapolated to zero voxel size from the two, with the
// discretisation error that the extrapolation implies beside the convergence error of the run.
//
// k(h) = k0 + C h^p for voxel size h (docs/ACCURACY.md, "The resolution study": p measured on
// sphere arrays); from h and 2h, k0 = k(h) + (k(h) - k(2h)) / (2^p - 1), and the discretisation
// error of the run's k is |k0 - k(h)| / k(h), where a third grid (4h) confirms the order
// (discretisation()). The coarse samples are the fine mask coarsened by majority
// (lib/geometry/coarsen.hpp) once and twice, run with the same boundaries and grey phases (their K
// in voxel^2 a quarter and a sixteenth of the fine one's), their own tau and force where those are
// automatic, and no checkpoints: 1/8 + 1/64 of the cells.
//
// Steps: the pressure time along the sample, L^2 nu phi / (pi^2 k c_s^2), is the same number of
// steps on every grid where the pores are resolved (coarsening halves L and quarters k in voxels),
// and more where coarsening closes throats and k falls further. So each coarse grid runs at most
// coarse_step_budget times the sample's own steps: on a tight 1000^3 pack between buffers the 2x
// grid took 1.6 times the sample's 16,200 steps, while the 4x grid, its throats a voxel wide, ran
// its whole 200,000-step limit without converging (23 s of the run's 197 s on an H100, for no
// result). A grid over its budget is a note and the study goes on without it, as with any coarse
// run that does not converge (docs/ACCURACY.md, "The resolution study").
// The whole study then costs at most 4 (1/8 + 1/64) = 0.56 of the sample's cell updates.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "lib/parallel/comm.hpp"
#include "pipeline/result.hpp"
#include "pipeline/run.hpp"

namespace rockperm::pipeline {

// The order of the staircase error in the voxel size, measured on simple-cubic sphere arrays.
inline constexpr double resolution_order = 1.0;
// A coarse grid's step limit, in steps of the sample's own run (see above); the request's limit
// (execution.max_steps) where that is lower.
inline constexpr std::int64_t coarse_step_budget = 4;
// The smallest extent (voxels) of the 4x coarser grid: below it the study uses two grids.
inline constexpr std::int64_t min_coarser_extent = 4;

// k at zero voxel size from k at voxel sizes h (fine) and 2h (coarse), both in the same unit.
inline double extrapolated_k(double fine, double coarse, double order = resolution_order) {
  return fine + (fine - coarse) / (std::pow(2.0, order) - 1.0);
}

// The discretisation error from k on grids h, 2h and (where there is one) 4h, all in one unit:
// Roache's grid convergence index (J. Fluids Eng. 116, 405, 1994; ASME V&V 20): k0 extrapolated
// with resolution_order from h and 2h, and the error Fs |k0 - k(h)| / k(h), with the safety factor
// Fs = 1.25 where the 4x grid confirms the order (k changes the same way from 4h to 2h and from
// 2h to h, the second change 1/4 to 3/4 of the first: an observed order between 0.4 and 2, or
// changes under 1e-3 of k) and Fs = 3 where it does not (non-monotonic, changes that do not
// shrink) or there are two grids only.
inline constexpr double confirmed_safety = 1.25, unconfirmed_safety = 3.0;
// The largest extrapolation, |k0 - k(h)| / k(h), that the study reports: from order 1, the coarse
// grid's k within (0, 2) times the sample's. Beyond it k0 would be <= 0 (a grey-map sample gave
// -88 mD, a one-voxel hole in a plate -428 mD and "2511 %", both reported as asymptotic): the
// study is withheld with the reason, as one that could not be made.
inline constexpr double max_extrapolation = 1.0;
struct Discretisation {
  double k0 = 0, error = 0;
  bool asymptotic = false;  // the third grid confirms the order
  bool withheld = false;    // outside the range any bound supports (max_extrapolation): note says why
  std::string note;        // where it does not, why
};
Discretisation discretisation(double k_h, double k_2h, std::optional<double> k_4h);

// Collective. Fills fine.resolution; never throws for what the coarse sample does (a coarse
// sample without a path, or a run that does not converge, is a note in the result).
void run_resolution_study(const parallel::Comm& comm, const RunRequest& request, SampleResult& fine);

}  // namespace rockperm::pipeline
