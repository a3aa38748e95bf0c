#include <gtest/gtest.h>

#include "lib/base/error.hpp"
#include "lib/geometry/inlet_outlet.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {
// pore where (x + 2y + 3z) % 4 != 0: a pattern with no symmetry along any axis
geometry::PoreMask pattern(geometry::Dims d) {
  return testing::mask_from(d, [](auto x, auto y, auto z) { return (x + 2 * y + 3 * z) % 4 != 0; });
}
}  // namespace

TEST(InletOutlet, BuffersArePureFluidLayersBeforeAndAfterTheSampleAlongEachAxis) {
  const geometry::Dims d{5, 6, 7};
  const geometry::PoreMask sample = pattern(d);
  for (int axis = 0; axis < 3; ++axis) {
    const geometry::ExtendedSample e = geometry::extend_along_flow(sample, axis, geometry::InletOutlet::buffer, 3);
    geometry::Dims expected = d;
    (axis == 0 ? expected.nx : (axis == 1 ? expected.ny : expected.nz)) += 6;
    EXPECT_EQ(e.mask.dims, expected);
    EXPECT_EQ(e.sample_begin, 3);
    EXPECT_EQ(e.sample_end, 3 + d[axis]);
    for (std::int64_t z = 0; z < expected.nz; ++z)
      for (std::int64_t y = 0; y < expected.ny; ++y)
        for (std::int64_t x = 0; x < expected.nx; ++x) {
          std::int64_t c[3] = {x, y, z};
          const bool in_sample = c[axis] >= 3 && c[axis] < 3 + d[axis];
          if (in_sample) c[axis] -= 3;
          const bool expected_pore = !in_sample || sample.is_pore(c[0], c[1], c[2]);
          ASSERT_EQ(e.mask.is_pore(x, y, z), expected_pore) << "axis " << axis << " at " << x << ' ' << y << ' ' << z;
        }
  }
}

TEST(InletOutlet, MirrorAppendsTheSampleReflectedAlongTheFlow) {
  const geometry::Dims d{4, 5, 6};
  const geometry::PoreMask sample = pattern(d);
  for (int axis = 0; axis < 3; ++axis) {
    const geometry::ExtendedSample e = geometry::extend_along_flow(sample, axis, geometry::InletOutlet::mirror, 0);
    EXPECT_EQ(e.sample_begin, 0);
    EXPECT_EQ(e.sample_end, d[axis]);
    EXPECT_EQ(e.mask.dims[axis], 2 * d[axis]);
    for (std::int64_t z = 0; z < d.nz; ++z)
      for (std::int64_t y = 0; y < d.ny; ++y)
        for (std::int64_t x = 0; x < d.nx; ++x) {
          std::int64_t m[3] = {x, y, z};
          m[axis] = 2 * d[axis] - 1 - m[axis];
          ASSERT_EQ(e.mask.is_pore(x, y, z), sample.is_pore(x, y, z));
          ASSERT_EQ(e.mask.is_pore(m[0], m[1], m[2]), sample.is_pore(x, y, z));
        }
  }
}

TEST(InletOutlet, PeriodicLeavesTheSampleAndBadSettingsNameTheirField) {
  const geometry::PoreMask sample = pattern(geometry::Dims{3, 3, 3});
  const geometry::ExtendedSample e = geometry::extend_along_flow(sample, 1, geometry::InletOutlet::periodic, 10);
  EXPECT_EQ(e.mask.pore, sample.pore);
  EXPECT_EQ(e.sample_begin, 0);
  EXPECT_EQ(e.sample_end, 3);
  try {
    (void)extend_along_flow(sample, 0, geometry::InletOutlet::buffer, 0);
    ADD_FAILURE() << "no buffer layers accepted";
  } catch (const InputError& err) {
    EXPECT_EQ(err.field(), "flow.buffer_layers");
  }
  for (const geometry::InletOutlet m :
       {geometry::InletOutlet::periodic, geometry::InletOutlet::buffer, geometry::InletOutlet::mirror}) {
    EXPECT_EQ(geometry::parse_inlet_outlet(to_string(m)), m);
  }
  EXPECT_THROW(geometry::parse_inlet_outlet("open"), InputError);
}

}  // namespace rockperm
