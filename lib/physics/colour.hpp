#pragma once
// Immiscible two-phase flow by the colour-gradient model (issue 69): the one definition of its
// per-cell physics that the CPU loops (lib/backend/colour_cpu.hpp) and the CUDA kernels
// (cuda/colour_kernels.cu) call. A second physics beside the single-phase TRT of collision.hpp (DESIGN.md, "Beyond one
// phase").
//
// State of a cell: the D3Q19 populations f of the mixture's momentum (deviation form, as
// collision.hpp: f~_i = f_i - w_i), and two D3Q7 populations A and B that carry the two phases'
// densities (LBPM's layout: 19 + 7 + 7 values, against 38 for two D3Q19 colours). The phase
// indicator phi = (nA - nB) / (nA + nB) is +1 in phase A, -1 in phase B.
//
// One step of a cell, from phi at the cell and its 18 neighbours:
//  1. the interface: the colour gradient g = grad phi and the Hessian H of phi by the isotropic
//     D3Q19 stencils, the normal n = g / |g| and the curvature kappa = (n.H.n - tr H) / |g|
//     (= -div n; 2 / R inside a sphere of A of radius R);
//  2. the interfacial tension as a body force (continuum surface force, Brackbill 1992; in the
//     colour-gradient model Liu, Valocchi & Kang 2012): F = sigma kappa grad phi / 2, whose
//     integral across the interface is sigma kappa (phi jumps by 2): Laplace's pressure jump;
//  3. TRT collision of f with the local viscosity (harmonic mean of the phases' by their
//     fractions) and Guo forcing with F plus each phase's body acceleration, Lambda = 3/16 as
//     for k so that the walls sit half-way whatever the viscosity;
//  4. recolouring (Latva-Kokko & Rothman 2005, on D3Q7 as in LBPM): A and B are set to their
//     advection equilibria at the mixture's velocity plus a segregation flux of the amount
//     beta nA nB / (nA + nB) along n, given to A and taken from B. Against the lattice
//     diffusion of the D3Q7 equilibria (D = cs7^2 / 2 = 1/8) it holds a flat interface at
//     phi = tanh(beta s), s the distance across it in voxels: about 4 / beta voxels wide.
//
// Walls: half-way bounce-back for all three sets of populations; in the stencils of step 1 a
// wall (solid) neighbour shows the phase indicator `wall_phi` (LBPM's wetting by the phase field
// at the wall: +1 wets with A, -1 with B, 0 neutral), or with geometric_wetting the value that
// makes the interface meet the wall at the angle whose cosine wall_phi is (geometric_wall_phi).
#include <cmath>
#include <cstdint>

#include "lib/base/hd.hpp"
#include "lib/physics/d3q19.hpp"

namespace rockperm::physics::colour {

// D3Q7: rest and the six faces, as D3Q19 directions (0, +x, +y, +z, -x, -y, -z), so that a
// D3Q19 neighbour table serves both; the opposite of k in 1..3 is k + 3.
inline constexpr int q7 = 7;
ROCKPERM_HD constexpr int d3q19_direction(int k) {
  constexpr std::int8_t v[q7] = {0, 1, 2, 3, 10, 11, 12};
  return v[k];
}
ROCKPERM_HD constexpr int opposite7(int k) { return k == 0 ? 0 : (k <= 3 ? k + 3 : k - 3); }
// weights 1/4 (rest) and 1/8 (faces): sound speed squared 1/4
ROCKPERM_HD constexpr float weight7(int k) { return k == 0 ? 0.25f : 0.125f; }

struct ColourParams {
  float sigma = 0.0f;            // interfacial tension (lattice units)
  float beta = 0.7f;             // segregation of the recolouring, in (0, 1]
  float nu[2] = {1.0f / 6.0f, 1.0f / 6.0f};  // kinematic viscosity of phase A and of phase B
  float magic = 3.0f / 16.0f;    // TRT's Lambda
  float g[2][3] = {};            // body acceleration of phase A and of phase B
  float wall_phi = 0.0f;         // the phase indicator a wall shows the stencils (wetting)
  // true: the walls' wetting by the interface's direction instead (geometric_wall_phi; wall_phi,
  // per cell or uniform, is then cos theta through phase A)
  bool geometric_wetting = false;
};

// The interface seen from one cell.
struct Interface {
  float grad[3];   // grad phi
  float normal[3]; // grad phi / |grad phi|; zero where |grad phi| is below round-off
  float force[3];  // the interfacial tension's force density over sigma: kappa grad phi / 2
};

// `phi[i]`: the phase indicator at the cell (i = 0) and at cell + e_i (wall_phi at a wall).
// Every stencil weight sum of the constants vanishes, so the differences phi_i - phi_0 are used
// (a smaller rounding where phi is near +-1).
ROCKPERM_HD inline Interface interface_at(const float (&phi)[d3q19::q]) {
  float g[3] = {0.0f, 0.0f, 0.0f}, h[3][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
ROCKPERM_UNROLL
  for (int i = 1; i < d3q19::q; ++i) {
    const float w = d3q19::weightf(i), d = phi[i] - phi[0];
    const int e[3] = {d3q19::cx(i), d3q19::cy(i), d3q19::cz(i)};
ROCKPERM_UNROLL
    for (int a = 0; a < 3; ++a) {
      g[a] += w * e[a] * d;
ROCKPERM_UNROLL
      for (int b = 0; b < 3; ++b) h[a][b] += w * (e[a] * e[b] - (a == b ? 1.0f / 3.0f : 0.0f)) * d;
    }
  }
  Interface out;
  // grad = (1 / cs^2) sum w e phi, H = (1 / cs^4) sum w (e e - cs^2 I) phi
ROCKPERM_UNROLL
  for (int a = 0; a < 3; ++a) {
    g[a] *= 3.0f;
ROCKPERM_UNROLL
    for (int b = 0; b < 3; ++b) h[a][b] *= 9.0f;
  }
  const float size = sqrtf(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  const float inv = size > 1e-6f ? 1.0f / size : 0.0f;
  float n[3];
ROCKPERM_UNROLL
  for (int a = 0; a < 3; ++a) {
    out.grad[a] = g[a];
    n[a] = g[a] * inv;
    out.normal[a] = n[a];
  }
  // kappa |g| = n.H.n - tr H, and F / sigma = kappa |g| n / 2
  float nhn = 0.0f;
ROCKPERM_UNROLL
  for (int a = 0; a < 3; ++a)
ROCKPERM_UNROLL
    for (int b = 0; b < 3; ++b) nhn += n[a] * h[a][b] * n[b];
  const float curvature_size = nhn - (h[0][0] + h[1][1] + h[2][2]);
ROCKPERM_UNROLL
  for (int a = 0; a < 3; ++a) out.force[a] = 0.5f * curvature_size * n[a];
  return out;
}

// The geometric wetting (after Leclaire et al. 2017 and Akai et al. 2018 for the colour-gradient
// model), in place of a constant phase field at the walls, which holds no angle below about 21
// degrees (docs/ACCURACY.md): each wall neighbour of a cell (bit i of `walls` set: cell + e_i is a
// wall) shows the cell's phi extrapolated along a gradient whose part along the wall is the one the
// fluid neighbours show, and whose part across it makes the interface meet the wall at theta:
// n.m = -cos theta, with n = grad phi / |grad phi| (into phase A) and m the wall's normal into the
// fluid. Away from an interface the walls show the cell's own phi (no wetting film is drawn along
// them). `phi`: at the cell (0) and its fluid neighbours; the walls' entries are written, held in
// [-1, 1]. sin theta is held at 0.1 or more (theta 5.7 degrees: the gradient across the wall stays
// finite at full wetting).
ROCKPERM_HD inline void geometric_wall_phi(float (&phi)[d3q19::q], std::uint32_t walls, float cos_theta) {
  float m[3] = {0.0f, 0.0f, 0.0f}, g[3] = {0.0f, 0.0f, 0.0f};
ROCKPERM_UNROLL
  for (int i = 1; i < d3q19::q; ++i) {
    const float w = d3q19::weightf(i);
    const int e[3] = {d3q19::cx(i), d3q19::cy(i), d3q19::cz(i)};
    const bool wall = (walls >> i) & 1u;
    const float d = wall ? 0.0f : phi[i] - phi[0];
ROCKPERM_UNROLL
    for (int a = 0; a < 3; ++a) {
      m[a] -= wall ? w * e[a] : 0.0f;
      g[a] += 3.0f * w * e[a] * d;  // the fluid neighbours' part of grad phi
    }
  }
  const float size = sqrtf(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
  const float inv = size > 1e-6f ? 1.0f / size : 0.0f;
ROCKPERM_UNROLL
  for (int a = 0; a < 3; ++a) m[a] *= inv;
  const float across = g[0] * m[0] + g[1] * m[1] + g[2] * m[2];
  float along[3];
ROCKPERM_UNROLL
  for (int a = 0; a < 3; ++a) along[a] = g[a] - across * m[a];
  const float t = sqrtf(along[0] * along[0] + along[1] * along[1] + along[2] * along[2]);
  const float c = fminf(fmaxf(cos_theta, -1.0f), 1.0f), s = fmaxf(sqrtf(1.0f - c * c), 0.1f);
  const float normal = -t * c / s;  // the gradient's part along m
ROCKPERM_UNROLL
  for (int i = 1; i < d3q19::q; ++i) {
    if (!((walls >> i) & 1u)) continue;
    const int e[3] = {d3q19::cx(i), d3q19::cy(i), d3q19::cz(i)};
    float v = phi[0];
ROCKPERM_UNROLL
    for (int a = 0; a < 3; ++a) v += e[a] * (along[a] + normal * m[a]);
    phi[i] = fminf(fmaxf(v, -1.0f), 1.0f);
  }
}

// The fraction of phase A, (1 + phi) / 2, held in [0, 1].
ROCKPERM_HD inline float fraction_a(float phi) { return fminf(fmaxf(0.5f * (1.0f + phi), 0.0f), 1.0f); }

// The mixture's kinematic viscosity: the harmonic mean of the phases' by their fractions, so that
// a layer's shear stress (not its rate) is continuous across a flat interface.
ROCKPERM_HD inline float viscosity_at(float phi, const ColourParams& p) {
  const float a = fraction_a(phi);
  return 1.0f / (a / p.nu[0] + (1.0f - a) / p.nu[1]);
}

struct ColourMoments {
  float na, nb;    // the phases' densities (D3Q7 sums)
  float phi;       // (na - nb) / (na + nb)
  float drho;      // the mixture's density deviation (D3Q19 sum), rho = 1 + drho; pressure rho / 3
  float u[3];      // the mixture's velocity with Guo's half force
  float accel[3];  // force per unit mass on the cell: interfacial tension and the phases' drives
};

// The phases' densities: the sums of their D3Q7 populations (in this order, so that every caller
// sums alike).
ROCKPERM_HD inline void colour_densities(const float (&a)[q7], const float (&b)[q7], float& na, float& nb) {
  na = 0.0f;
  nb = 0.0f;
ROCKPERM_UNROLL
  for (int k = 0; k < q7; ++k) {
    na += a[k];
    nb += b[k];
  }
}

// `na`, `nb`: the phases' densities (colour_densities of the cell's colours).
ROCKPERM_HD inline ColourMoments colour_moments(const float (&f)[d3q19::q], float na, float nb, const Interface& in,
                                                const ColourParams& p) {
  ColourMoments m;
  m.na = na;
  m.nb = nb;
  const float total = m.na + m.nb;
  m.phi = total > 0.0f ? (m.na - m.nb) / total : 0.0f;
  float drho = 0.0f, j[3] = {0.0f, 0.0f, 0.0f};
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) {
    drho += f[i];
    j[0] += d3q19::cx(i) * f[i];
    j[1] += d3q19::cy(i) * f[i];
    j[2] += d3q19::cz(i) * f[i];
  }
  m.drho = drho;
  const float rho = 1.0f + drho, fa = fraction_a(m.phi);
ROCKPERM_UNROLL
  for (int c = 0; c < 3; ++c) {
    m.accel[c] = p.sigma * in.force[c] / rho + fa * p.g[0][c] + (1.0f - fa) * p.g[1][c];
    m.u[c] = j[c] / rho + 0.5f * m.accel[c];
  }
  return m;
}

// The state a run starts from: phase fraction set, the mixture at rest in Guo's sense
// (collision.hpp, rest_population) under the phases' drives.
ROCKPERM_HD inline void rest_state(float phi, const ColourParams& p, float (&f)[d3q19::q], float (&a)[q7],
                                   float (&b)[q7]) {
  const float fa = fraction_a(phi);
  float accel[3];
ROCKPERM_UNROLL
  for (int c = 0; c < 3; ++c) accel[c] = fa * p.g[0][c] + (1.0f - fa) * p.g[1][c];
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) f[i] = -1.5f * d3q19::weightf(i) * d3q19::dot(i, accel[0], accel[1], accel[2]);
ROCKPERM_UNROLL
  for (int k = 0; k < q7; ++k) {
    a[k] = weight7(k) * fa;
    b[k] = weight7(k) * (1.0f - fa);
  }
}

// One cell's collision (f in place) and recolouring (the colours `a`, `b` written), from its
// populations, its phases' densities and the interface.
ROCKPERM_HD inline void collide_colour(float (&f)[d3q19::q], float na, float nb, const Interface& in,
                                       const ColourParams& p, float (&a)[q7], float (&b)[q7]) {
  const ColourMoments m = colour_moments(f, na, nb, in, p);
  // TRT at the local viscosity, as collision.hpp's collide() (its derivation there), with a
  // force per unit mass that varies by cell
  const float tau = 3.0f * viscosity_at(m.phi, p) + 0.5f;
  const float wp = 1.0f / tau, wm = 1.0f / (0.5f + p.magic / (tau - 0.5f));
  const float rho = 1.0f + m.drho;
  const float ux = m.u[0], uy = m.u[1], uz = m.u[2];
  const float usq = ux * ux + uy * uy + uz * uz;
  const float ug = ux * m.accel[0] + uy * m.accel[1] + uz * m.accel[2];
  const float P = wp * m.drho - rho * (1.5f * wp * usq + 3.0f * (1.0f - 0.5f * wp) * ug);
  const float keep_even = 0.5f * (1.0f - wp), keep_odd = 0.5f * (1.0f - wm);
  f[0] = (1.0f - wp) * f[0] + d3q19::weightf(0) * P;
ROCKPERM_UNROLL
  for (int i = 1; i <= d3q19::half; ++i) {
    const float w = d3q19::weightf(i);
    const float s = f[i] + f[i + d3q19::half], d = f[i] - f[i + d3q19::half];
    const float c = d3q19::dot(i, ux, uy, uz);
    const float ea = d3q19::dot(i, m.accel[0], m.accel[1], m.accel[2]);
    const float even = keep_even * s + w * (rho * c * (4.5f * wp * c + 9.0f * (1.0f - 0.5f * wp) * ea) + P);
    const float odd = keep_odd * d + 3.0f * w * rho * (wm * c + (1.0f - 0.5f * wm) * ea);
    f[i] = even + odd;
    f[i + d3q19::half] = even - odd;
  }
  // recolouring: each phase's advection equilibrium (D3Q7, cs^2 = 1/4) plus the segregation
  const float total = m.na + m.nb;
  const float apart = total > 0.0f ? p.beta * m.na * m.nb / total : 0.0f;
ROCKPERM_UNROLL
  for (int k = 0; k < q7; ++k) {
    const int i = d3q19_direction(k);
    const float w = weight7(k);
    const float eu = d3q19::dot(i, ux, uy, uz), en = d3q19::dot(i, in.normal[0], in.normal[1], in.normal[2]);
    a[k] = w * (m.na * (1.0f + 4.0f * eu) + apart * en);
    b[k] = w * (m.nb * (1.0f + 4.0f * eu) - apart * en);
  }
}

}  // namespace rockperm::physics::colour
