// The pore analysis of the trust report and of the time scales: distance transform, local width
// classes, specific surface and the Kozeny-Carman estimate, against exact values on slits.
#include <gtest/gtest.h>

#include <cmath>

#include "lib/geometry/distance_transform.hpp"
#include "lib/geometry/pore_statistics.hpp"
#include "lib/solve/time_scales.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {
// A slit of `width` pore voxels between solid walls of 2 voxels, across y; 6 voxels in x and z.
PoreMask slit(int width) {
  const Dims d{6, width + 4, 6};
  return testing::mask_from(d, [&](auto, auto y, auto) { return y >= 2 && y < 2 + width; });
}
}  // namespace

TEST(DistanceTransform, IsExactEuclideanDistanceToTheSeeds) {
  const Dims d{9, 7, 5};
  std::vector<std::uint8_t> seed(d.voxels(), 0);
  seed[d.linear(1, 2, 3)] = 1;
  seed[d.linear(8, 6, 0)] = 1;
  const std::vector<float> dist = distance_to(d, seed);
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < d.nx; ++x) {
        const double a = std::hypot(x - 1.0, y - 2.0, z - 3.0), b = std::hypot(x - 8.0, y - 6.0, z - 0.0);
        EXPECT_NEAR(dist[d.linear(x, y, z)], std::min(a, b), 1e-5) << x << ' ' << y << ' ' << z;
      }
}

TEST(DistanceTransform, WidthClassesOfSlits) {
  // widths 2, 4, 6 and 12 voxels fall into the classes < 3, 3..5, 5..10 and >= 10
  const int widths[] = {2, 4, 6, 12};
  for (int c = 0; c < 4; ++c) {
    const PoreMask m = slit(widths[c]);
    const std::vector<std::uint8_t> classes = pore_width_classes(m);
    for (std::size_t v = 0; v < classes.size(); ++v) {
      if (m.pore[v]) EXPECT_EQ(classes[v], c) << "width " << widths[c];
      else EXPECT_EQ(classes[v], no_width_class);
    }
  }
}

TEST(PoreStatistics, SlitSurfaceDiameterAndEstimate) {
  const PoreMask m = slit(8);  // 12 x 6 x 6 voxels: 8 pore planes, two walls of 36 faces
  const PoreStatistics s = pore_statistics(m);
  EXPECT_DOUBLE_EQ(s.porosity, 8.0 / 12.0);
  EXPECT_DOUBLE_EQ(s.specific_surface, 72.0 / (6 * 12 * 6));
  EXPECT_DOUBLE_EQ(s.hydraulic_diameter, 4.0 * s.porosity / s.specific_surface);  // 16: twice the slit width
  const double open = s.porosity - percolation_porosity;
  EXPECT_DOUBLE_EQ(s.kozeny_carman_k, open * open * open / (kozeny_constant * s.specific_surface * s.specific_surface));
}

TEST(TimeScales, TightSamplesRunAtSmallTauOpenOnesAtLarge) {
  PoreStatistics tight;  // a 10 % pack: pores 3.5 voxels across, k ~ 4e-3 voxel^2
  tight.porosity = 0.1;
  tight.hydraulic_diameter = 3.5;
  tight.kozeny_carman_k = 4.3e-3;
  EXPECT_DOUBLE_EQ(fastest_tau(tight, 148), min_auto_tau);
  const TimeScales t = time_scales(tight, 148, physics::viscosity(1.0));
  EXPECT_GT(t.pressure, 1000 * t.momentum);  // at tau = 1 the pressure takes all the time
  PoreStatistics open;  // a sphere array: one big pore
  open.porosity = 0.875;
  open.hydraulic_diameter = 120;
  open.kozeny_carman_k = 300;
  EXPECT_DOUBLE_EQ(fastest_tau(open, 64), max_auto_tau);
  PoreStatistics none;  // no estimate: tau = 1
  EXPECT_DOUBLE_EQ(fastest_tau(none, 64), 1.0);
}

}  // namespace rockperm
