// Inlet/outlet buffers: a sample that is a square duct of side a inside a sealed cross-section
// of side W, with pure-fluid buffers before and after. The buffers resist less than the duct,
// so a pressure gradient builds up across the sample; corrected for it, k must be the duct's
// series solution scaled to the cross-section, k = k_duct a^2 / W^2. Uncorrected it is not.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "lib/inlet_outlet.hpp"
#include "lib/pressure_planes.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

TEST(Validation, BufferLayersRecoverTheSamplePermeability) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const int a = 10, W = 14, L = 64, layers = 8;
  const double tau = 0.9, g = 1e-6;
  const PoreMask sample = testing::mask_from(Dims{L, W, W}, [&](auto, auto y, auto z) {
    const int lo = (W - a) / 2;
    return y >= lo && y < lo + a && z >= lo && z < lo + a;
  });
  const ExtendedSample ext = extend_along_flow(sample, 0, InletOutlet::buffer, layers);
  ASSERT_EQ(ext.mask.dims.nx, L + 2 * layers);
  const SparseLattice lat = SparseLattice::build(ext.mask, {true, false, false});
  const auto flow = testing::steady_flow(lat, physics::CollisionModel::trt, tau, g, 0, 1e-9);
  ASSERT_TRUE(flow.result.converged);

  const auto params = physics::make_collision_params(physics::CollisionModel::trt, tau, 3.0 / 16.0, 0, g);
  const PlaneDensity in = plane_density(lat, flow.f, params, 0, ext.sample_begin - 1, 0);
  const PlaneDensity out = plane_density(lat, flow.f, params, 0, ext.sample_end, 0);
  const double g_eff = effective_acceleration(g, in.sum / in.cells, out.sum / out.cells, L + 1);
  const double nu = physics::viscosity(tau);
  const double q = flow.result.sums.velocity[0] / static_cast<double>(lat.dims().voxels());
  const double k_corrected = nu * q / g_eff, k_plain = nu * q / g;

  const double pi = std::numbers::pi, h = a / 2.0;
  double series = 0;
  for (int n = 1; n < 200; n += 2) series += std::tanh(n * pi / 2) / std::pow(n, 5);
  const double k_duct = h * h / 3 * (1 - 192 / std::pow(pi, 5) * series);
  const double k_exact = k_duct * a * a / (W * W);
  testing::record("k_corrected_over_exact", k_corrected / k_exact);
  testing::record("k_uncorrected_over_exact", k_plain / k_exact);
  // entrance and exit losses of the contraction remain: a few voxels of extra length
  EXPECT_NEAR(k_corrected / k_exact, 1.0, 0.05);
  EXPECT_GT(std::abs(k_plain / k_exact - 1.0), 0.1) << "the correction was not needed: the test shows nothing";
}

}  // namespace rockperm
