// The colour-gradient model's per-cell physics (lib/physics/colour.hpp): its stencils on fields
// whose derivatives are known, and what the collision and the recolouring must conserve.
#include <gtest/gtest.h>

#include <cmath>

#include "lib/physics/colour.hpp"

namespace rockperm::physics {

namespace {

// phi around the origin from a function of the offset
template <class Fn>
void around(float (&phi)[d3q19::q], Fn fn) {
  for (int i = 0; i < d3q19::q; ++i) phi[i] = static_cast<float>(fn(d3q19::cx(i), d3q19::cy(i), d3q19::cz(i)));
}

}  // namespace

TEST(Colour, TheStencilsAreExactOnQuadratics) {
  float phi[d3q19::q];
  // a plane: the gradient exact, no curvature, no force
  around(phi, [](int x, int y, int z) { return 0.1 + 0.02 * x - 0.03 * y + 0.05 * z; });
  colour::Interface in = colour::interface_at(phi);
  EXPECT_NEAR(in.grad[0], 0.02f, 1e-6f);
  EXPECT_NEAR(in.grad[1], -0.03f, 1e-6f);
  EXPECT_NEAR(in.grad[2], 0.05f, 1e-6f);
  for (float f : in.force) EXPECT_NEAR(f, 0.0f, 1e-6f);
  // phi = -(x^2 + y^2) / 2 + 0.1 x near x = 0: grad (0.1, 0, 0), H = -diag(1, 1, 0), so
  // kappa |g| = n.H.n - tr H = -1 + 2 = 1 and the force over sigma is n / 2 along x
  around(phi, [](int x, int y, int) { return -0.5 * (x * x + y * y) + 0.1 * x; });
  in = colour::interface_at(phi);
  EXPECT_NEAR(in.grad[0], 0.1f, 1e-6f);
  EXPECT_NEAR(in.normal[0], 1.0f, 1e-6f);
  EXPECT_NEAR(in.force[0], 0.5f, 1e-5f);
  EXPECT_NEAR(in.force[1], 0.0f, 1e-6f);
}

TEST(Colour, ASphereOfAHasTheCurvatureTwoOverR) {
  // phi = tanh((R - r) / w) about a cell at distance R from the centre, on the interface: the
  // force per sigma is kappa |grad phi| / 2 along the inward normal, kappa = 2 / R to the stencil's
  // second order
  const double radius = 40, w = 3;
  float phi[d3q19::q];
  around(phi, [&](int x, int y, int z) {
    const double r = std::sqrt((radius + x) * (radius + x) + 1.0 * y * y + 1.0 * z * z);
    return std::tanh((radius - r) / w);
  });
  const colour::Interface in = colour::interface_at(phi);
  const double grad = std::abs(in.grad[0]);
  EXPECT_NEAR(grad, 1.0 / w, 0.05 / w);  // tanh's third derivative: -3.6 % at w = 3
  EXPECT_NEAR(in.normal[0], -1.0f, 1e-6f);  // into the drop
  const double kappa = -2.0 * in.force[0] / grad;
  EXPECT_NEAR(kappa, 2.0 / radius, 0.05 * 2.0 / radius);
}

TEST(Colour, CollisionKeepsEachPhaseAndTheMassAndAddsTheForcesMomentum) {
  colour::ColourParams p;
  p.sigma = 0.02f;
  p.nu[0] = 0.1f;
  p.nu[1] = 0.4f;
  p.g[0][0] = 1e-4f;
  p.g[1][2] = -2e-4f;
  float f[d3q19::q], a[colour::q7], b[colour::q7], phi[d3q19::q];
  colour::rest_state(0.2f, p, f, a, b);
  for (int i = 0; i < d3q19::q; ++i) f[i] += 1e-3f * std::sin(1.0f + i);  // some flow
  for (int k = 0; k < colour::q7; ++k) a[k] += 1e-3f * std::cos(1.0f + k);
  around(phi, [](int x, int y, int z) { return 0.2 + 0.3 * x - 0.1 * y * y + 0.05 * z * x; });
  const colour::Interface in = colour::interface_at(phi);
  float na0, nb0;
  colour::colour_densities(a, b, na0, nb0);
  const colour::ColourMoments before = colour::colour_moments(f, na0, nb0, in, p);
  float j0[3] = {0, 0, 0};
  for (int i = 0; i < d3q19::q; ++i)
    for (int c = 0; c < 3; ++c) j0[c] += d3q19::c(i, c) * f[i];
  colour::collide_colour(f, na0, nb0, in, p, a, b);
  float drho = 0, j[3] = {0, 0, 0}, na = 0, nb = 0;
  for (int i = 0; i < d3q19::q; ++i) {
    drho += f[i];
    for (int c = 0; c < 3; ++c) j[c] += d3q19::c(i, c) * f[i];
  }
  for (int k = 0; k < colour::q7; ++k) {
    na += a[k];
    nb += b[k];
  }
  EXPECT_NEAR(drho, before.drho, 1e-7f);
  EXPECT_NEAR(na, before.na, 1e-6f);
  EXPECT_NEAR(nb, before.nb, 1e-6f);
  const float rho = 1.0f + before.drho;
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(j[c] - j0[c], rho * before.accel[c], 1e-7f) << "axis " << c;
  // the colours' flux: each phase at the mixture's velocity, plus the segregation along the
  // normal, given to A and taken from B (D3Q7: sum over k of w e e = 1/4)
  const float apart = p.beta * before.na * before.nb / (before.na + before.nb);
  for (int c = 0; c < 3; ++c) {
    float qa = 0, qb = 0;
    for (int k = 0; k < colour::q7; ++k) {
      qa += d3q19::c(colour::d3q19_direction(k), c) * a[k];
      qb += d3q19::c(colour::d3q19_direction(k), c) * b[k];
    }
    EXPECT_NEAR(qa, before.na * before.u[c] + 0.25f * apart * in.normal[c], 1e-6f) << "axis " << c;
    EXPECT_NEAR(qb, before.nb * before.u[c] - 0.25f * apart * in.normal[c], 1e-6f) << "axis " << c;
  }
}

TEST(Colour, TheMixturesViscosityIsTheHarmonicMeanOfThePhases) {
  colour::ColourParams p;
  p.nu[0] = 0.1f;
  p.nu[1] = 0.4f;
  EXPECT_FLOAT_EQ(colour::viscosity_at(1.0f, p), 0.1f);
  EXPECT_FLOAT_EQ(colour::viscosity_at(-1.0f, p), 0.4f);
  EXPECT_FLOAT_EQ(colour::viscosity_at(0.0f, p), 1.0f / (0.5f / 0.1f + 0.5f / 0.4f));
  EXPECT_FLOAT_EQ(colour::viscosity_at(1.5f, p), 0.1f);  // phi beyond +-1 (round-off) is held
}

}  // namespace rockperm::physics
