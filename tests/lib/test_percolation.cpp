#include <gtest/gtest.h>

#include "lib/error.hpp"
#include "lib/percolation.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

TEST(Percolation, KeepsOnlyClustersJoiningInletAndOutlet) {
  const Dims d{10, 6, 6};
  // a straight channel along x at y = z = 1, a dead end from the inlet, an isolated pocket,
  // and a diagonal (edge-connected) step that 18-connectivity follows
  PoreMask m = testing::mask_from(d, [](std::int64_t x, std::int64_t y, std::int64_t z) {
    const bool channel = y == 1 && z == 1;
    const bool dead_end = y == 5 && z == 5 && x < 5;
    const bool pocket = y == 4 && z == 1 && x >= 3 && x <= 6;
    const bool diagonal = (y == 3 && z == 3 && x < 5) || (y == 2 && z == 3 && x >= 5);  // meet along an edge
    return channel || dead_end || pocket || diagonal;
  });
  const std::uint64_t before = m.pore_count();
  const PercolationReport r = keep_percolating_pores(m, 0, {false, false, false});
  EXPECT_EQ(r.pore, before);
  EXPECT_EQ(r.connected, 10u + 10u);  // the channel and the diagonal path
  EXPECT_TRUE(m.is_pore(0, 1, 1));
  EXPECT_TRUE(m.is_pore(9, 2, 3));
  EXPECT_FALSE(m.is_pore(0, 5, 5));
  EXPECT_FALSE(m.is_pore(4, 4, 1));
  EXPECT_NEAR(r.removed_fraction(), 1.0 - 20.0 / before, 1e-12);
}

TEST(Percolation, CornerOnlyContactDoesNotConnect) {
  // D3Q19 has no corner links: two cells meeting at a corner are not connected
  const Dims d{2, 2, 2};
  PoreMask m = testing::mask_from(d, [](auto x, auto y, auto z) { return (x == 0 && y == 0 && z == 0) || (x == 1 && y == 1 && z == 1); });
  EXPECT_THROW(keep_percolating_pores(m, 0, {false, false, false}), InputError);
}

TEST(Percolation, LateralPeriodicityConnectsAcrossTheSides) {
  const Dims d{4, 5, 1};
  // path: along x at y = 0 for x < 2, then jumps through the periodic y side to y = 4
  PoreMask m = testing::mask_from(d, [](auto x, auto y, auto) { return (y == 0 && x < 2) || (y == 4 && x >= 1); });
  PoreMask sealed = m;
  EXPECT_EQ(keep_percolating_pores(m, 0, {false, true, false}).connected, 5u);
  EXPECT_THROW(keep_percolating_pores(sealed, 0, {false, false, false}), InputError);
}

TEST(Percolation, NonPercolatingSampleIsAClearError) {
  const Dims d{6, 4, 4};
  PoreMask m = testing::mask_from(d, [](auto x, auto, auto) { return x != 3; });
  try {
    (void)keep_percolating_pores(m, 0, {false, true, true});
    FAIL() << "a sample cut by a solid wall percolated";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("does not percolate"), std::string::npos);
  }
}

}  // namespace rockperm
