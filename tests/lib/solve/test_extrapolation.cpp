// The pressure extrapolation's decision (lib/solve/extrapolation.hpp): it jumps where the changes
// of the density over two equal intervals are those of one decaying mode, and not otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "lib/solve/extrapolation.hpp"

namespace rockperm {

namespace {
// the products of changes d1 and d2 = the changes of modes with ratios r over the interval
physics::DensityProducts products(const std::vector<std::vector<float>>& modes, const std::vector<double>& ratios) {
  const std::size_t n = modes[0].size();
  std::vector<float> d1(n, 0.0f), d2(n, 0.0f);
  for (std::size_t m = 0; m < modes.size(); ++m) {
    for (std::size_t c = 0; c < n; ++c) {
      d1[c] += modes[m][c];
      d2[c] += static_cast<float>(ratios[m] * modes[m][c]);
    }
  }
  float peak = 0;
  for (std::size_t c = 0; c < n; ++c) peak = std::max(peak, std::max(std::abs(d1[c]), std::abs(d2[c])));
  const float scale = physics::products_scale(peak);
  physics::DensityProducts p;
  for (std::size_t c = 0; c < n; ++c) p.add(physics::cell_products(d1[c], d2[c], scale));
  return p;
}

std::vector<float> mode(int n, double wavenumber, double amplitude) {
  std::vector<float> v(n);
  for (int c = 0; c < n; ++c) v[c] = static_cast<float>(amplitude * std::sin(wavenumber * (c + 0.5)));
  return v;
}
}  // namespace

TEST(Extrapolation, OneDecayingModeIsReadAndJumpedOver) {
  const solve::ExtrapolationSettings settings;
  const auto d = solve::PressureExtrapolation::decide(products({mode(4000, 0.003, 1e-6)}, {0.6}), settings);
  EXPECT_NEAR(d.ratio, 0.6, 1e-4);
  EXPECT_LT(d.residual, 1e-3);
  EXPECT_TRUE(d.jump);
}

TEST(Extrapolation, AFasterModeOfTheSameSizeKeepsItFromJumping) {
  const solve::ExtrapolationSettings settings;
  const auto d = solve::PressureExtrapolation::decide(
      products({mode(4000, 0.003, 1e-6), mode(4000, 0.05, 1e-6)}, {0.8, 0.1}), settings);
  EXPECT_GT(d.residual, settings.max_residual);
  EXPECT_FALSE(d.jump);
  // once the faster one has decayed (a hundredth of the slow one), the slow one is read
  const auto later = solve::PressureExtrapolation::decide(
      products({mode(4000, 0.003, 1e-6), mode(4000, 0.05, 1e-8)}, {0.8, 0.1}), settings);
  EXPECT_NEAR(later.ratio, 0.8, 0.01);
  EXPECT_TRUE(later.jump);
}

TEST(Extrapolation, NoJumpWithoutADecayThatCanBeRead) {
  const solve::ExtrapolationSettings settings;
  // too slow for the interval: a jump of r / (1 - r) intervals would go too far on a guess
  EXPECT_FALSE(solve::PressureExtrapolation::decide(products({mode(100, 0.03, 1e-6)}, {0.95}), settings).jump);
  // growing, oscillating, or nothing to read
  EXPECT_FALSE(solve::PressureExtrapolation::decide(products({mode(100, 0.03, 1e-6)}, {1.2}), settings).jump);
  EXPECT_FALSE(solve::PressureExtrapolation::decide(products({mode(100, 0.03, 1e-6)}, {-0.5}), settings).jump);
  EXPECT_FALSE(solve::PressureExtrapolation::decide(physics::DensityProducts{}, settings).jump);
}

TEST(Extrapolation, TheProductsScaleIsAPowerOfTwoThatKeepsTheChangesWithin2To15) {
  for (const float peak : {1e-12f, 3e-7f, 0.5f, 1.0f, 7.0f}) {
    const float scale = physics::products_scale(peak);
    int e = 0;
    EXPECT_EQ(std::frexp(scale, &e), 0.5f) << peak;
    EXPECT_LE(peak * scale, physics::density_quantum_range);
    EXPECT_GE(peak * scale, physics::density_quantum_range / 2);
  }
  EXPECT_EQ(physics::products_scale(0.0f), 0.0f);
  EXPECT_EQ(physics::products_scale(INFINITY), 0.0f);
}

}  // namespace rockperm

namespace rockperm {

// A jump far ahead (r near 1, the first jump's guessed interval) is verified by the next decision;
// one at the rule's interval (D half the time measured: r = exp(-1/2)) is not (issue 54: a 256^3
// vug pack's first jump at r = 0.841 left 6.8e-5 of k that k's history did not show).
TEST(Extrapolation, AJumpFarAheadIsVerifiedByTheNextDecision) {
  using solve::PressureExtrapolation;
  EXPECT_TRUE(PressureExtrapolation::verified_later(0.841));
  EXPECT_TRUE(PressureExtrapolation::verified_later(0.9));
  EXPECT_FALSE(PressureExtrapolation::verified_later(std::exp(-0.5)));
  EXPECT_FALSE(PressureExtrapolation::verified_later(0.7));
  // the boundary: an interval of a quarter of the time measured
  EXPECT_FALSE(PressureExtrapolation::verified_later(std::exp(-0.25) - 1e-9));
  EXPECT_TRUE(PressureExtrapolation::verified_later(std::exp(-0.25) + 1e-9));
}

// Only a decision that reads the field verifies a far jump: a 256^3 periodic vug pack's first
// decision after its jump at r = 0.82 found the slow mode mixed with the sound the jump stirred
// (r 0.63, residual 0.40); ending the verification there stopped the run 800 steps later, 2.6e-4
// from steady. Its next decision read r 0.77 at residual 0.11 and jumped (issue 54). At steady the
// changes are noise that no decision reads, so the verification ends after verify_decisions.
TEST(Extrapolation, OnlyADecisionThatReadsTheFieldVerifiesAFarJump) {
  using solve::PressureExtrapolation;
  const solve::ExtrapolationSettings settings;
  const auto mixed = PressureExtrapolation::decide(
      products({mode(4000, 0.003, 1e-6), mode(4000, 0.05, 1.2e-6)}, {0.75, -0.3}), settings);
  EXPECT_GT(mixed.residual, settings.max_residual);
  EXPECT_FALSE(mixed.jump);
  EXPECT_EQ(PressureExtrapolation::verify_after(1, mixed), 2);
  const auto clean = PressureExtrapolation::decide(products({mode(4000, 0.003, 1e-6)}, {0.77}), settings);
  ASSERT_TRUE(clean.jump);
  EXPECT_EQ(PressureExtrapolation::verify_after(2, clean), 0);
  // a mode too slow for the interval is not a reading either (the interval doubles)
  const auto slow = PressureExtrapolation::decide(products({mode(4000, 0.003, 1e-6)}, {0.95}), settings);
  EXPECT_EQ(PressureExtrapolation::verify_after(1, slow), 2);
  // noise: none reads it, and the verification ends with the last decision it may take
  std::vector<float> a(4000), b(4000);
  unsigned x = 12345;
  for (int c = 0; c < 4000; ++c) {
    x = x * 1664525u + 1013904223u;
    a[c] = static_cast<float>(x >> 8) * 1e-13f - 8e-7f;
    x = x * 1664525u + 1013904223u;
    b[c] = static_cast<float>(x >> 8) * 1e-13f - 8e-7f;
  }
  const auto noise = PressureExtrapolation::decide(products({a, b}, {1.0, 0.0}), settings);
  EXPECT_FALSE(noise.jump);
  std::int64_t verify = 1;
  for (int decision = 1; decision < solve::ExtrapolationSettings::verify_decisions; ++decision) {
    verify = PressureExtrapolation::verify_after(verify, noise);
    EXPECT_NE(verify, 0) << decision;
  }
  EXPECT_EQ(PressureExtrapolation::verify_after(verify, noise), 0);
  // no jump being verified: nothing to end
  EXPECT_EQ(PressureExtrapolation::verify_after(0, mixed), 0);
}

}  // namespace rockperm
