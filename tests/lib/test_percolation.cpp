#include <gtest/gtest.h>

#include <algorithm>

#include "lib/d3q19.hpp"
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

namespace {
// The textbook definition, voxel by voxel: flood from the inlet face and from the outlet face
// over the 18 D3Q19 links; keep what both reach.
std::vector<std::uint8_t> reference_filter(const PoreMask& m, int axis, const Periodicity& periodic) {
  const Dims& d = m.dims;
  std::vector<std::uint8_t> reach(m.pore.size(), 0);
  for (const int face : {0, 1}) {
    const std::uint8_t bit = face ? 2 : 1;
    std::vector<std::uint64_t> stack;
    for (std::int64_t z = 0; z < d.nz; ++z)
      for (std::int64_t y = 0; y < d.ny; ++y)
        for (std::int64_t x = 0; x < d.nx; ++x) {
          const std::int64_t c[3] = {x, y, z};
          if (c[axis] == (face ? d[axis] - 1 : 0) && m.is_pore(x, y, z)) {
            reach[d.linear(x, y, z)] |= bit;
            stack.push_back(d.linear(x, y, z));
          }
        }
    while (!stack.empty()) {
      const std::uint64_t v = stack.back();
      stack.pop_back();
      const std::int64_t p[3] = {static_cast<std::int64_t>(v % d.nx), static_cast<std::int64_t>(v / d.nx % d.ny),
                                 static_cast<std::int64_t>(v / d.nx / d.ny)};
      for (int i = 1; i < lattice::q; ++i) {
        std::int64_t c[3] = {p[0] + lattice::cx(i), p[1] + lattice::cy(i), p[2] + lattice::cz(i)};
        bool inside = true;
        for (int a = 0; a < 3; ++a) {
          if (c[a] >= 0 && c[a] < d[a]) continue;
          if (a != axis && periodic[a]) c[a] = (c[a] + d[a]) % d[a];
          else inside = false;
        }
        if (!inside || !m.is_pore(c[0], c[1], c[2])) continue;
        const std::uint64_t w = d.linear(c[0], c[1], c[2]);
        if (!(reach[w] & bit)) {
          reach[w] |= bit;
          stack.push_back(w);
        }
      }
    }
  }
  for (auto& r : reach) r = r == 3 ? 1 : 0;
  return reach;
}
}  // namespace

TEST(Percolation, RunsMatchAVoxelFloodOnRandomSamples) {
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const Dims d{static_cast<std::int64_t>(3 + seed % 9), static_cast<std::int64_t>(2 + seed % 7),
                 static_cast<std::int64_t>(2 + seed % 5)};
    const int axis = static_cast<int>(seed % 3);
    const Periodicity periodic{seed % 2 == 0, seed % 4 < 2, seed % 5 < 3};
    const PoreMask original = testing::random_mask(d, 0.35 + 0.005 * (seed % 40), seed);
    const std::vector<std::uint8_t> expected = reference_filter(original, axis, periodic);
    PoreMask m = original;
    try {
      (void)keep_percolating_pores(m, axis, periodic);
      EXPECT_EQ(m.pore, expected) << "seed " << seed;
      ++compared;
    } catch (const InputError&) {
      EXPECT_EQ(std::count(expected.begin(), expected.end(), 1), 0) << "seed " << seed;
    }
  }
  EXPECT_GT(compared, 20);
}

}  // namespace rockperm
