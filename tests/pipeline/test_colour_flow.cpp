// The two-phase flow's memory check (pipeline/colour_flow.hpp): a flow that cannot fit its GPU is
// not made, with what it needs and what to do, instead of failing the run after k.
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

}  // namespace rockperm::pipeline
