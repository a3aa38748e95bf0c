// The backends' passes of the pressure extrapolation (lib/physics/density_extrapolation.hpp):
// what they hold, the products the jump is decided by, and a jump that moves the density alone.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/test_support.hpp"

namespace rockperm {

namespace {
std::vector<float> densities(backend::Backend& b) {
  backend::Macroscopic m;
  b.macroscopic(b.owned(), m);
  return m.drho;
}
}  // namespace

TEST(DensityExtrapolation, ProductsAreTheIntegerSumsOfTheHeldChanges) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const lattice::SparseLattice lat =
      lattice::SparseLattice::build(testing::sphere_pack_mask(16, 0.3, 3.0, 7), {false, true, true});
  const auto params = physics::make_collision_params(physics::CollisionModel::trt, 0.52, 3.0 / 16.0, 0, 1e-5);
  const auto backend = testing::make_test_backend(lat, params);
  std::int64_t step = 0;
  const auto advance_by = [&](int n) {
    for (int s = 0; s < n; ++s, ++step) advance(*backend, backend::Propagation::two_pass, step);
  };
  advance_by(100);
  ASSERT_TRUE(backend->hold_density(false));
  const std::vector<float> rho0 = densities(*backend);
  advance_by(100);
  ASSERT_TRUE(backend->hold_density(true));
  const std::vector<float> rho1 = densities(*backend);
  advance_by(100);
  const std::vector<float> rho2 = densities(*backend);

  std::vector<float> held;
  backend->held_densities(held);
  const std::size_t n = rho0.size();
  ASSERT_EQ(held.size(), 2 * n);
  float peak = 0;
  for (std::size_t c = 0; c < n; ++c) {
    ASSERT_EQ(held[2 * c], rho1[c]) << "held is the density at the last hold";
    ASSERT_EQ(held[2 * c + 1], rho1[c] - rho0[c]) << "change is the density's change before it";
    peak = std::max(peak, std::max(std::abs(rho2[c] - rho1[c]), std::abs(rho1[c] - rho0[c])));
  }
  EXPECT_EQ(backend->density_change_peak(), peak);
  const float scale = physics::products_scale(peak);
  ASSERT_GT(scale, 0.0f);
  physics::DensityProducts expected;
  for (std::size_t c = 0; c < n; ++c) expected.add(physics::cell_products(rho1[c] - rho0[c], rho2[c] - rho1[c], scale));
  const physics::DensityProducts p = backend->density_products(scale);
  EXPECT_EQ(p.d11, expected.d11);
  EXPECT_EQ(p.d21, expected.d21);
  EXPECT_EQ(p.d22, expected.d22);
  EXPECT_GT(p.d11, 0);
}

TEST(DensityExtrapolation, AJumpMovesEachDensityByItsChangeAndConservesMassAndMomentum) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const lattice::SparseLattice lat =
      lattice::SparseLattice::build(testing::sphere_pack_mask(16, 0.3, 3.0, 7), {false, true, true});
  const auto params = physics::make_collision_params(physics::CollisionModel::trt, 0.52, 3.0 / 16.0, 0, 1e-5);
  const auto backend = testing::make_test_backend(lat, params);
  for (std::int64_t s = 0; s < 100; ++s) advance(*backend, backend::Propagation::two_pass, s);
  ASSERT_TRUE(backend->hold_density(false));
  for (std::int64_t s = 100; s < 200; ++s) advance(*backend, backend::Propagation::two_pass, s);
  const std::vector<float> held = [&] {
    std::vector<float> h;
    backend->held_densities(h);
    return h;
  }();
  const std::vector<float> before = densities(*backend);
  const physics::FlowSums sums_before = backend->sums();
  std::vector<float> f_before;
  backend->download(f_before);

  const float factor = 2.5f;
  backend->extrapolate_density(factor);
  const std::vector<float> after = densities(*backend);
  const physics::FlowSums sums_after = backend->sums();
  std::vector<float> f_after;
  backend->download(f_after);

  double moved = 0;
  for (std::size_t c = 0; c < before.size(); ++c) {
    const double expected = factor * (before[c] - held[2 * c]);
    // to the rounding of the densities themselves (a sum of 19 floats, with or without FMA)
    const double rounding = 4e-7 * (std::abs(before[c]) + std::abs(after[c])) + 1e-6 * std::abs(expected) + 1e-12;
    EXPECT_NEAR(after[c] - before[c], expected, rounding) << "cell " << c;
    moved += std::abs(expected);
  }
  EXPECT_GT(moved, 0.0);
  // the changes sum to zero: mass stays (to the rounding of the sums)
  EXPECT_NEAR(sums_after.mass, sums_before.mass, 1e-9 * sums_before.mass);
  // only the equilibrium's density part moved: f_i - f_-i (the momentum carried along each link)
  // is the same to float rounding in every cell
  const std::size_t stride = f_before.size() / d3q19::q;
  for (std::size_t c = 0; c < before.size(); ++c) {
    for (int i = 1; i <= d3q19::half; ++i) {
      const double d0 = f_before[i * stride + c] - f_before[(i + d3q19::half) * stride + c];
      const double d1 = f_after[i * stride + c] - f_after[(i + d3q19::half) * stride + c];
      ASSERT_NEAR(d1, d0, 1e-6 * (std::abs(d0) + std::abs(after[c] - before[c])) + 1e-12) << "cell " << c << " pair " << i;
    }
  }
  std::vector<float> held_after;
  backend->held_densities(held_after);
  for (std::size_t c = 0; c < before.size(); ++c) {
    EXPECT_EQ(held_after[2 * c + 1], before[c] - held[2 * c]) << "the change the jump was made of";
  }
}

}  // namespace rockperm
