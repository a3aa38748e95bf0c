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

TEST(Discretisation, AnExtrapolationOutsideThePhysicalRangeIsWithheld) {
  // issue 49: a grey-map sample's coarse grids gave more than twice its k; the study reported
  // k0 = -88.27 mD as asymptotic (the changes shrank as the order says, from grids that are
  // another flow); a one-voxel hole in a plate -428 mD and "2511 %"
  const Discretisation grey = discretisation(100.0, 288.27, 540.0);
  EXPECT_TRUE(grey.withheld);
  EXPECT_FALSE(grey.asymptotic);
  EXPECT_EQ(grey.error, 0.0);
  EXPECT_NE(grey.note.find("not made"), std::string::npos) << grey.note;
  EXPECT_NE(grey.note.find("too much to extrapolate"), std::string::npos) << grey.note;
  EXPECT_TRUE(discretisation(17.05, 445.0, std::nullopt).withheld);  // the plate: 2511 %
  EXPECT_TRUE(discretisation(0.0, 5.0, std::nullopt).withheld);     // nothing to extrapolate from
  // within the range: a coarse k up to (not at) twice the sample's, k0 > 0
  const Discretisation edge = discretisation(100.0, 190.0, std::nullopt);
  EXPECT_FALSE(edge.withheld);
  EXPECT_DOUBLE_EQ(edge.k0, 10.0);
  EXPECT_TRUE(discretisation(100.0, 200.0, std::nullopt).withheld);
}

}  // namespace rockperm::pipeline
