// The steady-state criterion on tight samples (issue "A converged, trustworthy k"): with the
// defaults a user gets (tau and force chosen for the sample, tolerance 1e-4 on the estimated
// error of k, mass balance to half of that), a run stops within its tolerance of the k that the same run
// reaches when it goes on ten times longer. Tight packs are where the old criterion (k changed
// by less than 1e-6 per 100 steps) stopped 1e-3 away from steady state, and where a run at
// tau = 1 needs tens of times more steps.
#include <gtest/gtest.h>

#include <cmath>

#include "lib/geometry/sphere_pack.hpp"
#include "tests/pipeline_support.hpp"

namespace rockperm {

namespace {

geometry::PoreMask tight_pack() { return testing::sphere_pack_mask(40, 0.10, 3.0, 3); }  // pores ~2 voxels across

// what a user gets by default: tolerance and flux tolerance, checks, percolation filter
testing::PipelineSettings default_settings() {
  testing::PipelineSettings settings;
  settings.tolerance = solve::MonitorSettings{}.tolerance;
  settings.flux_tolerance = solve::MonitorSettings{}.flux_limit();
  settings.check_interval = 100;
  settings.required_checks = 2;
  settings.percolation_filter = true;
  return settings;
}

void expect_stop_within_tolerance(geometry::InletOutlet mode) {
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, mode == geometry::InletOutlet::periodic
                                                                  ? geometry::Periodicity{true, true, true}
                                                                  : geometry::Periodicity{false, false, false});
  flow.inlet_outlet = mode;
  flow.auto_tau = flow.auto_force = true;
  const testing::PipelineSettings settings = default_settings();
  const auto run = testing::run_pipeline(tight_pack(), flow, settings);
  const pipeline::SampleResult& r = run.result;
  ASSERT_TRUE(r.converged()) << r.message;
  EXPECT_LT(r.flow.tau, 0.6) << "a tight pack should run at a small tau";

  testing::PipelineSettings longer = settings;
  longer.tolerance = 1e-9;
  longer.flux_tolerance = 1e-9;
  longer.max_steps = 10 * r.steps;
  const auto reference = testing::run_pipeline(tight_pack(), flow, longer);
  const double k_ref = reference.result.k.k_lattice;
  const double distance = std::abs(r.k.k_lattice / k_ref - 1.0);
  testing::record("steps", static_cast<double>(r.steps));
  testing::record("reference_steps", static_cast<double>(reference.result.steps));
  testing::record("tau", r.flow.tau);
  testing::record("distance", distance);
  testing::record("error_estimate", r.error_estimate);
  EXPECT_GE(reference.result.steps, 10 * r.steps - 100) << "the reference stopped early: it is no reference";
  EXPECT_LT(distance, settings.tolerance) << "k " << r.k.k_lattice << " vs " << k_ref << " after " << r.steps
                                          << " and " << reference.result.steps << " steps";
  EXPECT_LT(r.flux_nonuniformity, settings.flux_tolerance);
}

}  // namespace

TEST(Validation, TightPackBetweenBuffersStopsWithinToleranceOfATenTimesLongerRun) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  expect_stop_within_tolerance(geometry::InletOutlet::buffer);
}

TEST(Validation, TightPeriodicPackStopsWithinToleranceOfATenTimesLongerRun) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  expect_stop_within_tolerance(geometry::InletOutlet::periodic);
}

}  // namespace rockperm

namespace rockperm {

// The pressure extrapolation (lib/solve/extrapolation.hpp) on a pack whose run is most of it the
// slow pressure mode: with the defaults it jumps, stops within its tolerance of a run to a ten
// times tighter tolerance, and plain time stepping has not converged in one and a half times its
// steps.
TEST(Validation, PressureExtrapolationReachesTheSameKInFewerSteps) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const geometry::PoreMask pack = testing::sphere_pack_mask(80, 0.10, 2.5, 3);
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, geometry::Periodicity{false, false, false});
  flow.inlet_outlet = geometry::InletOutlet::buffer;
  flow.auto_tau = flow.auto_force = true;
  const testing::PipelineSettings settings = default_settings();
  const auto run = testing::run_pipeline(pack, flow, settings);
  const pipeline::SampleResult& r = run.result;
  ASSERT_TRUE(r.converged()) << r.message;
  EXPECT_GE(r.extrapolations, 1) << "the run never jumped: no test of the extrapolation";

  testing::PipelineSettings tighter = settings;
  tighter.tolerance = 1e-5;
  tighter.flux_tolerance = 1e-5;
  const auto reference = testing::run_pipeline(pack, flow, tighter);
  ASSERT_TRUE(reference.result.converged()) << reference.result.message;
  const double distance = std::abs(r.k.k_lattice / reference.result.k.k_lattice - 1.0);

  testing::PipelineSettings plain = settings;
  plain.extrapolation = false;
  plain.max_steps = r.steps + r.steps / 2;
  const auto stepped = testing::run_pipeline(pack, flow, plain);
  testing::record("steps", static_cast<double>(r.steps));
  testing::record("extrapolations", r.extrapolations);
  testing::record("reference_steps", static_cast<double>(reference.result.steps));
  testing::record("distance", distance);
  testing::record("plain_error_estimate_at_1.5x", stepped.result.error_estimate);
  EXPECT_LT(distance, settings.tolerance) << "k " << r.k.k_lattice << " vs " << reference.result.k.k_lattice;
  EXPECT_FALSE(stepped.result.converged()) << "plain stepping converged in " << stepped.result.steps
                                           << " steps, the extrapolation took " << r.steps;
}

}  // namespace rockperm
