// The pipeline's stages as a library caller uses them (CPU backend, one process).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>

#include "lib/base/error.hpp"
#include "pipeline/fields.hpp"
#include "lib/solve/time_scales.hpp"
#include "tests/pipeline_support.hpp"

namespace rockperm::pipeline {

namespace {

geometry::PoreMask duct(std::int64_t length) {
  return testing::mask_from(geometry::Dims{length, 8, 8},
                            [](auto, auto y, auto z) { return y >= 2 && y < 6 && z >= 2 && z < 6; });
}

std::string field_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.field();
  }
  return "(accepted)";
}

}  // namespace

TEST(Simulation, AdvancesCheckByCheckAndReportsTheKThatConverged) {
  FlowSpec flow = testing::periodic_flow(0.8, 1e-5, {false, false, false});
  flow.inlet_outlet = geometry::InletOutlet::buffer;
  flow.buffer_layers = 4;
  ExecutionSpec execution;
  execution.backend = BackendChoice::cpu;
  execution.check_interval = 25;  // checks fall on even steps: every 26
  execution.monitor.tolerance = 1e-7;
  const parallel::Comm comm;
  Sample sample = sample_from_mask(comm, duct(24), 2.0, flow, true, "duct");
  EXPECT_EQ(sample.dims, (geometry::Dims{32, 8, 8}));  // with the buffers
  EXPECT_EQ(sample.sample_begin, 4);
  EXPECT_EQ(sample.sample_end, 28);
  EXPECT_EQ(sample.fluid, 24u * 16u + 8u * 64u);  // the duct and 8 open buffer planes
  const ExecutionPlan plan = plan_execution(comm, execution, sample.plane_fluid);
  EXPECT_FALSE(plan.cuda);
  EXPECT_EQ(plan.propagation, backend::Propagation::two_pass);
  RankLattice part = decompose(comm, sample, flow.periodicity(), plan.propagation, flow.edge_contacts);
  EXPECT_TRUE(sample.mask.pore.empty());  // taken by the decomposition
  Simulation simulation(comm, sample, std::move(part), flow, execution, plan);
  std::int64_t last = 0;
  while (!simulation.finished()) {
    simulation.advance();
    EXPECT_EQ(simulation.progress().step, last + 26);
    EXPECT_EQ(simulation.progress().step % 2, 0);
    last = simulation.progress().step;
  }
  ASSERT_TRUE(simulation.converged());
  const SampleResult r = simulation.result();
  EXPECT_EQ(r.status, RunStatus::converged);
  EXPECT_EQ(r.steps, last);
  EXPECT_EQ(r.input.name, "duct");
  // the k reported is the k of the last check, divided by the interior drive
  EXPECT_DOUBLE_EQ(r.k.k_lattice, simulation.progress().k.k_lattice);
  EXPECT_GT(r.drive.acceleration, flow.force);  // the buffers resist less than the duct
  EXPECT_DOUBLE_EQ(r.voxel_size_um, 2.0);
  EXPECT_NEAR(r.k.k_m2, r.k.k_lattice * 4e-12, 1e-12 * r.k.k_m2);
  const backend::Macroscopic m = simulation.owned_macroscopic();
  EXPECT_EQ(m.size(), static_cast<std::size_t>(sample.fluid));
  // the history of k for the report: the checks, in step order, ending at the k reported
  ASSERT_GE(r.history_md.size(), 2u);
  EXPECT_EQ(r.history_md.back().first, r.steps);
  EXPECT_DOUBLE_EQ(r.history_md.back().second, r.k.k_md);
  for (std::size_t i = 1; i < r.history_md.size(); ++i) EXPECT_GT(r.history_md[i].first, r.history_md[i - 1].first);
  // the duct along x: no mean flow across (to float rounding)
  EXPECT_GT(r.mean_velocity[0], 0.0);
  EXPECT_LT(std::abs(r.mean_velocity[1]) + std::abs(r.mean_velocity[2]), 1e-4 * r.mean_velocity[0]);  // float rounding
}

TEST(Simulation, TheSameRunTwiceGivesTheSameKToTheLastBit) {
  const auto a = testing::run_pipeline(duct(16), testing::periodic_flow(1.0, 1e-5, {false, false, false}));
  const auto b = testing::run_pipeline(duct(16), testing::periodic_flow(1.0, 1e-5, {false, false, false}));
  EXPECT_EQ(a.result.k.k_lattice, b.result.k.k_lattice);
  EXPECT_EQ(a.result.steps, b.result.steps);
}

// tau and force are chosen once per run (pipeline::run resolves the flow before planning): a
// Simulation refuses a flow that still asks for them rather than choosing them a second time.
TEST(Simulation, TakesTheFlowAsResolvedOnce) {
  FlowSpec flow = testing::periodic_flow(1.0, 1e-5, {false, false, false});
  flow.auto_tau = flow.auto_force = true;
  ExecutionSpec execution;
  execution.backend = BackendChoice::cpu;
  const parallel::Comm comm;
  Sample sample = sample_from_mask(comm, duct(16), 2.0, flow, true, "duct");
  const ExecutionPlan plan = plan_execution(comm, execution, sample.plane_fluid);
  RankLattice part = decompose(comm, sample, flow.periodicity(), plan.propagation, flow.edge_contacts);
  EXPECT_THROW(Simulation(comm, sample, std::move(part), flow, execution, plan), Error);
}

TEST(Specs, RejectedValuesNameTheirField) {
  FlowSpec flow;
  flow.tau = 0.5;
  EXPECT_EQ(field_of([&] { flow.validate(); }), "flow.tau");
  flow = FlowSpec{};
  flow.buffer_layers = 0;
  EXPECT_EQ(field_of([&] { flow.validate(); }), "flow.buffer_layers");
  ExecutionSpec execution;
  execution.max_steps = 0;
  EXPECT_EQ(field_of([&] { execution.validate(); }), "execution.max_steps");
  OutputSpec output;
  output.dir = std::filesystem::temp_directory_path() / ("rockperm_spec_test_" + std::to_string(::getpid()));
  output.fields.stride = 0;
  EXPECT_EQ(field_of([&] { output.validate(); }), "output.fields.stride");
  const geometry::PoreMask solid{geometry::Dims{4, 4, 4}, std::vector<std::uint8_t>(64, 0)};
  // no path from inlet to outlet: k = 0, invalid physics also with the filter off
  EXPECT_THROW((void)sample_from_mask(parallel::Comm(), solid, 1.0, testing::periodic_flow(1.0, 1e-5), false),
               PhysicsError);
  const geometry::PoreMask open{geometry::Dims{4, 4, 4}, std::vector<std::uint8_t>(64, 1)};  // nothing resists
  EXPECT_THROW((void)sample_from_mask(parallel::Comm(), open, 1.0, testing::periodic_flow(1.0, 1e-5), false),
               PhysicsError);
  EXPECT_NO_THROW(
      (void)sample_from_mask(parallel::Comm(), open, 1.0, testing::periodic_flow(1.0, 1e-5, {false, false, false})));
  // a benchmark's sample: any geometry, and no pore-width analysis (a run's has a class per cell)
  const Sample box = sample_from_mask(parallel::Comm(), open, 1.0, testing::periodic_flow(1.0, 1e-5), false, "box",
                                      SampleUse::benchmark);
  EXPECT_EQ(box.fluid, 64u);
  EXPECT_FALSE(box.widths.prepared());
  EXPECT_TRUE(box.widths.get().empty());
  const Sample run = sample_from_mask(parallel::Comm(), duct(8), 1.0, testing::periodic_flow(1.0, 1e-5), false);
  EXPECT_EQ(run.widths.get().size(), run.fluid);
  EXPECT_GT(run.widths.seconds(), 0.0);
  FlowSpec bgk = testing::periodic_flow(1.5, 1e-5);
  bgk.collision = physics::CollisionModel::bgk;
  EXPECT_THROW(bgk.validate(), PhysicsError);
  bgk.tau = 1.0;
  EXPECT_NO_THROW(bgk.validate());
  execution = ExecutionSpec{};
  execution.monitor.tolerance = 1e-10;  // below what float populations resolve
  EXPECT_EQ(field_of([&] { execution.validate(); }), "execution.monitor.tolerance");
  EXPECT_EQ(
      field_of([&] { (void)sample_from_mask(parallel::Comm(), duct(4), 0.0, testing::periodic_flow(1.0, 1e-5)); }),
      "sample.volume.voxel_size_um");
}

TEST(Specs, AFieldCropOutsideTheSimulatedVolumeFailsBeforeTheRun) {
  if (!fields_supported()) GTEST_SKIP() << "built without VTK";
  const FlowSpec flow = testing::periodic_flow(1.0, 1e-5);
  const Sample sample = sample_from_mask(parallel::Comm(), duct(8), 1.0, flow, false);
  FieldSpec spec;
  spec.crop.offset = {8, 0, 0};
  EXPECT_EQ(field_of([&] { const FieldsOutput out(spec, std::filesystem::temp_directory_path(), sample, flow); }),
            "output.fields.crop");
}

}  // namespace rockperm::pipeline

namespace rockperm::pipeline {

TEST(ResolveFlow, AutoTauAndForceFollowThePoreSpace) {
  Sample sample;
  sample.dims = geometry::Dims{1184, 128, 128};
  sample.pores.porosity = 0.1;  // a tight pack: tau at the floor, the force scaled with nu
  sample.pores.hydraulic_diameter = 3.5;
  sample.pores.kozeny_carman_k = 4.3e-3;
  FlowSpec given = testing::periodic_flow(0.8, 3e-6);
  EXPECT_EQ(resolve_flow(given, sample).tau, 0.8);  // nothing auto: as given
  EXPECT_EQ(resolve_flow(given, sample).force, 3e-6);
  FlowSpec f = given;
  f.auto_tau = f.auto_force = true;
  const FlowSpec tight = resolve_flow(f, sample);
  EXPECT_DOUBLE_EQ(tight.tau, rockperm::solve::min_auto_tau);
  EXPECT_NEAR(tight.force,
              FlowSpec::reference_force * physics::viscosity(rockperm::solve::min_auto_tau) / physics::viscosity(1.0),
              1e-18);
  EXPECT_EQ(resolve_flow(tight, sample).tau, tight.tau);  // resolving again changes nothing
  EXPECT_TRUE(f.needs_resolving());  // tau and force are chosen once per run, before the Simulation
  EXPECT_FALSE(tight.needs_resolving());
  EXPECT_TRUE(tight.auto_tau);  // still said in the reports

  sample.dims = geometry::Dims{64, 64, 64};  // one big pore: tau at the ceiling, the force held down by Re
  sample.pores.porosity = 0.875;
  sample.pores.hydraulic_diameter = 120;
  sample.pores.kozeny_carman_k = 300;
  const FlowSpec open = resolve_flow(f, sample);
  EXPECT_DOUBLE_EQ(open.tau, 2.0);
  const double nu = physics::viscosity(2.0), q = 300 * open.force / nu;
  EXPECT_NEAR(q * std::sqrt(300.0) / nu, FlowSpec::target_reynolds, 1e-12);  // the estimated Re
  EXPECT_LT(open.force, FlowSpec::reference_force * nu / physics::viscosity(1.0));

  f.collision = physics::CollisionModel::bgk;  // BGK's k moves with tau: it keeps 1
  EXPECT_DOUBLE_EQ(resolve_flow(f, sample).tau, 1.0);
}

}  // namespace rockperm::pipeline
