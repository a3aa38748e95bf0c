#pragma once
// What the monitor needs from the populations, reduced on the backend in double so that no
// population array has to leave the device.
#include <cmath>
#include <cstdint>

#include "lib/physics/collision.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/base/hd.hpp"
#include "lib/physics/storage.hpp"

namespace rockperm::physics {

struct FlowSums {
  double mass = 0.0;            // sum of rho over fluid cells
  double velocity[3] = {0, 0, 0};  // sum of u over fluid cells
  double grey_velocity[3] = {0, 0, 0};  // sum of u over the cells of grey phases (issue 36)
  double speed = 0.0;           // sum of |u| over fluid cells (tortuosity)
  double max_speed = 0.0;       // max |u| (Mach number)
  bool finite = true;           // false when any population is NaN or Inf

  ROCKPERM_HD void add(const FlowSums& o) {
    mass += o.mass;
    for (int a = 0; a < 3; ++a) velocity[a] += o.velocity[a];
    for (int a = 0; a < 3; ++a) grey_velocity[a] += o.grey_velocity[a];
    speed += o.speed;
    max_speed = max_speed > o.max_speed ? max_speed : o.max_speed;
    finite = finite && o.finite;
  }
};

// The phase of a cell (0: open pore; CollisionParams::phases).
ROCKPERM_HD inline std::uint8_t cell_phase(const physics::CollisionParams& p, std::uint64_t cell) {
  return p.phases ? p.phases[cell] : std::uint8_t{0};
}

// Sums of one cell in natural (streamed) order.
template <class S>
ROCKPERM_HD inline FlowSums cell_sums(const S* f, std::uint64_t stride, std::uint32_t cell,
                                      const physics::CollisionParams& p) {
  const std::uint8_t phase = cell_phase(p, cell);
  float v[d3q19::q];
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) v[i] = StorageTraits<S>::load(f[i * stride + cell]);
  const physics::Moments m = physics::moments(v, p, p.drag[phase]);
  FlowSums s;
  s.mass = 1.0 + static_cast<double>(m.drho);
  double sq = 0.0;
  for (int a = 0; a < 3; ++a) {
    s.velocity[a] = m.u[a];
    if (phase != 0) s.grey_velocity[a] = m.u[a];
    sq += static_cast<double>(m.u[a]) * m.u[a];
  }
  s.speed = sqrt(sq);
  s.max_speed = s.speed;
  s.finite = (s.mass - s.mass) == 0.0 && (sq - sq) == 0.0;  // false for NaN and Inf
  return s;
}

// The plane sums across the flow axis (the pressure profile and the flux through every plane) are
// kept in fixed point: each cell's density deviation and velocity along the axis are rounded to
// a multiple of 2^-40 and summed as 64-bit integers. Integer sums do not depend on the order of
// addition, so they are the same on any number of threads, GPU blocks or ranks (a plane of 10^6
// cells at |u| = 1 stays below 2^60).
inline constexpr double plane_fixed_scale = 1099511627776.0;  // 2^40

// The flux-weighted density deviation of a plane (the power its pressure delivers through it, per
// unit of flux) sums drho u along the axis per cell, products of two small numbers (1e-3 and 1e-2 at
// most in a creeping run: 3e9 per cell here, so a plane of a billion cells stays within 64 bits)
inline constexpr double plane_weighted_scale = 281474976710656.0;  // 2^48

struct PlaneValues {
  long long drho = 0;      // fixed point
  long long flux = 0;      // fixed point, velocity along the axis
  long long weighted = 0;  // fixed point (plane_weighted_scale), drho times the velocity along the axis
};

template <class S>
ROCKPERM_HD inline PlaneValues cell_plane_values(const S* f, std::uint64_t stride, std::uint32_t cell, int axis,
                                                 const physics::CollisionParams& p) {
  const std::uint8_t phase = cell_phase(p, cell);
  float v[d3q19::q];
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) v[i] = StorageTraits<S>::load(f[i * stride + cell]);
  const physics::Moments m = physics::moments(v, p, p.drag[phase]);
  return PlaneValues{llrint(static_cast<double>(m.drho) * plane_fixed_scale),
                     llrint(static_cast<double>(m.u[axis]) * plane_fixed_scale),
                     llrint(static_cast<double>(m.drho) * static_cast<double>(m.u[axis]) * plane_weighted_scale)};
}

// Cells are reduced in blocks of this many, then the blocks in order, so that the result
// does not depend on the number of threads.
inline constexpr std::uint32_t reduction_block = 4096;

}  // namespace rockperm::physics
