// Flow through a simple-cubic array of spheres against the drag of Zick & Homsy (1982,
// J. Fluid Mech. 115, 13-26, table 2), which Sangani & Acrivos (1982, Int. J. Multiphase Flow
// 8, 343-360) reproduce. With K = F / (6 pi mu a U) (U the superficial velocity), the
// permeability of a unit cell of side L is k = L^3 / (6 pi a K).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "tests/pipeline_support.hpp"

namespace rockperm {

namespace {

geometry::PoreMask sphere_array(int L, double radius) {
  const double c = L / 2.0;  // centre on a voxel corner: the sphere is symmetric on the grid
  return testing::mask_from(geometry::Dims{L, L, L}, [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    const double dx = x + 0.5 - c, dy = y + 0.5 - c, dz = z + 0.5 - c;
    return dx * dx + dy * dy + dz * dz > radius * radius;
  });
}

}  // namespace

TEST(Validation, SimpleCubicSphereArrayMatchesZickHomsyWithinTwoPercent) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const double solid_fraction = 0.125, K_zick_homsy = 4.292;
  const int L = 48;
  const double a = L * std::cbrt(3 * solid_fraction / (4 * std::numbers::pi));
  const auto run = testing::run_pipeline(sphere_array(L, a), testing::periodic_flow(1.0, 1e-6));
  ASSERT_TRUE(run.result.converged());
  const double k_published = L * L * L / (6 * std::numbers::pi * a * K_zick_homsy);
  testing::record("k_over_published", run.result.k.k_lattice / k_published);
  EXPECT_NEAR(run.result.k.k_lattice / k_published, 1.0, 0.02)
      << "k = " << run.result.k.k_lattice << " voxel^2, published " << k_published;
}

}  // namespace rockperm
