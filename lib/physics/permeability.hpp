#pragma once
// Permeability from the steady body-force-driven flow (DESIGN.md, Physics):
//   k = nu * q / g   (lattice units), q = Darcy (superficial) velocity
//     = sum of u along the flow axis over the fluid cells of the measured region,
//       divided by the number of all voxels (fluid and solid) of that region.
#include <cstdint>

#include "lib/physics/flow_sums.hpp"

namespace rockperm::physics {

inline constexpr double m2_per_darcy = 9.869233e-13;

struct FlowProblem {
  int flow_axis = 0;
  double tau = 1.0;
  double acceleration = 1e-5;      // body acceleration along the flow axis, lattice units
  std::uint64_t region_voxels = 0; // all voxels of the measured region
  std::uint64_t region_fluid = 0;  // fluid voxels of the measured region
  double voxel_size_um = 1.0;
};

struct Permeability {
  double k_lattice = 0;       // voxel^2
  double k_m2 = 0;
  double k_darcy = 0;
  double k_md = 0;
  double porosity = 0;
  double darcy_velocity = 0;  // lattice units
  double tortuosity = 0;      // sum |u| / sum u_axis (velocity-weighted)
  double reynolds = 0;        // q * sqrt(k) / nu
  double mach = 0;            // max |u| / c_s
};

// Stokes flow is linear, so the lattice's flow is that of any stated physical case: a pressure
// gradient G (Pa/m) along the flow axis through a fluid of viscosity mu (Pa s), voxels of dx m:
//   u [m/s] = u_lattice * (nu_lattice / g_lattice) * (G / mu) * dx^2
//   p [Pa]  = c_s^2 (rho - 1) / g_lattice * G * dx   (the periodic part; the mean gradient not added)
struct FieldScale {
  double velocity_m_per_s = 0;  // per lattice velocity unit
  double pressure_pa = 0;       // per unit of rho - 1
};
inline FieldScale field_scale(double nu_lattice, double g_lattice, double gradient_pa_per_m, double viscosity_pa_s,
                              double voxel_size_m) {
  return {nu_lattice / g_lattice * gradient_pa_per_m / viscosity_pa_s * voxel_size_m * voxel_size_m,
          (1.0 / 3.0) / g_lattice * gradient_pa_per_m * voxel_size_m};
}

Permeability permeability(const FlowSums& sums, const FlowProblem& problem);
// The same with the Darcy velocity given (read over part of the region, lib/solve/pressure_planes.hpp).
Permeability permeability(const FlowSums& sums, const FlowProblem& problem, double darcy_velocity);

}  // namespace rockperm::physics
