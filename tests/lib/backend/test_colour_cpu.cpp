// The colour model's CPU loops (lib/backend/colour_cpu.hpp) over lib/lattice/colour_propagation.hpp:
// what is stored between steps is the populations before streaming, so the start must be stored
// where the first pull finds it; and the stored state must keep each colour.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lib/backend/colour_cpu.hpp"
#include "lib/base/error.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

struct Case {
  lattice::SparseLattice lat;
  physics::colour::ColourParams p;
  std::vector<float> phi;
};

// a pack with walls, and a sharp slab of A across it: every cell next to a wall or the interface
// pulls populations that a wrong start would have put elsewhere
Case pack_with_a_slab() {
  Case c{lattice::SparseLattice::build(testing::sphere_pack_mask(24, 0.45, 4.0, 5), {true, true, true}, true), {}, {}};
  c.p.sigma = 0.01f;
  c.p.nu[1] = 0.05f;
  c.p.g[0][0] = 2e-5f;
  c.p.g[1][0] = 1e-5f;
  c.p.wall_phi = 0.5f;
  c.phi.resize(c.lat.fluid_count());
  for (std::uint32_t k = 0; k < c.lat.fluid_count(); ++k) c.phi[k] = c.lat.coords()[k].z < 12 ? 0.9f : -0.8f;
  return c;
}

}  // namespace

TEST(ColourCpu, TheFirstPullFindsTheStartItself) {
  const Case c = pack_with_a_slab();
  backend::ColourCpu model(c.lat, c.p, c.phi);
  const auto fields = model.fields();
  ASSERT_EQ(fields.phi.size(), c.phi.size());
  double phi_error = 0, speed = 0;
  for (std::size_t k = 0; k < c.phi.size(); ++k) {
    phi_error = std::max(phi_error, double(std::abs(fields.phi[k] - c.phi[k])));
    // at rest in Guo's sense: u is the half force, the drives' (the interface's force is sigma
    // kappa grad phi / 2 / rho, bounded by the sharp slab's |grad phi| < 2)
    for (int a = 0; a < 3; ++a) speed = std::max(speed, double(std::abs(fields.u[3 * k + a])));
  }
  EXPECT_LT(phi_error, 1e-6);
  EXPECT_LT(speed, 0.5 * (2e-5 + c.p.sigma * 2.0 * 4.0));
}

TEST(ColourCpu, StepsKeepEachColour) {
  const Case c = pack_with_a_slab();
  backend::ColourCpu model(c.lat, c.p, c.phi);
  const auto before = model.sums();
  model.advance(40);
  const auto after = model.sums();
  EXPECT_TRUE(after.finite);
  EXPECT_NEAR(after.mass_a, before.mass_a, 1e-5 * before.mass_a);
  EXPECT_NEAR(after.mass_b, before.mass_b, 1e-5 * before.mass_b);
}

// A reservoir's sources (the displacement): the cells fed phase B give it their colours, so phase B
// grows inside the slab of A, while the colours' total, the mixture, is kept; a source must be one
// of the backend's own cells.
TEST(ColourCpu, SourcesFeedTheirPhaseAndKeepTheMixture) {
  const Case c = pack_with_a_slab();
  backend::ColourCpu model(c.lat, c.p, c.phi);
  std::vector<std::uint32_t> to_b;
  for (std::uint32_t k = 0; k < c.lat.fluid_count(); ++k) {
    if (c.lat.coords()[k].z < 3) to_b.push_back(k);
  }
  ASSERT_FALSE(to_b.empty());
  model.set_sources({}, to_b);
  const auto before = model.sums();
  model.advance(40);
  const auto after = model.sums();
  EXPECT_TRUE(after.finite);
  EXPECT_NEAR(after.mass_a + after.mass_b, before.mass_a + before.mass_b, 1e-5 * (before.mass_a + before.mass_b));
  EXPECT_GT(after.mass_b - before.mass_b, 0.5 * static_cast<double>(to_b.size()) * before.mass_a / before.cells)
      << "the sources' cells turned to phase B";
  const std::uint32_t outside = c.lat.fluid_count();
  EXPECT_THROW(model.set_sources(std::vector<std::uint32_t>{outside}, {}), Error);
}

}  // namespace rockperm
