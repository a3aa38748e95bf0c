// The resolution study's error bar (pipeline/resolution_study.hpp): Roache's grid convergence
// index from two or three grids.
#include <gtest/gtest.h>

#include "pipeline/resolution_study.hpp"

namespace rockperm::pipeline {

TEST(Discretisation, ThreeGridsThatConfirmTheOrderTakeTheSmallSafetyFactor) {
  // k = 100 - 8 h at h = 1, 2, 4: first order, extrapolated to 100 exactly
  const Discretisation d = discretisation(92, 84, 68);
  EXPECT_DOUBLE_EQ(d.k0, 100.0);
  EXPECT_TRUE(d.asymptotic);
  EXPECT_DOUBLE_EQ(d.error, 1.25 * 8.0 / 92.0);
  EXPECT_TRUE(d.note.empty());
}

TEST(Discretisation, NonMonotonicOrNonShrinkingChangesTakeTheLargeOne) {
  const Discretisation up_down = discretisation(101.56, 99.81, 107.82);  // the pack of the validation test
  EXPECT_FALSE(up_down.asymptotic);
  EXPECT_NEAR(up_down.error, 3.0 * 1.75 / 101.56, 1e-12);
  EXPECT_NE(up_down.note.find("do not confirm"), std::string::npos) << up_down.note;
  const Discretisation same_steps = discretisation(92, 84, 76);  // changes that do not shrink
  EXPECT_FALSE(same_steps.asymptotic);
  EXPECT_DOUBLE_EQ(same_steps.error, 3.0 * 8.0 / 92.0);
}

TEST(Discretisation, TwoGridsTakeTheLargeSafetyFactorAndTinyChangesCountAsConverged) {
  const Discretisation two = discretisation(92, 84, std::nullopt);
  EXPECT_FALSE(two.asymptotic);
  EXPECT_DOUBLE_EQ(two.error, 3.0 * 8.0 / 92.0);
  EXPECT_NE(two.note.find("two grids"), std::string::npos);
  const Discretisation flat = discretisation(100.0, 100.02, 99.99);  // within 1e-3: converged
  EXPECT_TRUE(flat.asymptotic);
  EXPECT_NEAR(flat.error, 1.25 * 0.02 / 100.0, 1e-12);
}

}  // namespace rockperm::pipeline
