// The mask coarsened 2x for the resolution study (lib/geometry/coarsen.hpp).
#include <gtest/gtest.h>

#include "lib/base/error.hpp"
#include "lib/geometry/coarsen.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

// Majority of each 2x2x2 block; ties by parity (even: the lower code, odd: the higher); grey
// codes kept as codes; an odd extent loses its last plane.
TEST(Coarsen, MajorityWithTiesByParityAndGreyCodesKept) {
  geometry::PoreMask fine{geometry::Dims{5, 4, 4}, std::vector<std::uint8_t>(5 * 4 * 4, geometry::PoreMask::solid)};
  const auto set = [&](int x, int y, int z, std::uint8_t v) { fine.pore[fine.dims.linear(x, y, z)] = v; };
  // block (0,0,0): 5 of 8 open -> open
  for (int i = 0; i < 5; ++i) set(i & 1, (i >> 1) & 1, (i >> 2) & 1, geometry::PoreMask::open);
  // block (1,0,0) (odd parity): 4 open, 4 solid -> the higher code, open
  for (int i = 0; i < 4; ++i) set(2 + (i & 1), (i >> 1) & 1, 0, geometry::PoreMask::open);
  // block (0,1,0) (odd): 4 grey, 4 solid -> grey
  for (int i = 0; i < 4; ++i) set(i & 1, 2 + ((i >> 1) & 1), 0, geometry::PoreMask::open + 1);
  // block (1,1,0) (even): 4 open, 4 solid -> the lower code, solid
  for (int i = 0; i < 4; ++i) set(2 + (i & 1), 2 + ((i >> 1) & 1), 0, geometry::PoreMask::open);
  // block (0,0,1) (odd): 3 grey, 3 open, 2 solid -> the higher of the tied, grey
  for (int i = 0; i < 3; ++i) set(i & 1, (i >> 1) & 1, 2, geometry::PoreMask::open + 1);
  for (int i = 3; i < 6; ++i) set(i & 1, (i >> 1) & 1, 2 + (i >> 2), geometry::PoreMask::open);
  // the fifth x plane is dropped whatever it holds
  for (int y = 0; y < 4; ++y)
    for (int z = 0; z < 4; ++z) set(4, y, z, geometry::PoreMask::open);
  const geometry::PoreMask c = geometry::coarsen_2x(fine);
  ASSERT_EQ(c.dims.nx, 2);
  ASSERT_EQ(c.dims.ny, 2);
  ASSERT_EQ(c.dims.nz, 2);
  EXPECT_EQ(c.pore[c.dims.linear(0, 0, 0)], geometry::PoreMask::open);
  EXPECT_EQ(c.pore[c.dims.linear(1, 0, 0)], geometry::PoreMask::open);
  EXPECT_EQ(c.pore[c.dims.linear(0, 1, 0)], geometry::PoreMask::open + 1);
  EXPECT_EQ(c.pore[c.dims.linear(1, 1, 0)], geometry::PoreMask::solid);
  EXPECT_EQ(c.pore[c.dims.linear(0, 0, 1)], geometry::PoreMask::open + 1);
  EXPECT_EQ(c.pore[c.dims.linear(1, 1, 1)], geometry::PoreMask::solid);
  EXPECT_THROW(geometry::coarsen_2x(geometry::PoreMask{geometry::Dims{1, 4, 4}, std::vector<std::uint8_t>(16, 1)}),
               InputError);
}

// On a pack whose pores are many voxels wide the coarse porosity is the fine one's: the majority
// moves only the voxels of the walls, and ties fall either way by parity.
TEST(Coarsen, KeepsThePorosityOfAPackOfWidePores) {
  const geometry::PoreMask fine = testing::sphere_pack_mask(64, 0.3, 6.0, 5);
  const geometry::PoreMask c = geometry::coarsen_2x(fine);
  const double phi_fine = static_cast<double>(fine.pore_count()) / static_cast<double>(fine.dims.voxels());
  const double phi_coarse = static_cast<double>(c.pore_count()) / static_cast<double>(c.dims.voxels());
  EXPECT_NEAR(phi_coarse, phi_fine, 0.01);
}

}  // namespace rockperm
