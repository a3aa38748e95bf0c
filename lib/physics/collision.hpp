#pragma once
#include <cstdint>
// Collision, equilibrium, Guo forcing and moments: the one physics definition that the CPU
// backend and the CUDA kernels both call.
//
// Populations are stored as deviations from the rest equilibrium, f~_i = f_i - w_i (with
// rho_0 = 1). The deviations are O(u) instead of O(1), so float storage keeps about three more
// decimal digits of the velocity; streaming and bounce-back are unchanged because w_i = w_-i.
//
// TRT (Ginzburg): the symmetric part relaxes with omega+ = 1/tau (sets the viscosity), the
// antisymmetric part with omega-, chosen from the magic parameter
// Lambda = (1/omega+ - 1/2)(1/omega- - 1/2). Lambda = 3/16 puts the half-way bounce-back wall
// exactly half-way for Poiseuille flow, so the permeability does not depend on tau.
// BGK is the special case omega- = omega+.
#include <cmath>

#include "lib/physics/d3q19.hpp"
#include "lib/base/hd.hpp"

namespace rockperm::physics {

enum class CollisionModel { bgk, trt };

struct CollisionParams {
  float omega_plus = 1.0f;
  float omega_minus = 1.0f;
  float g[3] = {0.0f, 0.0f, 0.0f};  // body acceleration in lattice units; force density is rho * g
  // the step's seed of the stochastic rounding of 16-bit storage (lib/physics/storage.hpp),
  // and the global index of local cell 0 (modulo 2^32; a rank's slab: its first owned cell's
  // global index minus its owned_begin), so that the rounding of a cell does not depend on the
  // decomposition; unused by float storage
  std::uint32_t seed = 0;
  std::uint32_t cell_offset = 0;
};

inline double viscosity(double tau) { return (tau - 0.5) / 3.0; }

inline CollisionParams make_collision_params(CollisionModel model, double tau, double magic, int flow_axis,
                                             double acceleration) {
  CollisionParams p;
  p.omega_plus = static_cast<float>(1.0 / tau);
  p.omega_minus = p.omega_plus;
  if (model == CollisionModel::trt) {
    const double tau_minus = 0.5 + magic / (tau - 0.5);
    p.omega_minus = static_cast<float>(1.0 / tau_minus);
  }
  p.g[flow_axis] = static_cast<float>(acceleration);
  return p;
}

struct Moments {
  float drho;   // density deviation rho - 1, summed from the deviations (no rounding against 1)
  float rho;    // density
  float u[3];   // velocity with the Guo half-force correction, u = (sum f e + rho g / 2) / rho
};

ROCKPERM_HD inline Moments moments(const float (&f)[lattice::q], const CollisionParams& p) {
  float drho = 0.0f, j[3] = {0.0f, 0.0f, 0.0f};
ROCKPERM_UNROLL
  for (int i = 0; i < lattice::q; ++i) {
    drho += f[i];
ROCKPERM_UNROLL
    for (int a = 0; a < 3; ++a) {
      if (lattice::c(i, a) == 1) j[a] += f[i];
      if (lattice::c(i, a) == -1) j[a] -= f[i];
    }
  }
  Moments m;
  m.drho = drho;
  m.rho = 1.0f + drho;
  const float inv_rho = 1.0f / m.rho;
ROCKPERM_UNROLL
  for (int a = 0; a < 3; ++a) m.u[a] = j[a] * inv_rho + 0.5f * p.g[a];
  return m;
}

// The state every run starts from: rest, rho = 1 and u = 0, in deviation form.
//
// With the Guo half-force velocity u = (sum f e + rho g / 2) / rho, rest means a first moment of
// -rho g / 2, so f_i = w_i (1 - 3 e_i.g / 2); all deviations zero would be a fluid already
// moving at g / 2. The difference is not a start-up detail. With half-way bounce-back every
// D3Q19 scheme conserves, for each axis a, the staggered momentum
//     M_a(t) = (-1)^t sum over fluid cells of (-1)^(x_a) j_a(x, t),   j = sum f e (pre-collision)
// (every population that carries a momentum along a moves one cell along a per step, and
// bounce-back reverses both the population and the sign, so M_a never changes; collision
// conserves j). This is one of Ginzburg's staggered invariants: a mode of eigenvalue -1 that no
// relaxation damps. The forcing adds rho g to j in every cell each step, so M_x is driven by
// sum (-1)^x rho g, which is non-zero wherever the fluid is not evenly spread over odd and even
// planes (an orifice plate, a dead end, any real pore space). Started from zero deviations, the
// flow then settles into a period-2 cycle, not a steady state: k alternates between odd and even
// steps (1.1 % at tau = 1 behind a one-voxel orifice) and the k read on even steps moves with tau.
// The steady state of the linear scheme is the mean of the cycle, and it is the one
// Ginzburg's parametrisation makes a function of Lambda only. Started from this rest state, the
// staggered momentum already has its steady value -sum (-1)^x rho g / 2, the cycle is never
// excited, and k is the same on odd and even steps and for every tau (docs/ACCURACY.md).
ROCKPERM_HD inline float rest_population(int i, const CollisionParams& p) {
  return -1.5f * lattice::weightf(i) * (lattice::cx(i) * p.g[0] + lattice::cy(i) * p.g[1] + lattice::cz(i) * p.g[2]);
}

// Relaxes the 19 populations of one cell in place (deviation form), TRT with Guo forcing.
ROCKPERM_HD inline void collide(float (&f)[lattice::q], const CollisionParams& p) {
  const Moments m = moments(f, p);
  const float rho = m.rho, drho = m.drho;
  const float ux = m.u[0], uy = m.u[1], uz = m.u[2];
  const float usq = ux * ux + uy * uy + uz * uz;
  const float Fx = rho * p.g[0], Fy = rho * p.g[1], Fz = rho * p.g[2];
  const float uF = ux * Fx + uy * Fy + uz * Fz;
  const float keep_plus = 1.0f - 0.5f * p.omega_plus, keep_minus = 1.0f - 0.5f * p.omega_minus;

  const float w0 = lattice::weightf(0);
  f[0] -= p.omega_plus * (f[0] - w0 * (drho - 1.5f * rho * usq)) + keep_plus * 3.0f * w0 * uF;

ROCKPERM_UNROLL
  for (int i = 1; i <= lattice::half; ++i) {
    const int o = i + lattice::half;
    const float w = lattice::weightf(i);
    const float cu = lattice::dot(i, ux, uy, uz);
    const float cF = lattice::dot(i, Fx, Fy, Fz);
    const float eq_plus = w * (drho + rho * (4.5f * cu * cu - 1.5f * usq));
    const float eq_minus = w * rho * 3.0f * cu;
    const float src_plus = w * (9.0f * cu * cF - 3.0f * uF);
    const float src_minus = w * 3.0f * cF;
    const float f_plus = 0.5f * (f[i] + f[o]);
    const float f_minus = 0.5f * (f[i] - f[o]);
    const float d_plus = p.omega_plus * (f_plus - eq_plus) - keep_plus * src_plus;
    const float d_minus = p.omega_minus * (f_minus - eq_minus) - keep_minus * src_minus;
    f[i] -= d_plus + d_minus;
    f[o] -= d_plus - d_minus;
  }
}

}  // namespace rockperm::physics
