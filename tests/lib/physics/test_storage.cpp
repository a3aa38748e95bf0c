// The 16-bit population storage (lib/physics/storage.hpp): IEEE binary16 conversions rounded to
// nearest even and stochastically, and the range shift.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "lib/physics/storage.hpp"

namespace rockperm {

using physics::half_detail::from_half;
using physics::half_detail::to_half;
using physics::half_detail::to_half_stochastic;
using physics::half_detail::to_half_toward_zero;

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

TEST(Storage, RoundingTowardZeroAtTheEdges) {
  EXPECT_EQ(to_half_toward_zero(bits(1.0f + std::ldexp(1.0f, -10) * 0.999f)), 0x3C00);  // just below the next half
  EXPECT_EQ(to_half_toward_zero(bits(-1.0f - std::ldexp(1.0f, -10) * 0.999f)), 0xBC00);
  EXPECT_EQ(to_half_toward_zero(bits(65535.0f)), 0x7BFF);         // beyond the largest half: the largest
  EXPECT_EQ(to_half_toward_zero(bits(1e30f)), 0x7BFF);
  EXPECT_EQ(to_half_toward_zero(bits(-INFINITY)), 0xFC00);        // infinity stays infinity
  EXPECT_TRUE(std::isnan(from_half(to_half_toward_zero(bits(std::nanf(""))))));
  EXPECT_EQ(to_half_toward_zero(bits(std::ldexp(1.9f, -24))), 0x0001);  // subnormal: whole units of 2^-24
  EXPECT_EQ(to_half_toward_zero(bits(std::ldexp(1.0f, -25))), 0x0000);
  EXPECT_EQ(to_half_toward_zero(bits(std::ldexp(1.0f, -14) * 0.9999f)), 0x03FF);
  EXPECT_EQ(to_half_toward_zero(bits(1e-40f)), 0x0000);  // a subnormal float
}

TEST(Storage, HalfConversionsRoundToNearestEvenAtTheEdges) {
  EXPECT_EQ(to_half(1.0f), 0x3C00);
  EXPECT_EQ(to_half(-2.0f), 0xC000);
  EXPECT_EQ(to_half(65504.0f), 0x7BFF);                  // the largest half
  EXPECT_EQ(to_half(65519.0f), 0x7BFF);                  // below the tie
  EXPECT_EQ(to_half(65520.0f), 0x7C00);                  // the tie rounds to even: infinity
  EXPECT_EQ(to_half(std::ldexp(1.0f, -24)), 0x0001);     // the smallest subnormal
  EXPECT_EQ(to_half(std::ldexp(1.0f, -25)), 0x0000);     // a tie: to even (zero)
  EXPECT_EQ(to_half(std::ldexp(3.0f, -25)), 0x0002);     // a tie: to even (two)
  EXPECT_EQ(to_half(std::ldexp(1.0f, -14)), 0x0400);     // the smallest normal
  EXPECT_EQ(to_half(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // a tie at 1: to even
  EXPECT_EQ(to_half(1.0f + std::ldexp(3.0f, -11)), 0x3C02);  // a tie: to even (up)
  EXPECT_TRUE(std::isnan(from_half(to_half(std::nanf("")))));
  EXPECT_TRUE(std::isinf(from_half(0xFC00)) && from_half(0xFC00) < 0);
}

TEST(Storage, EveryFiniteHalfSurvivesTheRoundTrip) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00u) == 0x7C00u) continue;  // infinities and NaNs
    const float f = from_half(static_cast<std::uint16_t>(h));
    ASSERT_EQ(to_half(f), h) << std::hex << h;
    ASSERT_EQ(to_half_stochastic(f, 0xFFFFFFFFu), h) << "exact values never move, whatever the noise";
  }
}

TEST(Storage, StochasticRoundingIsUnbiasedAndPicksANeighbour) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> exponent(-26.0f, 15.0f);
  for (int trial = 0; trial < 300; ++trial) {
    const float v = std::ldexp(1.0f + static_cast<float>(rng() % 100000) / 100000.0f, static_cast<int>(exponent(rng))) *
                    (trial % 2 ? -1.0f : 1.0f);
    const std::uint16_t down = to_half_toward_zero(bits(v));
    double mean = 0;
    constexpr int draws = 20000;
    for (int d = 0; d < draws; ++d) {
      const std::uint16_t h = to_half_stochastic(v, static_cast<std::uint32_t>(rng()));
      ASSERT_TRUE(h == down || h == down + 1) << v << ": not one of the two neighbours";
      mean += from_half(h);
    }
    mean /= draws;
    const double ulp = std::abs(from_half(static_cast<std::uint16_t>(down + 1)) - from_half(down));
    // unbiased (normal and subnormal halves), to the standard error of the draws and the 13
    // bits of the noise
    EXPECT_NEAR(mean, v, 5.0 * ulp / std::sqrt(static_cast<double>(draws)) + ulp * std::ldexp(1.0, -13)) << v;
  }
}

TEST(Storage, TheRangeShiftKeepsSlowCreepingFlowsNormal) {
  // deviations w_i * 3u of velocities 1e-8 .. 0.1, and a deviation of 1
  for (const float deviation : {3.8e-9f, 1e-6f, 1e-3f, 0.3f, 1.0f, 3.9f}) {
    const physics::Half h = physics::StorageTraits<physics::Half>::store(deviation);
    EXPECT_GE(h.bits & 0x7C00u, 0x0400u) << deviation << " is stored as a subnormal";
    EXPECT_NEAR(physics::StorageTraits<physics::Half>::load(h), deviation, deviation * std::ldexp(1.0, -11))
        << deviation;
  }
  EXPECT_EQ(physics::storage_bytes(physics::Storage::float16), 2u);
  EXPECT_EQ(physics::rounding_noise(5, physics::step_seed(1)), physics::rounding_noise(5, physics::step_seed(1)));
  EXPECT_NE(physics::rounding_noise(5, physics::step_seed(1)), physics::rounding_noise(5, physics::step_seed(2)));
}

}  // namespace rockperm
