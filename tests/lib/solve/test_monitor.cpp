#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>
#include <limits>
#include <random>
#include <tuple>

#include "lib/base/error.hpp"
#include "lib/solve/monitor.hpp"
#include "lib/physics/permeability.hpp"

namespace rockperm {

namespace {
physics::FlowSums mass(double m) {
  physics::FlowSums s;
  s.mass = m;
  return s;
}

// A run's k as it printed it every 100 steps after a jump at `jump`, through the monitor with the
// slow time the jump measured and a flux spread above its limit (the slope reading decides): the
// step it stops at (0: none) and k there.
std::pair<std::int64_t, double> replay_after_jump(solve::ConvergenceMonitor& m, std::int64_t jump,
                                                  const std::vector<double>& k, double slow_time) {
  m.restart(jump);
  for (std::size_t i = 0; i < k.size(); ++i) {
    const auto step = jump + 100 * static_cast<std::int64_t>(i + 1);
    if (m.check(step, mass(100.0), k[i], 1e-3, 100, slow_time)) return {step, k[i]};
  }
  return {0, 0.0};
}
}  // namespace

TEST(Monitor, EstimatesTheDistanceOfAGeometricDecayAndStopsWithinTolerance) {
  // k(t) = 2 - 0.5 exp(-t / 3000): the fit to k at n/2, 3n/4 and n is exact for one mode (the
  // estimate is twice the fit)
  const auto k = [](double t) { return 2.0 - 0.5 * std::exp(-t / 3000.0); };
  solve::ConvergenceMonitor m(solve::MonitorSettings{1e-4, 1e-3, false, 1e-4, 2}, 100.0, 100);
  std::int64_t stopped = 0;
  for (std::int64_t step = 100; step <= 200000 && stopped == 0; step += 100) {
    const bool steady = m.check(step, mass(100.0), k(static_cast<double>(step)), 0.0);
    const double truth = std::abs(2.0 - k(static_cast<double>(step))) / k(static_cast<double>(step));
    if (step >= 1600 && step % 400 == 0) {
      EXPECT_NEAR(m.error_estimate() / truth, solve::remaining_safety, 1e-6) << step;
    }
    if (steady) stopped = step;
  }
  ASSERT_GT(stopped, 0);
  // the true distance at the stop is within the tolerance, and the run did not go on much longer
  EXPECT_LT(std::abs(2.0 - k(static_cast<double>(stopped))) / 2.0, 1e-4);
  EXPECT_GT(std::abs(2.0 - k(static_cast<double>(stopped - 400))) / 2.0, 1e-4 / solve::remaining_safety * 0.8);
}

// fp16 leaves noise on k (5e-5 from check to check on tight rock, docs/ACCURACY.md; there the
// fit through single values saw no shrinking trend and the run never stopped). Averaged, a noisy
// decay stops, and the k it reports (the last window's mean) lies within its stated error of
// the limit, on every seed.
TEST(Monitor, ANoisyDecayStopsAveragedWithAnHonestError) {
  const double limit = 2.0, noise = 1e-4;  // relative 5e-5, as fp16 on tight rock
  int stopped_runs = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> gauss(0.0, noise);
    const auto k = [&](double t) { return limit - 0.05 * std::exp(-t / 4000.0) + gauss(random); };
    solve::MonitorSettings averaged{1e-4, 1e-3, false, 1e-4, 2};
    averaged.average_noise = true;
    solve::ConvergenceMonitor a(averaged, 100.0, 100);
    std::int64_t stopped = 0;
    double reported = 0, error = 0;
    for (std::int64_t step = 100; step <= 200000 && stopped == 0; step += 100) {
      const double value = k(static_cast<double>(step));
      if (a.check(step, mass(100.0), value, 0.0)) {
        stopped = step;
        reported = value * a.reported_k_factor();
        error = a.error_estimate() * std::abs(reported);
      }
    }
    ASSERT_GT(stopped, 0) << "seed " << seed << ": the averaged monitor never stopped";
    ++stopped_runs;
    EXPECT_LT(stopped, 120000) << "seed " << seed;
    EXPECT_LE(std::abs(reported - limit), error) << "seed " << seed << ": k " << reported << " +- " << error;
    EXPECT_LT(std::abs(reported - limit) / limit, 1e-4) << "seed " << seed;
  }
  EXPECT_EQ(stopped_runs, 12);
}

// After a pressure jump the averaged history starts again; its windows are at least 8 checks wide
// (at most a quarter of the history), so an fp16 run can have an estimate 28 checks after its jump,
// where before it had none for 56 (a tight 512^3 pack: stopped 6,300 steps after its jump, 2,700
// after fp32 did).
TEST(Monitor, AnAveragedHistoryRestartedByAJumpHasAnEstimateAfter28Checks) {
  const double limit = 2.0, noise = 1e-4;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> gauss(0.0, noise);
    solve::MonitorSettings averaged;
    averaged.average_noise = true;
    averaged.flux_floor = 2e-4;
    solve::ConvergenceMonitor m(averaged, 100.0, 100);
    m.restart(7300);
    std::int64_t stopped = 0;
    for (std::int64_t step = 7400; step <= 20000 && stopped == 0; step += 100) {
      const double t = static_cast<double>(step - 7300);
      const bool steady = m.check(step, mass(100.0), limit * (1.0 + 2e-5 * std::exp(-t / 1000.0)) + gauss(random),
                                  1e-4, 100, 2400.0);
      if (step - 7300 < 2800) EXPECT_TRUE(std::isinf(m.error_estimate())) << step;  // a window holds < 8
      if (steady) stopped = step;
    }
    ASSERT_GT(stopped, 0) << "seed " << seed;
    EXPECT_LT(stopped, 7300 + 5600) << "seed " << seed;  // windows of step / 8 had no estimate before
  }
}

TEST(Monitor, ASlowModeBehindAFastOneIsNotMissed) {
  // a fast mode of large amplitude and a slow one of 2 % of it: the per-100-step change falls
  // below 1e-6 long before k is within 1e-4 of its limit
  const auto k = [](double t) { return 1.0 - 0.5 * std::exp(-t / 500.0) - 0.01 * std::exp(-t / 20000.0); };
  solve::ConvergenceMonitor m(solve::MonitorSettings{1e-4, 1e-3, false, 1e-4, 2}, 100.0, 100);
  std::int64_t stopped = 0;
  for (std::int64_t step = 100; step <= 1000000 && stopped == 0; step += 100) {
    if (m.check(step, mass(100.0), k(static_cast<double>(step)), 0.0)) stopped = step;
  }
  ASSERT_GT(stopped, 0);
  EXPECT_LT(std::abs(1.0 - k(static_cast<double>(stopped))), 1e-4);
}

TEST(Monitor, ATurningPointIsNotTheLimit) {
  // a fast mode rising and a slow one falling: k is flat near step 2600 while 2e-3 above its
  // limit (a 20 % pack between sealed faces does this, docs/ACCURACY.md). The fit before the
  // turn still sees more than the tolerance to go; after it, the change of sign says nothing
  // about the distance, and the run goes on until the slow mode is fitted. (A slow mode hidden
  // behind a fast one until the fast one has gone below the tolerance cannot be seen at all.)
  const auto k = [](double t) { return 1.0 - 0.5 * std::exp(-t / 300.0) + 3e-3 * std::exp(-t / 8000.0); };
  solve::ConvergenceMonitor m(solve::MonitorSettings{1e-4, 1e-3, false, 1e-4, 2}, 100.0, 100);
  std::int64_t stopped = 0;
  for (std::int64_t step = 100; step <= 1000000 && stopped == 0; step += 100) {
    if (m.check(step, mass(100.0), k(static_cast<double>(step)), 0.0)) stopped = step;
  }
  ASSERT_GT(stopped, 0);
  EXPECT_GT(stopped, 8000);
  EXPECT_LT(std::abs(1.0 - k(static_cast<double>(stopped))), 1e-4);
}

// The history of a 128^3 20 % pack between mirrored faces after its pressure jump at step 2300
// (rockperm-make-pack seed 3, radius 8; tau 0.544; H100 log of tools/trajectory_study.sh, 2026-11-26):
// step, k (mD), flux spread. Its k is steady at 1160.5144 mD; after the jump it sits flat at
// 1160.71 for 1000 steps (a slow mode of ~8800 steps under a fast one) with a spread of 3.6e-5.
// Without the jump's slow time the monitor stopped there, 1.7e-4 away with an error of 3.5e-5.
TEST(Monitor, AfterAJumpTheHistoryMustSpanTheSlowTimeBeforeAStop) {
  struct Check {
    std::int64_t step;
    double k, spread;
  };
  const Check after_jump[] = {
      {2300, 1160.8439, 2.65e-01}, {2400, 1160.6963, 3.02e-04}, {2500, 1160.6942, 2.12e-04},
      {2600, 1160.745, 2.94e-04},  {2700, 1160.705, 1.79e-04},  {2800, 1160.7148, 8.11e-05},
      {2900, 1160.7183, 9.30e-05}, {3000, 1160.7119, 3.45e-05}, {3100, 1160.7197, 3.61e-05},
      {3200, 1160.7166, 3.63e-05}, {3300, 1160.7141, 4.35e-05}, {3400, 1160.7144, 3.73e-05},
      {3500, 1160.7112, 3.65e-05}, {3600, 1160.7099, 3.67e-05}, {3700, 1160.7086, 3.58e-05},
      {3800, 1160.7064, 3.52e-05}, {3900, 1160.705, 3.48e-05},  {4000, 1160.7033, 3.45e-05},
      {4100, 1160.7016, 3.42e-05}, {4200, 1160.7001, 3.39e-05}, {4300, 1160.6984, 3.36e-05},
      {4400, 1160.6968, 3.32e-05}, {4500, 1160.6953, 3.29e-05}, {4600, 1160.6937, 3.26e-05},
      {4700, 1160.6922, 3.24e-05}};
  const double limit = 1160.5144;
  // the jump's ratio 0.796 per 500 steps: 2191 steps, D = 1100 after it, slow time 2200
  const double slow_time = 2200;
  const auto stop = [&](double slow) {
    solve::ConvergenceMonitor m(solve::MonitorSettings{}, 100.0, 100);
    m.restart(2300);
    for (const Check& c : after_jump) {
      if (m.check(c.step, mass(100.0), c.k, c.spread, 100, slow)) return c;
    }
    return Check{0, 0, 0};
  };
  const Check without = stop(0);  // as before: a stop on the plateau
  EXPECT_EQ(without.step, 3200);
  EXPECT_GT(std::abs(without.k - limit) / limit, 1.5e-4);
  EXPECT_EQ(stop(slow_time).step, 0);  // no stop anywhere on it: the slope after 2200 steps says 1.3e-4 to go
}

// A late jump on tight rock can measure a mode slower than the whole run (a 256^3 10 % pack: 36,000
// steps, at step 28,300); the history before it has watched k for that long already, so the wait is
// the shorter of the two, and k settled then stops the run soon after it.
TEST(Monitor, ALateJumpWaitsNoLongerThanTheRunBeforeIt) {
  solve::ConvergenceMonitor m(solve::MonitorSettings{}, 100.0, 100);
  m.restart(28300);
  std::int64_t stopped = 0;
  for (std::int64_t step = 28400; step <= 120000 && stopped == 0; step += 100) {
    const double k = 184.7 * (1.0 + 1e-6 * std::exp(-static_cast<double>(step - 28300) / 5000.0));
    if (m.check(step, mass(100.0), k, 2e-4, 100, 36000.0)) stopped = step;
  }
  EXPECT_GE(stopped, 2 * 28300);
  EXPECT_LT(stopped, 28300 + 36000);
}

// Whether a jump would only delay the stop follows the same reading of the mass balance as the stop:
// once the history spans the wait, an uneven flux no longer says the run is far from steady.
TEST(Monitor, SteadySoonReadsTheMassBalanceAsTheStopDoes) {
  solve::ConvergenceMonitor m(solve::MonitorSettings{}, 100.0, 100);
  m.restart(7300);
  const double slow_time = 2400;
  // the loop asks before each check, from the checks before it
  for (std::int64_t step = 7400; step <= 9500; step += 100) {
    m.check(step, mass(100.0), 11.819, 1e-3, 100, slow_time);  // k settled, the spread 20x its limit
  }
  EXPECT_FALSE(m.steady_soon(9600, slow_time));  // the check at 9600 is 2300 steps into a 2400-step wait
  m.check(9600, mass(100.0), 11.819, 1e-3, 100, slow_time);
  EXPECT_TRUE(m.steady_soon(9700, slow_time));
  EXPECT_FALSE(m.steady_soon(9700, 0.0));  // without a jump's slow time the spread decides, as before
}

// On tight rock the flux spread after a jump is the pressure profile along the sample relaxing, which
// moves mass between planes but hardly k. Once the history spans the slow time, k's own slope bounds
// what that mode leaves, and a run whose k has settled stops with the spread still above its limit;
// one whose k still drifts at that time scale does not.
TEST(Monitor, AfterTheSlowTimeTheSlopeOfKStandsInForTheMassBalance) {
  const double slow_time = 2400;
  const auto run = [&](double amplitude) {
    solve::ConvergenceMonitor m(solve::MonitorSettings{}, 100.0, 100);
    m.restart(7300);
    for (std::int64_t step = 7400; step <= 20000; step += 100) {
      const double t = static_cast<double>(step - 7300);
      const double k = 11.819 * (1.0 + amplitude * std::exp(-t / slow_time));
      const double spread = 1e-3 * std::exp(-t / 3000.0);  // above 5e-5 until step 16,300
      if (m.check(step, mass(100.0), k, spread, 100, slow_time)) return std::pair{step, m.error_estimate()};
    }
    return std::pair{std::int64_t{0}, 0.0};
  };
  const auto [settled, error] = run(1e-4);  // 1e-4 at the jump, 3.7e-5 when the history spans 2400 steps
  EXPECT_GE(settled, 7300 + 2400);
  EXPECT_LT(settled, 12000);
  // the stated error covers the true distance (the mode's amplitude at the stop)
  EXPECT_GE(error, 1e-4 * std::exp(-static_cast<double>(settled - 7300) / slow_time));
  const auto [drifting, unused] = run(3e-3);  // k still 1e-3 away at 2400 steps: no stop then
  EXPECT_TRUE(drifting == 0 || 3e-3 * std::exp(-static_cast<double>(drifting - 7300) / slow_time) < 1e-4) << drifting;
}

// Issue 54: a vuggy carbonate (512^3, 13.6 %, between buffers; H100) stopped at 11,800 steps with
// k 1.39e-4 below steady and a stated 9.1e-5: after its jump at 7,300 the extrapolation had measured
// a ~2,300-step mode, and the slope bound assumed it, while the vugs filling through narrow pores
// left a second mode of ~8,600 steps whose slope was still rising. Here the same shape: a fast
// mode of the jump's time falling, a slow one of 8,600 steps rising beneath it; the stop must come
// where the true distance is within the stated error (and the tolerance), and a single mode of the
// jump's time must still stop as soon as before.
TEST(Monitor, ASlowerModeThanTheJumpMeasuredIsReadFromTheSlopesFall) {
  const double slow_time = 2300, steady = 3534.65;
  const auto run = [&](double slow_amplitude, double fast_amplitude) {
    solve::ConvergenceMonitor m(solve::MonitorSettings{}, 100.0, 100);
    m.restart(7300);
    for (std::int64_t step = 7400; step <= 60000; step += 100) {
      const double t = static_cast<double>(step - 7300);
      const double k = steady * (1.0 - slow_amplitude * std::exp(-t / 8600.0) + fast_amplitude * std::exp(-t / slow_time));
      const double spread = 9.6e-5;  // above its limit throughout: the slope path decides
      if (m.check(step, mass(100.0), k, spread, 100, slow_time)) {
        return std::tuple{step, m.error_estimate(), std::abs(k - steady) / steady};
      }
    }
    return std::tuple{std::int64_t{0}, 0.0, 0.0};
  };
  const auto [step, stated, truth] = run(2.5e-4, 1.5e-4);
  ASSERT_GT(step, 0);
  // before: stopped at 9,700, 1.36e-4 from steady with a stated 3.0e-5; now at 32,800, 1.3e-5 with 3.0e-5
  EXPECT_LE(truth, stated) << "stopped at " << step;
  EXPECT_LT(truth, 1e-4) << "stopped at " << step;
  EXPECT_LT(stated, 3.0 * 1e-4);
  // one mode of the measured time: the stop where it was (its bound unchanged)
  const auto [single, single_stated, single_truth] = run(0.0, 1e-4);
  EXPECT_GT(single, 0);
  EXPECT_LT(single, 12000);
  EXPECT_LE(single_truth, single_stated);
}

// Issue 54's cost: tight1000 (1000^3, 10 %, between buffers; one H200, tools/time_to_k.sh) jumped at
// 12,300 steps, measuring a 3,800-step slow time; after it k rose in a ~550-step mode and turned at
// 16,100 into a slow fall of about -1.1e-9 per step. Reading the turn with the quarters' largest
// slope (the rising mode's) bounded the error at 7e-4 and ran the sample to 26,300 steps, 62 % more
// than the 16,200 before; the split of the history into the faster mode and the line beneath it
// (slow_mode_remaining) stops it where it stopped before, within its stated error of the
// tolerance-1e-6 run (12.113242 mD at 34,700 steps, same card). k as the run printed it, every 100
// steps.
TEST(Monitor, ATurnAfterAJumpIsReadFromTheSlowerModesOwnSlope) {
  const std::vector<double> k = {
      12.097896, 12.101903, 12.10468, 12.106648, 12.108081, 12.109142, 12.109954, 12.110589, 12.111088,
      12.111492, 12.111825, 12.112105, 12.112338, 12.11253, 12.112687, 12.112824, 12.112937, 12.113032,
      12.113111, 12.113177, 12.113231, 12.113276, 12.113313, 12.113344, 12.11337, 12.113391, 12.113407,
      12.113421, 12.113432, 12.11344, 12.113447, 12.113452, 12.113456, 12.113458, 12.11346, 12.113461,
      12.113462, 12.113462, 12.113462, 12.113461, 12.11346, 12.11346, 12.113459, 12.113458, 12.113457,
      12.113456, 12.113455};
  solve::ConvergenceMonitor m(solve::MonitorSettings{}, 100.0, 100);
  const double slow_time = 3800;
  const auto [stopped, at_stop] = replay_after_jump(m, 12300, k, slow_time);
  EXPECT_GT(stopped, 12300 + 3800);  // not before the history spans the slow time
  EXPECT_FALSE(m.slow_mode_hidden(stopped, slow_time));  // its slope shows the slow mode
  EXPECT_LE(stopped, 16300) << "error " << m.error_estimate();
  EXPECT_LT(m.error_estimate(), 1e-4);
  const double reference = 12.113242;
  EXPECT_LE(std::abs(at_stop - reference) / reference, m.error_estimate());
}

// Issue 54's multi-scale pack that the slope reading could not see (tools/pack_case.sh
// 256:0.10:periodic:3:3:0.03:20:6:0.07: a 10 % pack with 3 % vugs of radius 20 in 6-voxel shells of
// a 7 % pack; one H200): the first jump (step 15,800) measured r = 0.841 per 2,000 steps, a slow
// time of 11,600; after it k fell, rang and rose, then stayed flat (a faster mode rising over the
// slow one falling), and the run stopped at 27,700 at 8.3849532 mD stating 4.3e-5, 6.8e-5 above the
// tolerance-1e-6 run's 8.3843797 (four more jumps, 77,100 steps). k as the run printed it, every 100
// steps after the jump. Nothing in k's history tells this flat from steady, so the monitor says so
// (slow_mode_hidden) and the pressure extrapolation's next decision, which reads the density field,
// verifies the jump (lib/solve/extrapolation.hpp); tight1000's history after its jump, which shows
// its slow mode, is not held.
TEST(Monitor, FlatKAfterAJumpIsToldFromASlopeThatShowsTheSlowMode) {
  const std::vector<double> k = {
      8.4027664, 8.3874561, 8.378791, 8.3820837, 8.3915582, 8.3866224, 8.3831502, 8.379767, 8.3907174,
      8.390301, 8.3844121, 8.3777869, 8.3861932, 8.3869257, 8.3843435, 8.3792345, 8.3838799, 8.3854257,
      8.3860264, 8.3793586, 8.3819667, 8.384753, 8.3876976, 8.3815169, 8.3835818, 8.3841763, 8.3873337,
      8.3826902, 8.3836382, 8.3833128, 8.388022, 8.3850293, 8.3844147, 8.3833465, 8.3871501, 8.3849748,
      8.3844891, 8.3834005, 8.386208, 8.3853738, 8.3849051, 8.3827939, 8.3847007, 8.384914, 8.3849231,
      8.3831675, 8.3847788, 8.3850969, 8.3852734, 8.383611, 8.384266, 8.3846803, 8.3855264, 8.3843859,
      8.3845115, 8.384901, 8.3855859, 8.3846518, 8.3844595, 8.3847535, 8.3854748, 8.3851709, 8.384799,
      8.3847054, 8.3851851, 8.3850703, 8.3845994, 8.3845057, 8.3850022, 8.3851428, 8.3848073, 8.3845981,
      8.3847748, 8.3849878, 8.3848256, 8.3846499, 8.3847635, 8.3851117, 8.3850115, 8.3847919, 8.384723,
      8.3850041, 8.3849967, 8.38493, 8.3848259, 8.3850631, 8.3850972, 8.3850284, 8.3848059, 8.3849517,
      8.3850216, 8.3850447, 8.3848733, 8.384956, 8.3849923, 8.3850338, 8.3848618, 8.3848753, 8.3849256,
      8.3850401, 8.3849314, 8.3849222, 8.3849323, 8.3850205, 8.3849348, 8.3849178, 8.3849147, 8.3850234,
      8.3849993, 8.3849767, 8.3849365, 8.3850092, 8.3849971, 8.384978, 8.3849434, 8.3850056, 8.3850158,
      8.3850039, 8.3849532};
  const double slow_time = 11600, reference = 8.3843797;
  solve::ConvergenceMonitor m(solve::MonitorSettings{}, 100.0, 100);
  const std::int64_t stopped = replay_after_jump(m, 15800, k, slow_time).first;
  // what the monitor alone does: a stop whose stated error falls short of the distance
  ASSERT_EQ(stopped, 27700);
  EXPECT_GT(std::abs(k.back() - reference) / reference, m.error_estimate());
  // and what it says about it: k shows no trend, a slow mode may be hidden
  EXPECT_TRUE(m.slow_mode_hidden(27700, slow_time));
  EXPECT_FALSE(solve::read_slow_mode(m.history(), 27700 - 15800, slow_time).trend);
}

TEST(Monitor, UnevenFluxOrAChangeThatDoesNotShrinkIsNotSteady) {
  solve::ConvergenceMonitor flux(solve::MonitorSettings{1e-4, 1e-3, false, 1e-4, 2}, 100.0, 100);
  for (std::int64_t step = 100; step <= 5000; step += 100) {
    EXPECT_FALSE(flux.check(step, mass(100.0), 1.0, 2e-3)) << step;  // k constant, flux uneven
  }
  EXPECT_EQ(flux.error_estimate(), 0.0);
  solve::ConvergenceMonitor drift(solve::MonitorSettings{1e-4, 1e-3, false, 1e-4, 2}, 100.0, 100);
  for (std::int64_t step = 100; step <= 5000; step += 100) {
    EXPECT_FALSE(drift.check(step, mass(100.0), 1.0 + 1e-9 * step, 0.0)) << step;  // slow, steady drift
  }
  EXPECT_TRUE(std::isinf(drift.error_estimate()));
  EXPECT_NEAR(drift.relative_change(), 1e-7, 1e-9);
}

// A float steady state may flip the last bit of a few cells from check to check: k then turns
// back and forth by less than a float's rounding, and the fit reads no ratio from that. Before,
// such a run (grey layers at tau 1.5, tests/validation/test_grey.cpp) never stopped; it is steady.
TEST(Monitor, KFlickeringInItsFloatRoundingIsSteady) {
  solve::ConvergenceMonitor m(solve::MonitorSettings{1e-6, 1e-3, false, 1e-4, 3}, 100.0, 100);
  const double k = 24.816720944897952, flicker = k * 2e-8;
  std::int64_t stopped = 0;
  for (std::int64_t step = 100; step <= 20000 && stopped == 0; step += 100) {
    if (m.check(step, mass(100.0), (step / 100) % 3 == 0 ? k + flicker : k, 0.0)) stopped = step;
  }
  EXPECT_GT(stopped, 0);
  EXPECT_LE(m.error_estimate(), 2 * solve::float_rounding);
  // above the rounding, a change that turns is still no distance to read
  solve::ConvergenceMonitor turning(solve::MonitorSettings{1e-4, 1e-3, false, 1e-4, 3}, 100.0, 100);
  for (std::int64_t step = 100; step <= 20000; step += 100) {
    EXPECT_FALSE(turning.check(step, mass(100.0), (step / 100) % 3 == 0 ? k * (1 + 1e-6) : k, 0.0)) << step;
  }
}

TEST(Monitor, HistoryKeepsAFixedSizeOverLongRuns) {
  solve::KHistory h(100);
  for (std::int64_t step = 100; step <= 1000000; step += 100) h.record(step, 0.001 * static_cast<double>(step));
  EXPECT_GE(h.spacing(), 1000000 / solve::KHistory::capacity);
  EXPECT_NEAR(*h.at(500000.0), 500.0, 1e-9);  // linear: interpolation is exact
  EXPECT_NEAR(*h.at(750000.0), 750.0, 1e-9);
  EXPECT_FALSE(h.at(2000000.0).has_value());
}

TEST(Monitor, NanStopsTheRun) {
  solve::ConvergenceMonitor m(solve::MonitorSettings{}, 10.0);
  physics::FlowSums s;
  s.mass = 10.0;
  s.finite = false;
  EXPECT_THROW(m.check(7, s, 1.0, 0.0), SimulationError);
  s.finite = true;
  EXPECT_THROW(m.check(8, s, std::numeric_limits<double>::quiet_NaN(), 0.0), SimulationError);
}

TEST(Monitor, MassDriftStopsTheRun) {
  solve::ConvergenceMonitor m(solve::MonitorSettings{1e-6, 1e-3, false, 1e-4, 2}, 1000.0);
  physics::FlowSums s;
  s.mass = 1000.5;
  EXPECT_THROW(m.check(1, s, 1.0, 0.0), SimulationError);
}

TEST(Permeability, UnitsAndDarcyVelocity) {
  physics::FlowSums s;
  s.velocity[1] = 50.0;  // sum of u_y
  s.speed = 60.0;
  physics::FlowProblem p;
  p.flow_axis = 1;
  p.tau = 1.0;           // nu = 1/6
  p.acceleration = 1e-4;
  p.region_voxels = 1000;
  p.region_fluid = 400;
  p.voxel_size_um = 2.0;
  const physics::Permeability k = physics::permeability(s, p);
  EXPECT_DOUBLE_EQ(k.darcy_velocity, 0.05);
  EXPECT_DOUBLE_EQ(k.porosity, 0.4);
  EXPECT_NEAR(k.k_lattice, (1.0 / 6.0) * 0.05 / 1e-4, 1e-12);
  EXPECT_NEAR(k.k_m2, k.k_lattice * 4e-12, 1e-20);
  EXPECT_NEAR(k.k_md, k.k_m2 / 9.869233e-13 * 1e3, 1e-9);
  EXPECT_NEAR(k.tortuosity, 1.2, 1e-12);
}

// The mass balance follows the tolerance unless given: half of it, never below what float
// populations hold at steady state.
TEST(Monitor, AutomaticFluxToleranceIsHalfTheToleranceAndAtLeastOneInAHundredThousand) {
  solve::MonitorSettings s;
  EXPECT_TRUE(s.auto_flux_tolerance);
  EXPECT_DOUBLE_EQ(s.flux_limit(), 5e-5);
  s.tolerance = 1e-3;
  EXPECT_DOUBLE_EQ(s.flux_limit(), 5e-4);
  s.tolerance = 1e-8;
  EXPECT_DOUBLE_EQ(s.flux_limit(), 1e-5);
  s.auto_flux_tolerance = false;
  s.flux_tolerance = 2e-3;
  EXPECT_DOUBLE_EQ(s.flux_limit(), 2e-3);
}

}  // namespace rockperm
