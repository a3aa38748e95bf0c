// The library pipeline on 1, 2 and 3 ranks (this binary under mpirun -n N): the validation
// kinds of sample (periodic, between buffers along the decomposed axis, mirrored) give the k
// of a single-process run of the same pipeline made inside the same job, to 1e-12, in the
// same number of steps.
#include <gtest/gtest.h>

#include <cmath>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

#include "lib/geometry/coarsen.hpp"
#include "lib/geometry/sphere_pack.hpp"
#include "io/sha256.hpp"
#include "pipeline/checkpoint.hpp"
#include "pipeline/conduction.hpp"
#include "pipeline/fields.hpp"
#include "pipeline/forchheimer.hpp"
#include "pipeline/run.hpp"
#include "pipeline/slab_sample.hpp"
#include "pipeline/tensor.hpp"
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
  // the formation factor on the same lattices: with the Jacobi preconditioner the same iterates
  // to the bit on every rank count (its sums are taken plane by plane, lib/solve/conduction.hpp);
  // with multigrid (a cycle per rank's slab) the same F within the tolerance
  pipeline::RunSpec spec;
  spec.execution.monitor.tolerance = 1e-8;
  using Preconditioner = solve::ConductionProblem::Preconditioner;
  for (const Preconditioner pre : {Preconditioner::jacobi, Preconditioner::multigrid}) {
    pipeline::SampleResult one = single.result, many = decomposed.result;
    pipeline::add_conduction(parallel::Comm(), *single.simulation, spec, one, pre);
    pipeline::add_conduction(world, *decomposed.simulation, spec, many, pre);
    ASSERT_TRUE(one.conduction.done && one.conduction.converged) << one.conduction.note;
    ASSERT_TRUE(many.conduction.done && many.conduction.converged) << many.conduction.note;
    if (pre == Preconditioner::jacobi) {
      EXPECT_EQ(many.conduction.iterations, one.conduction.iterations);
      EXPECT_EQ(many.conduction.formation_factor, one.conduction.formation_factor)
          << world.size() << " ranks: " << many.conduction.formation_factor << " vs " << one.conduction.formation_factor;
    } else {
      EXPECT_NEAR(many.conduction.formation_factor / one.conduction.formation_factor, 1.0, 1e-7) << world.size() << " ranks";
    }
  }
}

geometry::PoreMask pack(geometry::Dims d, double porosity, std::uint32_t seed) {
  return testing::sphere_pack_mask(d, porosity, 3.0, seed);
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

// Issue 67: the Darcy-scale start on Z-slabs: the start's solve runs on each rank's slab (its
// multigrid a cycle per slab, so its field differs between rank counts within its 1e-3
// residual), and the runs reach one rank's k within the stop's tolerance, as the rest start does.
TEST(PipelineRanks, ADarcyStartOnSlabsReachesOneRanksK) {
  pipeline::FlowSpec flow = testing::periodic_flow(0.8, 1e-5, {false, false, false});
  flow.flow_axis = 2;
  flow.inlet_outlet = geometry::InletOutlet::buffer;
  flow.buffer_layers = 4;
  geometry::PoreMask m = pack(geometry::Dims{14, 14, 30}, 0.3, 5);
  (void)keep_percolating_pores(m, 2, {false, false, false});
  testing::PipelineSettings settings;
  settings.tolerance = 1e-5;
  settings.max_steps = 40000;
  const parallel::Comm world = parallel::Comm::world();
  const auto rest = testing::run_pipeline(parallel::Comm(), m, flow, settings);
  settings.start = pipeline::ExecutionSpec::Start::darcy;
  const auto single = testing::run_pipeline(parallel::Comm(), m, flow, settings);
  const auto decomposed = testing::run_pipeline(world, m, flow, settings);
  ASSERT_TRUE(rest.result.converged() && single.result.converged() && decomposed.result.converged());
  EXPECT_TRUE(single.result.start.done && decomposed.result.start.done) << decomposed.result.start.note;
  EXPECT_NEAR(decomposed.result.k.k_lattice / single.result.k.k_lattice, 1.0, settings.tolerance) << world.size() << " ranks";
  EXPECT_NEAR(decomposed.result.k.k_lattice / rest.result.k.k_lattice, 1.0, settings.tolerance) << world.size() << " ranks";
}

// Issue 68: a Forchheimer sweep of a pack between buffers along the decomposed axis makes the same
// steps on every rank count: each point's tau and force are set from reduced sums, so its k_app,
// steps and Mach number are one rank's (to 1e-12: k itself is).
TEST(PipelineRanks, AForchheimerSweepIsOneRanks) {
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-6, {false, false, false});
  flow.flow_axis = 2;
  flow.inlet_outlet = geometry::InletOutlet::buffer;
  flow.buffer_layers = 3;
  geometry::PoreMask m = pack(geometry::Dims{16, 16, 24}, 0.45, 7);
  (void)keep_percolating_pores(m, 2, {false, false, false});
  testing::PipelineSettings settings;
  settings.tolerance = 1e-6;
  settings.max_steps = 20000;
  const parallel::Comm world = parallel::Comm::world();
  pipeline::ForchheimerSpec spec;
  spec.enabled = true;
  spec.min_reynolds = 0.5;
  spec.max_reynolds = 5;
  spec.points = 3;
  spec.tolerance = 1e-5;
  auto single = testing::run_pipeline(parallel::Comm(), m, flow, settings);
  auto decomposed = testing::run_pipeline(world, m, flow, settings);
  ASSERT_TRUE(single.result.converged());
  EXPECT_TRUE(pipeline::run_forchheimer(parallel::Comm(), *single.simulation, spec, 20000, {}, single.result).empty());
  EXPECT_TRUE(pipeline::run_forchheimer(world, *decomposed.simulation, spec, 20000, {}, decomposed.result).empty());
  const auto& a = single.result.forchheimer.points;
  const auto& b = decomposed.result.forchheimer.points;
  ASSERT_EQ(a.size(), 4u) << single.result.forchheimer.note;
  ASSERT_EQ(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(b[i].steps, a[i].steps) << world.size() << " ranks, point " << i;
    EXPECT_EQ(b[i].tau, a[i].tau) << i;
    EXPECT_NEAR(b[i].k_md / a[i].k_md, 1.0, 1e-12) << world.size() << " ranks, point " << i;
    EXPECT_NEAR(b[i].mach / a[i].mach, 1.0, 1e-12) << i;
  }
  EXPECT_LT(a.back().k_ratio, 0.999);  // the sweep does leave Darcy flow
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

namespace {

// A labelled scan on disk (0 pore, 1 grain, 2 a grey phase), written by rank 0 for every rank.
std::filesystem::path write_scan(const parallel::Comm& world, const geometry::Dims& d, const std::string& name,
                                 const std::function<std::uint8_t(std::int64_t, std::int64_t, std::int64_t)>& label) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("rockperm_slab_read_" + std::to_string(world.size()) + "_" + name);
  const std::filesystem::path file = dir / (name + ".raw");
  if (world.root()) {
    std::filesystem::create_directories(dir);
    std::string bytes;
    for (std::int64_t z = 0; z < d.nz; ++z)
      for (std::int64_t y = 0; y < d.ny; ++y)
        for (std::int64_t x = 0; x < d.nx; ++x) bytes.push_back(static_cast<char>(label(x, y, z)));
    std::ofstream(file, std::ios::binary) << bytes;
  }
  world.barrier();
  return file;
}

pipeline::RunRequest scan_request(const std::filesystem::path& file, const geometry::Dims& d,
                                  const pipeline::FlowSpec& flow, const std::filesystem::path& dir) {
  pipeline::RunRequest r;
  r.spec.sample.volume.path = file;
  r.spec.sample.volume.format = io::VolumeFormat::raw;
  r.spec.sample.volume.dims = d;
  r.spec.sample.volume.voxel_size_um = 2.0;
  r.spec.sample.grey_phases = geometry::parse_grey_phases("2:0.3:5mD");
  r.spec.flow = flow;
  r.spec.execution.backend = pipeline::BackendChoice::cpu;
  r.spec.execution.max_steps = 400;
  r.spec.execution.check_interval = 50;
  r.spec.output.dir = dir;
  r.spec.output.fields.enabled = false;
  r.spec.resolution_study = pipeline::RunSpec::Study::off;
  r.use = pipeline::DirectoryUse::overwrite;
  return r;
}

// Issue 50: a file read on slabs (every rank its own planes, the filter and the statistics on
// the slabs) gives the sample and the run of the same file read whole on rank 0 and sent out in
// planes, to the bit: the same counts, statistics, plane counts and input hash, the same k and
// steps. The width classes are each rank's own: their shares agree to rounding.
void expect_slab_read_is_rank_zeros(const std::string& name, const geometry::Dims& d, const pipeline::FlowSpec& flow,
                                    const std::function<std::uint8_t(std::int64_t, std::int64_t, std::int64_t)>& label) {
  const parallel::Comm world = parallel::Comm::world();
  const std::filesystem::path file = write_scan(world, d, name, label);
  const std::filesystem::path base = file.parent_path();
  const pipeline::RunRequest slabs = scan_request(file, d, flow, base / "slabs");
  EXPECT_EQ(pipeline::read_on_slabs(world, slabs.spec.sample).has_value(), world.size() > 1);
  std::optional<pipeline::ReadVolume> whole;  // the same file on rank 0 alone: the path of a mask given in memory
  pipeline::RunRequest root = scan_request(file, d, flow, base / "root");
  root.volume = [&]() -> const pipeline::ReadVolume& {
    if (!whole) whole = pipeline::read_volume(root.spec.sample);
    return *whole;
  };
  const pipeline::SampleResult a = pipeline::run(world, slabs);
  const pipeline::SampleResult b = pipeline::run(world, root);
  EXPECT_EQ(a.status, b.status) << name;
  EXPECT_EQ(a.steps, b.steps) << name;
  EXPECT_EQ(a.k.k_lattice, b.k.k_lattice) << name;  // bitwise
  EXPECT_EQ(a.fluid_cells, b.fluid_cells) << name;
  EXPECT_EQ(a.percolation.pore, b.percolation.pore) << name;
  EXPECT_EQ(a.percolation.connected, b.percolation.connected) << name;
  EXPECT_EQ(a.pores.specific_surface, b.pores.specific_surface) << name;
  EXPECT_EQ(a.pores.porosity, b.pores.porosity) << name;
  EXPECT_EQ(a.grey.connected(), b.grey.connected()) << name;
  EXPECT_EQ(a.input.sha256, b.input.sha256) << name;
  EXPECT_EQ(a.dims, b.dims) << name;
  EXPECT_EQ(a.flow.tau, b.flow.tau) << name;
  for (int w = 0; w < geometry::width_classes; ++w) EXPECT_EQ(a.width_fraction[w], b.width_fraction[w]) << name << " " << w;
  EXPECT_NEAR(a.narrow_flow_fraction, b.narrow_flow_fraction, 1e-12) << name;
  EXPECT_GT(a.width_fraction[0] + a.width_fraction[1], 0.0) << name;  // the classes were worked out
}

std::uint8_t pack_label(std::int64_t x, std::int64_t y, std::int64_t z) {  // grains, pores, a grey rim
  const auto h = static_cast<std::uint64_t>(x * 73856093 ^ y * 19349663 ^ z * 83492791) % 1000;
  const double cx = (x % 8) - 3.5, cy = (y % 8) - 3.5, cz = (z % 8) - 3.5;
  const double r2 = cx * cx + cy * cy + cz * cz;
  if (r2 < 9.0) return 1;
  if (r2 < 11.0 && h < 400) return 2;
  return h < 60 ? 1 : 0;  // specks of grain; isolated pores among them for the filter
}

}  // namespace

TEST(PipelineRanks, ASlabReadAlongZBetweenBuffersIsRankZerosToTheBit) {
  pipeline::FlowSpec flow = testing::periodic_flow(0.9, 1e-5, {false, false, false});
  flow.flow_axis = 2;
  flow.inlet_outlet = geometry::InletOutlet::buffer;
  flow.buffer_layers = 3;
  flow.auto_tau = flow.auto_force = true;
  expect_slab_read_is_rank_zeros("z_buffer", geometry::Dims{16, 16, 30}, flow, pack_label);
}

TEST(PipelineRanks, ASlabReadAcrossZMirroredAndWrappedIsRankZerosToTheBit) {
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, {true, true, true});  // z wraps: the last slab meets the first
  flow.flow_axis = 0;
  flow.inlet_outlet = geometry::InletOutlet::mirror;
  expect_slab_read_is_rank_zeros("x_mirror", geometry::Dims{20, 16, 24}, flow, pack_label);
}

TEST(PipelineRanks, ASlabReadAlongZMirroredIsRankZerosToTheBit) {
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, {true, false, true});
  flow.flow_axis = 2;
  flow.inlet_outlet = geometry::InletOutlet::mirror;
  flow.edge_contacts = geometry::EdgeContacts::sealed;
  expect_slab_read_is_rank_zeros("z_mirror", geometry::Dims{16, 16, 27}, flow, pack_label);
}

// Issue 50: the companion runs' samples made on the slabs (each rank coarsening, or making solid
// the grey voxels of, its own planes of the file) are those rank 0 makes from the whole: the same
// plane counts, statistics and filter, on odd extents (the last plane dropped) and with ties
// (the grey rim) that coarsen_2x breaks by the whole's parity.
TEST(PipelineRanks, TheCompanionsViewsOnSlabsAreRankZerosToTheBit) {
  const parallel::Comm world = parallel::Comm::world();
  if (world.size() < 2) GTEST_SKIP() << "one rank reads the whole";
  const geometry::Dims d{19, 17, 37};
  const std::filesystem::path file = write_scan(world, d, "views", pack_label);
  for (const int axis : {0, 2}) {
    pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, {true, true, true});
    flow.flow_axis = axis;
    flow.inlet_outlet = axis == 2 ? geometry::InletOutlet::buffer : geometry::InletOutlet::mirror;
    flow.buffer_layers = 2;
    const pipeline::RunRequest r = scan_request(file, d, flow, file.parent_path() / "views_run");
    const pipeline::ReadVolume whole = pipeline::read_volume(r.spec.sample);
    for (const pipeline::SampleView view : {pipeline::SampleView{true, 0}, pipeline::SampleView{false, 1},
                                            pipeline::SampleView{true, 1}, pipeline::SampleView{false, 2}}) {
      const std::string what = "axis " + std::to_string(axis) + ", grey solid " + std::to_string(view.grey_solid) +
                               ", levels " + std::to_string(view.coarsen_levels);
      geometry::PoreMask mask = whole.loaded.mask;
      if (view.grey_solid) {
        for (std::uint8_t& c : mask.pore) c = c == geometry::PoreMask::open ? c : geometry::PoreMask::solid;
      }
      for (int level = 0; level < view.coarsen_levels; ++level) mask = geometry::coarsen_2x(mask);
      const auto dims = pipeline::read_on_slabs(world, r.spec.sample, view);
      ASSERT_TRUE(dims.has_value()) << what;
      EXPECT_EQ(*dims, mask.dims) << what;
      const pipeline::Sample a = pipeline::read_sample_on_slabs(world, r.spec.sample, flow, *dims, view, "variant");
      const pipeline::Sample b = pipeline::sample_from_mask(world, mask, whole.loaded.voxel_size_um * (1 << view.coarsen_levels),
                                                            flow, true, "variant");
      EXPECT_EQ(a.plane_fluid, b.plane_fluid) << what;
      EXPECT_EQ(a.fluid, b.fluid) << what;
      EXPECT_EQ(a.dims, b.dims) << what;
      EXPECT_EQ(a.voxel_size_um, b.voxel_size_um) << what;
      EXPECT_EQ(a.percolation.pore, b.percolation.pore) << what;
      EXPECT_EQ(a.percolation.connected, b.percolation.connected) << what;
      EXPECT_EQ(a.pores.porosity, b.pores.porosity) << what;
      EXPECT_EQ(a.pores.specific_surface, b.pores.specific_surface) << what;
      EXPECT_EQ(a.grey_voxel_total(), b.grey_voxel_total()) << what;
      EXPECT_EQ(a.input.name, "variant");
    }
  }
}

// Issue 50: the companion runs (the grey voxels solid; the resolution study's 2x and 4x grids)
// and the tensor of a file read on slabs give the k of the same file held whole on rank 0.
TEST(PipelineRanks, CompanionsAndTheTensorOnSlabsGiveRankZerosK) {
  const parallel::Comm world = parallel::Comm::world();
  const geometry::Dims d{16, 16, 32};
  const std::filesystem::path file = write_scan(world, d, "companions", pack_label);
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, {true, true, true});
  flow.auto_tau = flow.auto_force = true;
  const auto request = [&](const std::string& dir, bool in_memory, std::optional<pipeline::ReadVolume>& whole) {
    pipeline::RunRequest r = scan_request(file, d, flow, file.parent_path() / dir);
    r.spec.execution.max_steps = 6000;
    r.spec.execution.monitor.tolerance = 1e-3;
    r.spec.resolution_study = pipeline::RunSpec::Study::on;
    r.spec.without_grey = true;
    if (in_memory) {
      r.volume = [&whole, spec = r.spec.sample]() -> const pipeline::ReadVolume& {
        if (!whole) whole = pipeline::read_volume(spec);
        return *whole;
      };
    }
    return r;
  };
  std::optional<pipeline::ReadVolume> held, unused;
  const pipeline::SampleResult a = pipeline::run(world, request("companions_slabs", false, unused));
  const pipeline::SampleResult b = pipeline::run(world, request("companions_root", true, held));
  ASSERT_TRUE(b.converged());
  ASSERT_TRUE(b.grey.without_done) << b.grey.without_note;
  ASSERT_TRUE(b.resolution.k_coarser_md.has_value()) << b.resolution.note;
  EXPECT_EQ(a.k.k_lattice, b.k.k_lattice);
  EXPECT_EQ(a.grey.k_without_md, b.grey.k_without_md);
  EXPECT_EQ(a.grey.without_steps, b.grey.without_steps);
  EXPECT_EQ(a.resolution.k_coarse_md, b.resolution.k_coarse_md);
  EXPECT_EQ(a.resolution.k_coarser_md, b.resolution.k_coarser_md);
  EXPECT_EQ(a.resolution.coarse_steps, b.resolution.coarse_steps);
  EXPECT_EQ(a.resolution.note, b.resolution.note);

  std::optional<pipeline::ReadVolume> held_tensor, unused_tensor;
  pipeline::RunRequest ta = request("tensor_slabs", false, unused_tensor), tb = request("tensor_root", true, held_tensor);
  for (pipeline::RunRequest* t : {&ta, &tb}) {
    t->spec.all_axes = true;
    t->spec.resolution_study = pipeline::RunSpec::Study::off;
    t->spec.without_grey = false;
  }
  const pipeline::SampleResult x = pipeline::run(world, ta);
  const pipeline::SampleResult y = pipeline::run(world, tb);
  EXPECT_EQ(x.status, y.status);
  // resumed, the axes done are kept (each checked against the input's hash, taken once)
  ta.use = pipeline::DirectoryUse::resume;
  const pipeline::SampleResult again = pipeline::run(world, ta);
  EXPECT_EQ(again.status, x.status);
  EXPECT_EQ(again.input.sha256, x.input.sha256);
  if (world.root()) {
    ASSERT_TRUE(again.tensor);
    EXPECT_EQ(again.tensor->diagonal_md(), x.tensor->diagonal_md());
  }
  if (world.root()) {  // the input read on rank 0 is rank 0's
    EXPECT_EQ(x.input.sha256, y.input.sha256);
    EXPECT_EQ(x.input.name, y.input.name);
    EXPECT_FALSE(x.input.sha256.empty());
    ASSERT_TRUE(x.tensor && y.tensor);
    EXPECT_EQ(x.tensor->diagonal_md(), y.tensor->diagonal_md());
    EXPECT_GT(x.tensor->k_md[0][0], 0.0);
  }
}

// Issue 50: the input's SHA-256 (8.5 s of an 8 GB file on rank 0) does not hold back the first
// step: a run's sample comes with it pending on every rank, the first checkpoint and the report
// wait for it, and a run stopped and resumed with it so ends as one never stopped, bit for bit.
TEST(PipelineRanks, TheFirstStepDoesNotWaitForTheInputsHash) {
  const parallel::Comm world = parallel::Comm::world();
  const geometry::Dims d{16, 16, 24};
  const std::filesystem::path file = write_scan(world, d, "hash_later", pack_label);
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, {true, true, true});
  flow.auto_tau = flow.auto_force = true;
  const std::string expected = io::hash_volume(file);
  pipeline::RunRequest request = scan_request(file, d, flow, file.parent_path() / "stopped");
  pipeline::PreparedSample prepared = pipeline::request_sample(world, request);
  EXPECT_TRUE(prepared.sample.hash_pending);
  EXPECT_TRUE(prepared.sample.input.sha256.empty());
  pipeline::settle_input_hash(world, prepared.sample);
  EXPECT_FALSE(prepared.sample.hash_pending);
  EXPECT_EQ(prepared.sample.input.sha256, expected);  // on every rank

  request.spec.execution.max_steps = 150;
  request.spec.execution.checkpoint_at_end = true;  // a checkpoint at step 150, its identity from the hash
  const pipeline::SampleResult stopped = pipeline::run(world, request);
  EXPECT_EQ(stopped.provenance.input_sha256, expected);
  EXPECT_EQ(stopped.input.sha256, expected);
  EXPECT_GE(stopped.timings.hash, 0.0);
  ASSERT_FALSE(stopped.checkpoint.empty());
  ASSERT_EQ(stopped.steps, 150);  // stopped short of k
  request.use = pipeline::DirectoryUse::resume;
  request.spec.execution.max_steps = 300;
  request.spec.execution.checkpoint_at_end = false;
  const pipeline::SampleResult resumed = pipeline::run(world, request);
  EXPECT_EQ(resumed.status, stopped.status);
  EXPECT_EQ(resumed.provenance.input_sha256, expected);

  pipeline::RunRequest whole = scan_request(file, d, flow, file.parent_path() / "whole");
  whole.spec.execution.max_steps = 300;
  const pipeline::SampleResult straight = pipeline::run(world, whole);
  EXPECT_GT(straight.steps, 150);
  EXPECT_EQ(resumed.steps, straight.steps);
  EXPECT_EQ(resumed.k.k_lattice, straight.k.k_lattice);  // bitwise
  EXPECT_EQ(straight.input.sha256, expected);
}

TEST(PipelineRanks, ASlabReadThatDoesNotPercolateFailsOnEveryRank) {
  const parallel::Comm world = parallel::Comm::world();
  const geometry::Dims d{10, 10, 12};
  pipeline::FlowSpec flow = testing::periodic_flow(1.0, 1e-5, {false, false, false});
  flow.flow_axis = 2;
  flow.inlet_outlet = geometry::InletOutlet::buffer;
  flow.buffer_layers = 2;
  // pores everywhere but one sealed plane at z = 7
  const std::filesystem::path file =
      write_scan(world, d, "no_path", [](auto, auto, auto z) { return static_cast<std::uint8_t>(z == 7 ? 1 : 0); });
  const pipeline::RunRequest r = scan_request(file, d, flow, file.parent_path() / "run");
  try {
    (void)pipeline::run(world, r);
    ADD_FAILURE() << "a sealed plane percolated";
  } catch (const PhysicsError& e) {
    EXPECT_EQ(e.reason(), "no_path");
    EXPECT_NE(std::string(e.what()).find("z = 11"), std::string::npos) << e.what();
  }
}

}  // namespace rockperm
