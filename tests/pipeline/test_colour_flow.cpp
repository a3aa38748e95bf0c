// The two-phase flow's memory check (pipeline/colour_flow.hpp): a flow that cannot fit its GPU is
// not made, with what it needs and what to do, instead of failing the run after k. Its wetting
// flags: the angles asked that the model's walls cannot hold.
#include <gtest/gtest.h>

#include <string>

#include "pipeline/colour_flow.hpp"

namespace rockperm::pipeline {

TEST(ColourFlowMemory, AFlowThatDoesNotFitItsGpuSaysWhatItNeedsAndTheWayOut) {
  const double gib = 1073741824.0;
  // a 512^3 scan at 35 % with its mirror image: 94 M cells, 27.8 GiB in fp32
  EXPECT_EQ(colour_flow_memory_refusal(94'000'000, physics::Storage::float32, 80 * gib), "");
  const std::string fp32 = colour_flow_memory_refusal(94'000'000, physics::Storage::float32, 24 * gib);
  EXPECT_NE(fp32.find("need 27.8 GiB"), std::string::npos) << fp32;
  EXPECT_NE(fp32.find("318 B each in fp32"), std::string::npos) << fp32;
  EXPECT_NE(fp32.find("run.storage=fp16"), std::string::npos) << fp32;
  // in fp16 the same cells fit 24 GiB (21.2 GiB, within 90 %); a larger flow is told to crop
  EXPECT_EQ(colour_flow_memory_refusal(94'000'000, physics::Storage::float16, 24 * gib), "");
  const std::string fp16 = colour_flow_memory_refusal(400'000'000, physics::Storage::float16, 80 * gib);
  EXPECT_NE(fp16.find("242 B each in fp16"), std::string::npos) << fp16;
  EXPECT_NE(fp16.find("crop the sample"), std::string::npos) << fp16;
}

// The model's walls hold angles down to about 21 degrees (docs/ACCURACY.md): brine/air's default 0
// is flagged, mercury's 140 (40 through the vacuum's wetting side) and 30 are not; a wetting label
// is judged through its own wetting side (170 is 10 degrees from the other phase).
TEST(ColourFlowWetting, AnAngleBelowWhatTheWallsHoldIsFlaggedOnce) {
  TwoPhaseSpec spec;
  const std::vector<std::string> brine = ColourFlowRuns::wetting_flags(spec);
  ASSERT_EQ(brine.size(), 1u);
  EXPECT_NE(brine[0].find("the walls' contact angle, 0 degrees"), std::string::npos) << brine[0];
  EXPECT_NE(brine[0].find("21 degrees"), std::string::npos) << brine[0];
  spec.fluids = TwoPhaseSpec::Fluids::mercury;
  EXPECT_TRUE(ColourFlowRuns::wetting_flags(spec).empty());
  spec.theta_deg = 30;
  EXPECT_TRUE(ColourFlowRuns::wetting_flags(spec).empty());
  spec.wetting_labels = {{3, 170.0}, {4, 60.0}};
  const std::vector<std::string> labels = ColourFlowRuns::wetting_flags(spec);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_NE(labels[0].find("label 3's contact angle, 170 degrees"), std::string::npos) << labels[0];
}

}  // namespace rockperm::pipeline
