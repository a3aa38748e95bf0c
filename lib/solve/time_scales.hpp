#pragma once
// How long a run takes to reach steady flow, and the relaxation time that makes it shortest.
//
// Two processes set the pace (issue "A converged, trustworthy k"; docs/ACCURACY.md):
//  - momentum diffuses across a pore of diameter d: T_m = d^2 / (pi^2 nu) steps;
//  - the pressure field along the sample (length L along the flow) is set by the flow it
//    drives, a diffusion with coefficient k c_s^2 / (nu phi): T_p = L^2 nu phi / (pi^2 k c_s^2).
// T_m falls as the viscosity nu grows and T_p rises; they are equal at
// nu* = (d / L) sqrt(k c_s^2 / phi). On tight rock T_p dominates by orders of magnitude at
// tau = 1 (a 128^3 pack of 10 % porosity: 374,000 steps at tau = 1, 7,600 at tau = 0.51, the
// same k to 1e-4), on open periodic media T_m does. TRT with the magic parameter 3/16 makes k
// independent of tau, so tau is free to choose for speed.
#include "lib/geometry/pore_statistics.hpp"

namespace rockperm::solve {

struct TimeScales {
  double momentum = 0;  // steps, T_m
  double pressure = 0;  // steps, T_p
};

// With k and d from the Kozeny-Carman estimate of `stats`; `length` in voxels along the flow.
TimeScales time_scales(const geometry::PoreStatistics& stats, double length, double nu);

// The tau the solver takes when none is given: 1/2 + 3 alpha nu*, within [min_auto_tau,
// max_auto_tau]. alpha = 2.5 with the estimates of pore_statistics (2026-11-26, H200; it was 1):
// the fastest tau measured was 0.505 to 0.507 on the tight512 pack (nu* of alpha 1: tau 0.5025;
// 0.502 and 0.503 took 17,600 and 17,400 steps, 0.505 15,700), 0.8 to 1 on the 34 % pack768
// (alpha 1: 0.641, 14,100 steps; 0.8: 6,600; 1.0: 6,400) and 0.8 to 1 on the bundled 35 % pack
// (alpha 1: 0.61, 1100 steps; 0.8 to 1: 900). The hydraulic diameter underestimates the pores
// that set the momentum time on open media; alpha 2.5 lies inside all three ranges.
// measured down to here: k the same to 1e-4 (0.51 until 2026-11-26; at 0.505 a 128^3 tight pack
// between buffers gives k within 1.1e-5 of tau 0.51's in 12,600 steps instead of 17,000, and the
// tight512 pack on an H200 11.8189 mD in 15,700 steps instead of 36,600; docs/ACCURACY.md)
inline constexpr double min_auto_tau = 0.505;
inline constexpr double max_auto_tau = 2.0;
inline constexpr double auto_tau_alpha = 2.5;
double fastest_tau(const geometry::PoreStatistics& stats, double length);

}  // namespace rockperm::solve
