#pragma once
// The resolution study (issue 36, part 2; run.resolution_study): the sample run once more on a
// grid twice as coarse, and k extrapolated to zero voxel size from the two, with the
// discretisation error that the extrapolation implies beside the convergence error of the run.
//
// k(h) = k0 + C h^p for voxel size h (docs/ACCURACY.md, "The resolution study": p measured on
// sphere arrays); from h and 2h, k0 = k(h) + (k(h) - k(2h)) / (2^p - 1), and the discretisation
// error of the run's k is |k0 - k(h)| / k(h). The coarse sample is the fine mask coarsened by
// majority (lib/geometry/coarsen.hpp), run with the same boundaries and grey phases (their K in
// voxel^2 a quarter of the fine one's), its own tau and force where those are automatic, and no
// checkpoints: 1/8 of the cells and at most as many steps (docs/ACCURACY.md, "The resolution study").
#include <cmath>
#include <string>

#include "lib/parallel/comm.hpp"
#include "pipeline/result.hpp"
#include "pipeline/run.hpp"

namespace rockperm::pipeline {

// The order of the staircase error in the voxel size, measured on simple-cubic sphere arrays.
inline constexpr double resolution_order = 1.0;

// k at zero voxel size from k at voxel sizes h (fine) and 2h (coarse), both in the same unit.
inline double extrapolated_k(double fine, double coarse, double order = resolution_order) {
  return fine + (fine - coarse) / (std::pow(2.0, order) - 1.0);
}

// Collective. Fills fine.resolution; never throws for what the coarse sample does (a coarse
// sample without a path, or a run that does not converge, is a note in the result).
void run_resolution_study(const Comm& comm, const RunRequest& request, SampleResult& fine);

}  // namespace rockperm::pipeline
