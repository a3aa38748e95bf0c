#include <gtest/gtest.h>

#include <random>

#include "lib/physics/collision.hpp"

namespace rockperm::physics {

namespace {
using d3q19::q;

void random_populations(float (&f)[q], std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.01f, 0.01f);
  for (int i = 0; i < q; ++i) f[i] = static_cast<float>(d3q19::weight(i)) * dist(rng) * 10.0f;
}

struct Sums {
  double mass, j[3];
};
Sums sums(const float (&f)[q]) {
  Sums s{0, {0, 0, 0}};
  for (int i = 0; i < q; ++i) {
    s.mass += f[i];
    for (int a = 0; a < 3; ++a) s.j[a] += static_cast<double>(f[i]) * d3q19::c(i, a);
  }
  return s;
}
}  // namespace

class CollisionInvariants : public ::testing::TestWithParam<CollisionModel> {};

TEST_P(CollisionInvariants, ConserveMassAndMomentumWithoutForce) {
  for (std::uint32_t seed = 1; seed <= 50; ++seed) {
    float f[q];
    random_populations(f, seed);
    const Sums before = sums(f);
    collide(f, make_collision_params(GetParam(), 0.73, 3.0 / 16.0, 0, 0.0));
    const Sums after = sums(f);
    EXPECT_NEAR(after.mass, before.mass, 1e-7);
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(after.j[a], before.j[a], 1e-7);
  }
}

TEST_P(CollisionInvariants, ForceAddsExactlyRhoGToMomentum) {
  for (std::uint32_t seed = 1; seed <= 50; ++seed) {
    float f[q];
    random_populations(f, seed);
    const Sums before = sums(f);
    const double g = 1e-4;
    collide(f, make_collision_params(GetParam(), 1.3, 3.0 / 16.0, 1, g));
    const Sums after = sums(f);
    const double rho = 1.0 + before.mass;
    EXPECT_NEAR(after.mass, before.mass, 1e-7);
    EXPECT_NEAR(after.j[0], before.j[0], 1e-7);
    EXPECT_NEAR(after.j[1] - before.j[1], rho * g, 1e-7);
    EXPECT_NEAR(after.j[2], before.j[2], 1e-7);
  }
}

TEST_P(CollisionInvariants, EquilibriumIsAFixedPoint) {
  // deviation form of f_eq(rho = 1.02, u = (0.01, -0.02, 0.005))
  const double rho = 1.02, u[3] = {0.01, -0.02, 0.005};
  float f[q];
  const double usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  for (int i = 0; i < q; ++i) {
    const double cu = d3q19::cx(i) * u[0] + d3q19::cy(i) * u[1] + d3q19::cz(i) * u[2];
    f[i] = static_cast<float>(d3q19::weight(i) * rho * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * usq) - d3q19::weight(i));
  }
  float g[q];
  std::copy(f, f + q, g);
  collide(g, make_collision_params(GetParam(), 0.9, 3.0 / 16.0, 0, 0.0));
  for (int i = 0; i < q; ++i) EXPECT_NEAR(g[i], f[i], 2e-8) << "i=" << i;
}

INSTANTIATE_TEST_SUITE_P(BgkAndTrt, CollisionInvariants, ::testing::Values(CollisionModel::bgk, CollisionModel::trt));

TEST(Collision, TrtWithEqualRatesIsBgk) {
  float a[q], b[q];
  random_populations(a, 7);
  std::copy(a, a + q, b);
  collide(a, make_collision_params(CollisionModel::bgk, 0.8, 0.0, 0, 1e-5));
  // magic chosen so that tau- = tau+: (0.3)(0.3) = 0.09
  collide(b, make_collision_params(CollisionModel::trt, 0.8, 0.09, 0, 1e-5));
  for (int i = 0; i < q; ++i) EXPECT_NEAR(a[i], b[i], 1e-9);
}

// The textbook TRT with Guo forcing, in double: what collide's collected form must reproduce.
void reference_trt(double (&f)[q], const CollisionParams& p) {
  double drho = 0, j[3] = {0, 0, 0};
  for (int i = 0; i < q; ++i) {
    drho += f[i];
    for (int a = 0; a < 3; ++a) j[a] += f[i] * d3q19::c(i, a);
  }
  const double rho = 1 + drho;
  double u[3], F[3];
  for (int a = 0; a < 3; ++a) u[a] = j[a] / rho + 0.5 * p.g[a], F[a] = rho * p.g[a];
  const double usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2], uF = u[0] * F[0] + u[1] * F[1] + u[2] * F[2];
  const double wp = p.omega_plus, wm = p.omega_minus;
  double out[q];
  for (int i = 0; i < q; ++i) {
    const int o = d3q19::opposite(i);
    const double w = d3q19::weight(i);
    const double cu = d3q19::cx(i) * u[0] + d3q19::cy(i) * u[1] + d3q19::cz(i) * u[2];
    const double cF = d3q19::cx(i) * F[0] + d3q19::cy(i) * F[1] + d3q19::cz(i) * F[2];
    // deviations from w_i of the equilibrium and the Guo source, split into even and odd parts
    const double eq_even = w * (drho + rho * (4.5 * cu * cu - 1.5 * usq)), eq_odd = 3 * w * rho * cu;
    const double src_even = w * (9 * cu * cF - 3 * uF), src_odd = 3 * w * cF;
    const double f_even = 0.5 * (f[i] + f[o]), f_odd = 0.5 * (f[i] - f[o]);
    out[i] = f[i] - wp * (f_even - eq_even) - wm * (f_odd - eq_odd) + (1 - wp / 2) * src_even +
             (1 - wm / 2) * src_odd;
  }
  std::copy(out, out + q, f);
}

TEST_P(CollisionInvariants, MatchesTheTextbookTrtInDouble) {
  for (std::uint32_t seed = 1; seed <= 50; ++seed) {
    float f[q];
    random_populations(f, seed);
    double d[q];
    std::copy(f, f + q, d);
    const auto p = make_collision_params(GetParam(), 0.6 + 0.02 * seed, 3.0 / 16.0, seed % 3, 1e-4);
    collide(f, p);
    reference_trt(d, p);
    // deviations are up to ~0.03: a few float roundings of them
    for (int i = 0; i < q; ++i) EXPECT_NEAR(f[i], d[i], 2e-8) << "seed " << seed << " i=" << i;
  }
}

TEST(Collision, HeldUnitsGiveTheScaledResultBitForBit) {
  // 16-bit storage collides its values as held (times 2^14): the same result, scaled exactly
  const float unit = 1.0f / 16384.0f;
  for (std::uint32_t seed = 1; seed <= 50; ++seed) {
    float f[q], held[q];
    random_populations(f, seed);
    for (int i = 0; i < q; ++i) held[i] = f[i] / unit;
    const auto p = make_collision_params(CollisionModel::trt, 0.55 + 0.03 * seed, 3.0 / 16.0, seed % 3, 3e-5);
    collide(f, p);
    collide(held, p, unit);
    for (int i = 0; i < q; ++i) ASSERT_EQ(held[i] * unit, f[i]) << "seed " << seed << " i=" << i;
  }
}

TEST(Collision, MomentsIncludeHalfTheForce) {
  float f[q] = {};
  CollisionParams p = make_collision_params(CollisionModel::trt, 1.0, 3.0 / 16.0, 2, 2e-3);
  const Moments m = moments(f, p);
  EXPECT_FLOAT_EQ(m.rho, 1.0f);
  EXPECT_FLOAT_EQ(m.u[2], 1e-3f);
  EXPECT_FLOAT_EQ(m.u[0], 0.0f);
}

TEST(Collision, ViscosityAndMagicParameter) {
  EXPECT_DOUBLE_EQ(viscosity(1.0), 1.0 / 6.0);
  const auto p = make_collision_params(CollisionModel::trt, 0.8, 3.0 / 16.0, 0, 0.0);
  const double lambda = (1.0 / p.omega_plus - 0.5) * (1.0 / p.omega_minus - 0.5);
  EXPECT_NEAR(lambda, 3.0 / 16.0, 1e-6);
}

}  // namespace rockperm::physics
