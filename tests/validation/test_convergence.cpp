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

PoreMask tight_pack() { return testing::sphere_pack_mask(40, 0.10, 3.0, 3); }  // pores ~2 voxels across

void expect_stop_within_tolerance(InletOutlet mode) {
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, mode == InletOutlet::periodic
                                                                  ? Periodicity{true, true, true}
                                                                  : Periodicity{false, false, false});
  flow.inlet_outlet = mode;
  flow.auto_tau = flow.auto_force = true;
  testing::PipelineSettings settings;  // rockperm's defaults
  settings.tolerance = MonitorSettings{}.tolerance;
  settings.flux_tolerance = MonitorSettings{}.flux_limit();
  settings.check_interval = 100;
  settings.required_checks = 2;
  settings.percolation_filter = true;
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
  expect_stop_within_tolerance(InletOutlet::buffer);
}

TEST(Validation, TightPeriodicPackStopsWithinToleranceOfATenTimesLongerRun) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  expect_stop_within_tolerance(InletOutlet::periodic);
}

}  // namespace rockperm
