#include <gtest/gtest.h>

#include "lib/base/error.hpp"
#include "lib/geometry/sphere_pack.hpp"

namespace rockperm {

TEST(SpherePack, IsDeterministicAndReachesThePorosity) {
  geometry::SpherePackSpec spec;
  spec.dims = {40, 30, 20};
  spec.porosity = 0.4;
  spec.radius = 4;
  const geometry::Volume a = geometry::make_sphere_pack(spec);
  const geometry::Volume b = geometry::make_sphere_pack(spec);
  EXPECT_EQ(a.labels, b.labels);
  std::uint64_t pore = 0;
  for (auto l : a.labels) pore += l == geometry::pack_pore_label;
  const double porosity = static_cast<double>(pore) / a.labels.size();
  EXPECT_LE(porosity, 0.4);
  EXPECT_GT(porosity, 0.37);  // at most one sphere of overshoot
  spec.seed += 1;
  EXPECT_NE(geometry::make_sphere_pack(spec).labels, a.labels);
}

TEST(SpherePack, ScaleVoxelizesTheSameSpheresFiner) {
  geometry::SpherePackSpec spec;
  spec.dims = {20, 16, 12};
  spec.porosity = 0.4;
  spec.radius = 3;
  const geometry::Volume coarse = geometry::make_sphere_pack(spec);
  spec.scale = 2;
  const geometry::Volume fine = geometry::make_sphere_pack(spec);
  ASSERT_EQ(fine.dims.nx, 40);
  ASSERT_EQ(fine.dims.nz, 24);
  // every coarse voxel whose 8 fine sub-voxels agree has their label: the geometry is the same,
  // only the sampling is finer (sub-voxels of a boundary voxel may differ)
  std::uint64_t agree = 0, same = 0, solid_fine = 0;
  for (std::int64_t z = 0; z < 12; ++z)
    for (std::int64_t y = 0; y < 16; ++y)
      for (std::int64_t x = 0; x < 20; ++x) {
        int solid = 0;
        for (int k = 0; k < 8; ++k) {
          solid += fine.labels[fine.dims.linear(2 * x + (k & 1), 2 * y + (k >> 1 & 1), 2 * z + (k >> 2))] ==
                   geometry::pack_solid_label;
        }
        solid_fine += solid;
        if (solid % 8 != 0) continue;
        ++agree;
        same += (solid == 8) == (coarse.labels[coarse.dims.linear(x, y, z)] == geometry::pack_solid_label);
      }
  EXPECT_GT(agree, 20u * 16u * 12u / 2);
  EXPECT_GT(static_cast<double>(same) / agree, 0.97);
  EXPECT_NEAR(1.0 - solid_fine / (8.0 * 20 * 16 * 12), 0.4, 0.03);
  spec.scale = 0.5;
  EXPECT_THROW(geometry::make_sphere_pack(spec), InputError);
}

}  // namespace rockperm
