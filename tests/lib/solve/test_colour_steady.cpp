// The two-phase flow's stop (lib/solve/colour_steady.hpp): its stated error on flux histories whose
// end is known, a geometric approach and a noisy steady state.
#include <gtest/gtest.h>

#include <cmath>

#include "lib/solve/colour_steady.hpp"

namespace rockperm::solve {

namespace {

ColourCheck check(std::int64_t i, double a, double b) {
  ColourCheck c;
  c.step = 100 * i;
  c.flux[0] = a;
  c.flux[1] = b;
  return c;
}

}  // namespace

TEST(ColourFluxMonitor, StatesNothingBeforeThreeBlocksOfChecks) {
  ColourFluxMonitor m;
  for (std::size_t i = 0; i + 1 < ColourFluxMonitor::min_checks; ++i) m.add(check(i, 1, 1));
  EXPECT_FALSE(m.estimate().known);
  m.add(check(99, 1, 1));
  EXPECT_TRUE(m.estimate().known);
}

TEST(ColourFluxMonitor, AGeometricApproachIsExtrapolatedToItsEnd) {
  // flux 1 + 0.5 r^k, r = 0.9 per check: the last block's mean is off its end by more than its
  // own spread says; the stated error covers the distance, and not by orders of magnitude
  for (const int n : {20, 40, 80}) {
    ColourFluxMonitor m;
    for (int k = 0; k < n; ++k) m.add(check(k, 1 + 0.5 * std::pow(0.9, k), 2 - 0.3 * std::pow(0.9, k)));
    const ColourEstimate e = m.estimate();
    ASSERT_TRUE(e.known);
    const double off_a = std::abs(e.flux[0] - 1), off_b = std::abs(e.flux[1] - 2);
    EXPECT_GE(e.error[0], off_a) << n;
    EXPECT_LE(e.error[0], 4 * off_a + 1e-12) << n;
    EXPECT_GE(e.error[1], off_b) << n;
  }
}

TEST(ColourFluxMonitor, ANoisySteadyFluxHasTheErrorOfItsMean) {
  // a steady 1 with a fluctuation of 0.01 (a fixed pseudo-random sequence): the error is about the
  // fluctuation over the root of the checks, well below the fluctuation, and covers the mean's offset
  ColourFluxMonitor m;
  std::uint64_t s = 12345;
  for (int k = 0; k < 200; ++k) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const double noise = (static_cast<double>(s >> 11) * 0x1.0p-53 - 0.5) * 0.02 * std::sqrt(3.0);
    m.add(check(k, 1 + noise, 0.0));
  }
  const ColourEstimate e = m.estimate();
  ASSERT_TRUE(e.known);
  EXPECT_LT(e.error[0], 0.01);
  EXPECT_GT(e.error[0], 5e-4);
  EXPECT_LE(std::abs(e.flux[0] - 1), e.error[0]);
  EXPECT_EQ(e.error[1], 0.0);  // a phase that does not flow is steady at 0
}

}  // namespace rockperm::solve
