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
#include <span>

#include "lib/base/names.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/base/hd.hpp"

namespace rockperm::physics {

// Grey (sub-resolution porous) phases a run may declare (input.grey_labels): the cell phase codes
// 1..max_grey_phases (0: open pore): every code of a byte above open (PoreMask), enough for one
// phase per intensity of an 8-bit scan's grey range (input.grey_map).
inline constexpr int max_grey_phases = 254;

enum class CollisionModel { bgk, trt };
inline constexpr std::array<Named<CollisionModel>, 2> collision_names{
    {{"trt", CollisionModel::trt}, {"bgk", CollisionModel::bgk}}};

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
  // The forcing's constants per direction i = 1..9 (index i - 1), from g, omega+ and omega-:
  // 9 (1 - omega+ / 2) e_i . g and (1 - omega- / 2) e_i . g. Set with g by
  // make_collision_params, so that the GPU reads them from its kernel parameters instead of
  // computing them in every thread; zero, as g, by default.
  float force_plus[d3q19::half] = {};
  float force_minus[d3q19::half] = {};
  // The Darcy drag of each cell phase (lattice units, per step): 0 for open pore (phase 0), nu / K
  // for grey phase c = 1..max_grey_phases of permeability K (voxel^2); see collide() below.
  float drag[max_grey_phases + 1] = {};
  // The phase of every cell of the backend's lattice (SparseLattice::phases(): in device memory
  // on a GPU), set by the backend; null where every cell is open (the kernels without grey).
  const std::uint8_t* phases = nullptr;
};

inline double viscosity(double tau) { return (tau - 0.5) / 3.0; }

// `grey_permeability`: K of each grey phase in voxel^2 (phase c = index + 1), at most max_grey_phases.
inline CollisionParams make_collision_params(CollisionModel model, double tau, double magic, int flow_axis,
                                             double acceleration, std::span<const double> grey_permeability = {}) {
  CollisionParams p;
  p.omega_plus = static_cast<float>(1.0 / tau);
  p.omega_minus = p.omega_plus;
  if (model == CollisionModel::trt) {
    const double tau_minus = 0.5 + magic / (tau - 0.5);
    p.omega_minus = static_cast<float>(1.0 / tau_minus);
  }
  p.g[flow_axis] = static_cast<float>(acceleration);
  const double keep_plus = 1.0 - 0.5 * p.omega_plus, keep_minus = 1.0 - 0.5 * p.omega_minus;
  for (int i = 1; i <= d3q19::half; ++i) {
    const double eg = d3q19::c(i, flow_axis) * acceleration;
    p.force_plus[i - 1] = static_cast<float>(9.0 * keep_plus * eg);
    p.force_minus[i - 1] = static_cast<float>(keep_minus * eg);
  }
  for (std::size_t c = 0; c < grey_permeability.size() && c < max_grey_phases; ++c) {
    p.drag[c + 1] = static_cast<float>(viscosity(tau) / grey_permeability[c]);
  }
  return p;
}

struct Moments {
  float drho;   // density deviation rho - 1, summed from the deviations (no rounding against 1)
  float rho;    // density
  float u[3];   // velocity with the Guo half-force correction, u = (sum f e + rho g / 2) / rho
};

// A grey cell's velocity is the explicit one, j / rho + g / 2, over 1 + drag / 2 (the implicit
// drag of collide() below): this factor, the one definition moments() and collide() share.
ROCKPERM_HD inline float drag_shrink(float drag) { return 1.0f / (1.0f + 0.5f * drag); }

// `drag`: the cell's (CollisionParams::drag of its phase); in a grey cell the velocity is the
// implicit one of collide() below.
ROCKPERM_HD inline Moments moments(const float (&f)[d3q19::q], const CollisionParams& p, float drag = 0.0f) {
  float drho = 0.0f, j[3] = {0.0f, 0.0f, 0.0f};
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) {
    drho += f[i];
ROCKPERM_UNROLL
    for (int a = 0; a < 3; ++a) {
      if (d3q19::c(i, a) == 1) j[a] += f[i];
      if (d3q19::c(i, a) == -1) j[a] -= f[i];
    }
  }
  Moments m;
  m.drho = drho;
  m.rho = 1.0f + drho;
  const float inv_rho = 1.0f / m.rho;
ROCKPERM_UNROLL
  for (int a = 0; a < 3; ++a) m.u[a] = j[a] * inv_rho + 0.5f * p.g[a];
  if (drag != 0.0f) {
    const float shrink = drag_shrink(drag);
ROCKPERM_UNROLL
    for (int a = 0; a < 3; ++a) m.u[a] *= shrink;
  }
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
  return -1.5f * d3q19::weightf(i) * (d3q19::cx(i) * p.g[0] + d3q19::cy(i) * p.g[1] + d3q19::cz(i) * p.g[2]);
}

// Relaxes the 19 populations of one cell in place (deviation form), TRT with Guo forcing.
//
// `unit`: what one unit of the held values is worth, a power of two (16-bit storage holds the
// deviations times 2^14, lib/physics/storage.hpp, and collides them as held: unit = 2^-14, no
// scaling per population on the way in or out). Every constant is folded with it, so that the
// result is the held form of the unit-1 result, bit for bit.
//
// The TRT update of the pair (i, -i), w its weight, c = e_i.u, rho g the force, in its even and
// odd parts s = f_i + f_-i and d = f_i - f_-i:
//   s <- s - 2 omega+ (s/2 - w (drho + rho (4.5 c^2 - 1.5 u^2))) + 2 (1 - omega+/2) w (9 c rho e_i.g - 3 rho u.g)
//   d <- d - 2 omega- (d/2 - 3 w rho c) + 2 (1 - omega-/2) 3 w rho e_i.g
// which collect as
//   s/2 <- (1 - omega+) s/2 + w P + w rho c (4.5 omega+ c + force_plus_i),
//          P = omega+ drho - rho (1.5 omega+ u^2 + 3 (1 - omega+/2) u.g)   (the same for every i)
//   d/2 <- (1 - omega-) d/2 + 3 w rho (omega- c + force_minus_i)
// and f_i = s/2 + d/2, f_-i = s/2 - d/2. The sums s and d also give the moments: about 11
// operations per pair instead of 25 (the collision was most of the fp16 kernels' instructions).
//
// Grey (a sub-resolution porous phase, `drag` = nu / K of its permeability K; docs/ACCURACY.md,
// "Grey voxels"): the Darcy-Brinkman drag -drag u joins g in the force per unit mass,
// a = g - drag u. Guo's velocity u = j / rho + a / 2 then holds u on both sides, and solved for it
// u = (j / rho + g / 2) / (1 + drag / 2): the semi-implicit (midpoint) form, stable for every
// drag >= 0. The force constants are those of a, computed per cell; an open cell (Grey false)
// is the code above, bit for bit.
template <bool Grey = false>
ROCKPERM_HD inline void collide(float (&f)[d3q19::q], const CollisionParams& p, float unit = 1.0f,
                                float drag = 0.0f) {
  float s[d3q19::half + 1], d[d3q19::half + 1];
  float sum = f[0], j[3] = {0.0f, 0.0f, 0.0f};
ROCKPERM_UNROLL
  for (int i = 1; i <= d3q19::half; ++i) {
    s[i] = f[i] + f[i + d3q19::half];
    d[i] = f[i] - f[i + d3q19::half];
    sum += s[i];
ROCKPERM_UNROLL
    for (int a = 0; a < 3; ++a) {
      if (d3q19::c(i, a) == 1) j[a] += d[i];
      if (d3q19::c(i, a) == -1) j[a] -= d[i];
    }
  }
  const float drho = unit * sum, rho = 1.0f + drho;
  const float scale = unit / rho;
  float ux = j[0] * scale + 0.5f * p.g[0], uy = j[1] * scale + 0.5f * p.g[1], uz = j[2] * scale + 0.5f * p.g[2];
  float a[3] = {p.g[0], p.g[1], p.g[2]};
  if constexpr (Grey) {
    const float shrink = drag_shrink(drag);
    ux *= shrink;
    uy *= shrink;
    uz *= shrink;
    a[0] -= drag * ux;
    a[1] -= drag * uy;
    a[2] -= drag * uz;
  }
  const float usq = ux * ux + uy * uy + uz * uz;
  const float ug = ux * a[0] + uy * a[1] + uz * a[2];
  const float wp = p.omega_plus, wm = p.omega_minus;
  const float P = wp * drho - rho * (1.5f * wp * usq + 3.0f * (1.0f - 0.5f * wp) * ug);
  const float keep_even = 0.5f * (1.0f - wp), keep_odd = 0.5f * (1.0f - wm);
  const float held = 1.0f / unit;  // exact: a power of two
  // per weight class (1/18 along the axes, 1/36 on the diagonals), in held units
  const float Pw1 = (d3q19::weightf(1) * held) * P, Pw2 = (d3q19::weightf(4) * held) * P;
  const float Rw1 = (d3q19::weightf(1) * held) * rho, Rw2 = (d3q19::weightf(4) * held) * rho;

  f[0] = (1.0f - wp) * f[0] + (d3q19::weightf(0) * held) * P;
ROCKPERM_UNROLL
  for (int i = 1; i <= d3q19::half; ++i) {
    const bool axis = i <= 3;
    const float Pw = axis ? Pw1 : Pw2, Rw = axis ? Rw1 : Rw2;
    const float c = d3q19::dot(i, ux, uy, uz);
    float force_plus = p.force_plus[i - 1], force_minus = p.force_minus[i - 1];
    if constexpr (Grey) {
      const float ea = d3q19::dot(i, a[0], a[1], a[2]);
      force_plus = 9.0f * (1.0f - 0.5f * wp) * ea;
      force_minus = (1.0f - 0.5f * wm) * ea;
    }
    const float even = keep_even * s[i] + ((Rw * c) * (4.5f * wp * c + force_plus) + Pw);
    const float odd = keep_odd * d[i] + (3.0f * Rw) * (wm * c + force_minus);
    f[i] = even + odd;
    f[i + d3q19::half] = even - odd;
  }
}

}  // namespace rockperm::physics
