#include <gtest/gtest.h>

#include "lib/physics/d3q19.hpp"

namespace rockperm::physics::d3q19 {

TEST(D3Q19, WeightsSumToOne) {
  double sum = 0;
  for (int i = 0; i < q; ++i) sum += weight(i);
  EXPECT_NEAR(sum, 1.0, 1e-15);
}

TEST(D3Q19, OppositePairsFollowTheCorePaperNumbering) {
  EXPECT_EQ(opposite(0), 0);
  for (int i = 1; i <= half; ++i) {
    EXPECT_EQ(opposite(i), i + 9);
    EXPECT_EQ(opposite(i + 9), i);
    for (int a = 0; a < 3; ++a) EXPECT_EQ(c(i + 9, a), -c(i, a));
    EXPECT_EQ(weight(i), weight(i + 9));
  }
  // the positive half as listed in DESIGN.md
  const int expected[10][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0},
                               {1, -1, 0}, {1, 0, 1}, {1, 0, -1}, {0, 1, 1}, {0, 1, -1}};
  for (int i = 0; i <= half; ++i)
    for (int a = 0; a < 3; ++a) EXPECT_EQ(c(i, a), expected[i][a]) << "i=" << i << " axis=" << a;
}

TEST(D3Q19, VelocitiesAreDistinct) {
  for (int i = 0; i < q; ++i)
    for (int j = i + 1; j < q; ++j) EXPECT_FALSE(cx(i) == cx(j) && cy(i) == cy(j) && cz(i) == cz(j));
}

TEST(D3Q19, MomentsAreIsotropic) {
  for (int a = 0; a < 3; ++a) {
    double first = 0;
    for (int i = 0; i < q; ++i) first += weight(i) * c(i, a);
    EXPECT_NEAR(first, 0.0, 1e-15);
    for (int b = 0; b < 3; ++b) {
      double second = 0, third = 0;
      for (int i = 0; i < q; ++i) {
        second += weight(i) * c(i, a) * c(i, b);
        third += weight(i) * c(i, a) * c(i, b) * c(i, b);
      }
      EXPECT_NEAR(second, a == b ? cs2 : 0.0, 1e-15) << a << b;
      EXPECT_NEAR(third, 0.0, 1e-15);
    }
  }
  // fourth moment: cs^4 (d_ab d_cd + d_ac d_bd + d_ad d_bc) for the components D3Q19 gets right
  double xxxx = 0, xxyy = 0;
  for (int i = 0; i < q; ++i) {
    xxxx += weight(i) * cx(i) * cx(i) * cx(i) * cx(i);
    xxyy += weight(i) * cx(i) * cx(i) * cy(i) * cy(i);
  }
  EXPECT_NEAR(xxxx, 3 * cs2 * cs2, 1e-15);
  EXPECT_NEAR(xxyy, cs2 * cs2, 1e-15);
}

}  // namespace rockperm::physics::d3q19
