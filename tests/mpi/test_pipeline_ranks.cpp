// The library pipeline on 1, 2 and 3 ranks (this binary under mpirun -n N): the validation
// kinds of sample (periodic, between buffers along the decomposed axis, mirrored) give the k
// of a single-process run of the same pipeline made inside the same job, to 1e-12, in the
// same number of steps.
#include <gtest/gtest.h>

#include <cmath>

#include <unistd.h>

#include <filesystem>

#include "lib/geometry/sphere_pack.hpp"
#include "pipeline/checkpoint.hpp"
#include "pipeline/fields.hpp"
#include "pipeline/run.hpp"
#include "tests/pipeline_support.hpp"

namespace rockperm {

namespace {

void expect_same_k_on_every_rank_count(const geometry::PoreMask& mask, const pipeline::FlowSpec& flow,
                                       pipeline::PropagationChoice propagation, std::vector<double> shares = {}) {
  testing::PipelineSettings settings;
  settings.shares = std::move(shares);
  settings.tolerance = 1e-6;
  settings.max_steps = 20000;
  settings.propagation = propagation;
  const parallel::Comm world = parallel::Comm::world();
  const auto single = testing::run_pipeline(parallel::Comm(), mask, flow, settings);  // every rank alone
  const auto decomposed = testing::run_pipeline(world, mask, flow, settings);
  ASSERT_TRUE(single.result.converged());
  EXPECT_EQ(decomposed.result.steps, single.result.steps);
  EXPECT_NEAR(decomposed.result.k.k_lattice / single.result.k.k_lattice, 1.0, 1e-12)
      << world.size() << " ranks: " << decomposed.result.k.k_lattice << " vs " << single.result.k.k_lattice;
  EXPECT_NEAR(decomposed.result.drive.acceleration / single.result.drive.acceleration, 1.0, 1e-12);
  EXPECT_EQ(decomposed.result.fluid_cells, single.result.fluid_cells);
}

geometry::PoreMask pack(geometry::Dims d, double porosity, std::uint32_t seed) {
  geometry::SpherePackSpec spec;
  spec.dims = d;
  spec.porosity = porosity;
  spec.radius = 3.0;
  spec.seed = seed;
  return make_pore_mask(geometry::make_sphere_pack(spec), geometry::LabelSelection::parse("0"));
}

}  // namespace

TEST(PipelineRanks, PeriodicSphereArrayHasOneK) {
  const int L = 16;
  const geometry::PoreMask sphere = testing::mask_from(geometry::Dims{L, L, L}, [&](auto x, auto y, auto z) {
    const double dx = x + 0.5 - L / 2.0, dy = y + 0.5 - L / 2.0, dz = z + 0.5 - L / 2.0;
    return dx * dx + dy * dy + dz * dz > 25.0;
  });
  expect_same_k_on_every_rank_count(sphere, testing::periodic_flow(1.0, 1e-5),
                                    pipeline::PropagationChoice::two_pass);
}

TEST(PipelineRanks, BuffersAlongTheDecomposedAxisGiveOneK) {
  // a duct along z between buffers: the pressure reading spans the ranks
  const geometry::PoreMask duct = testing::mask_from(geometry::Dims{8, 8, 24}, [](auto x, auto y, auto) {
    return x >= 2 && x < 6 && y >= 2 && y < 6;
  });
  pipeline::FlowSpec flow = testing::periodic_flow(0.9, 1e-5, {false, false, false});
  flow.flow_axis = 2;
  flow.inlet_outlet = geometry::InletOutlet::buffer;
  flow.buffer_layers = 4;
  expect_same_k_on_every_rank_count(duct, flow, pipeline::PropagationChoice::fused);
}

TEST(PipelineRanks, MirroredPackGivesOneK) {
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, {true, true, true});
  flow.flow_axis = 2;
  flow.inlet_outlet = geometry::InletOutlet::mirror;
  geometry::PoreMask m = pack(geometry::Dims{16, 16, 16}, 0.4, 3);
  (void)keep_percolating_pores(m, 2, {true, true, false});
  expect_same_k_on_every_rank_count(m, flow, pipeline::PropagationChoice::two_pass);
}

// The fields a run keeps in memory (RunRequest::keep_fields) are gathered from every rank's slab
// onto rank 0: the same arrays, bit for bit, as one rank's (the populations are: MpiConsistency).
TEST(PipelineRanks, FieldsGatheredOnRankZeroAreOneRanks) {
  const parallel::Comm world = parallel::Comm::world();
  geometry::PoreMask m = pack(geometry::Dims{12, 10, 16}, 0.45, 5);
  (void)keep_percolating_pores(m, 2, {true, true, false});
  const pipeline::ReadVolume volume = pipeline::volume_from_mask(std::move(m), 1.0, "pack");
  const auto request = [&](const std::filesystem::path& dir) {
    pipeline::RunRequest r;
    r.spec.flow = testing::periodic_flow(0.9, 1e-5);
    r.spec.flow.flow_axis = 2;
    r.spec.flow.inlet_outlet = geometry::InletOutlet::buffer;
    r.spec.flow.buffer_layers = 3;
    r.spec.execution.backend = pipeline::BackendChoice::cpu;
    r.spec.execution.max_steps = 300;
    r.spec.output.dir = dir;
    r.spec.output.fields.enabled = false;
    r.volume = [&volume]() -> const pipeline::ReadVolume& { return volume; };
    r.keep_fields = true;
    r.use = pipeline::DirectoryUse::overwrite;
    return r;
  };
  const auto base = std::filesystem::temp_directory_path() / ("rockperm_fields_ranks_" + std::to_string(world.size()));
  const pipeline::SampleResult single = pipeline::run(
      parallel::Comm(), request(base / ("alone_" + std::to_string(world.rank()) + "_" + std::to_string(::getpid()))));
  const pipeline::SampleResult decomposed = pipeline::run(world, request(base / "world"));
  if (!world.root()) {
    EXPECT_FALSE(decomposed.fields);
    return;
  }
  ASSERT_TRUE(single.fields && decomposed.fields);
  EXPECT_EQ(decomposed.fields->dims.nz, 16);
  EXPECT_EQ(decomposed.fields->velocity, single.fields->velocity);
  for (std::size_t v = 0; v < single.fields->pressure.size(); ++v) {
    const float a = single.fields->pressure[v], b = decomposed.fields->pressure[v];
    ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << v;
  }
}

// A mixed run (GPUs and the host's cores, run.host_share) cuts slabs of unequal size; stood in by
// CPU ranks with the shares such a split gives, the k is the one-rank k (issue 38).
TEST(PipelineRanks, UnequalSlabsOfAMixedRunGiveOneK) {
  const int ranks = parallel::Comm::world().size();
  std::vector<double> shares{1.0};
  if (ranks == 2) shares = {0.8, 0.2};
  if (ranks == 3) shares = {0.47, 0.47, 0.06};
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, {true, true, true});
  flow.flow_axis = 2;
  flow.inlet_outlet = geometry::InletOutlet::buffer;
  flow.buffer_layers = 3;
  geometry::PoreMask m = pack(geometry::Dims{16, 16, 24}, 0.4, 11);
  (void)keep_percolating_pores(m, 2, {true, true, false});
  expect_same_k_on_every_rank_count(m, flow, pipeline::PropagationChoice::fused, shares);
}

// A mixed run's checkpoint (unequal slabs) resumes on one rank, with equal slabs, to the k of a
// run never stopped: the split is not part of the state (issue 38: resume on any split).
TEST(PipelineRanks, ACheckpointOfUnequalSlabsResumesOnOneRank) {
  const parallel::Comm world = parallel::Comm::world();
  const geometry::PoreMask duct = testing::mask_from(geometry::Dims{8, 8, 24}, [](auto x, auto y, auto z) {
    return x >= 2 && x < 6 && y >= 2 && y < 6 && !(z % 7 == 3 && x == 3);
  });
  pipeline::FlowSpec flow = testing::periodic_flow(0.9, 1e-5, {false, false, false});
  flow.flow_axis = 2;
  flow.inlet_outlet = geometry::InletOutlet::buffer;
  flow.buffer_layers = 3;
  testing::PipelineSettings settings;
  settings.tolerance = 1e-6;
  const pipeline::ExecutionSpec execution = testing::test_execution(settings);
  const auto start = [&](const parallel::Comm& comm, const std::vector<double>& shares) {
    pipeline::Sample sample = pipeline::sample_from_mask(comm, geometry::PoreMask(duct), 1.0, flow, false, "duct");
    const pipeline::ExecutionPlan plan = pipeline::plan_execution(comm, execution, sample.plane_fluid);
    pipeline::RankLattice part =
        pipeline::decompose(comm, sample, flow.periodicity(), plan.propagation, flow.edge_contacts,
                            pipeline::OneRank::whole, lattice::LatticeTables::host, shares);
    return std::make_unique<pipeline::Simulation>(comm, sample, std::move(part), pipeline::resolve_flow(flow, sample),
                                                  execution, plan);
  };
  auto whole = start(parallel::Comm(), {});
  whole->run();
  ASSERT_TRUE(whole->converged());
  std::vector<double> shares(static_cast<std::size_t>(world.size()), 1.0);
  if (world.size() > 1) shares.back() = 0.2;
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("rockperm_mixed_resume_" + std::to_string(world.size()) + ".rpk");
  const std::string identity(64, 'b');
  auto mixed = start(world, world.size() > 1 ? shares : std::vector<double>{});
  for (int c = 0; c < 3; ++c) mixed->advance();
  pipeline::write_checkpoint(world, *mixed, file, identity);
  world.barrier();
  auto resumed = start(parallel::Comm(), {});
  pipeline::read_checkpoint(parallel::Comm(), *resumed, file, identity);
  ASSERT_GT(mixed->progress().step, 0);
  EXPECT_EQ(resumed->progress().step, mixed->progress().step);  // continues where the mixed run stopped
  resumed->run();
  EXPECT_EQ(resumed->result().steps, whole->result().steps);
  EXPECT_NEAR(resumed->result().k.k_lattice / whole->result().k.k_lattice, 1.0, 1e-12);
}

}  // namespace rockperm
