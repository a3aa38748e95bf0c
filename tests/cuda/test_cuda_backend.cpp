// The CUDA backend against the CPU reference: same cells, same ordering, float tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "cuda/cuda_backend.hpp"
#include "cuda/table_builder.hpp"
#include "io/volume_source.hpp"
#include "lib/backend/cpu_backend.hpp"
#include "lib/lattice/neighbour_table.hpp"
#include "lib/physics/permeability.hpp"
#include "lib/parallel/plan.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

// max |a - b| over max |a|: the float tolerance of two backends that round differently
// (the GPU contracts multiply-adds into FMAs, the CPU build does not).
double relative_difference(const lattice::SparseLattice& lat, const std::vector<float>& a,
                           const std::vector<float>& b) {
  double diff = 0, scale = 0;
  for (std::uint32_t c = 0; c < lat.fluid_count(); ++c)
    for (int i = 0; i < d3q19::q; ++i) {
      const double x = a[i * lat.stride() + c], y = b[i * lat.stride() + c];
      diff = std::max(diff, std::abs(x - y));
      scale = std::max(scale, std::abs(x));
    }
  return diff / scale;
}

double k_of(const physics::FlowSums& s, const lattice::SparseLattice& lat, double tau, double g) {
  physics::FlowProblem p;
  p.tau = tau;
  p.acceleration = g;
  p.region_voxels = lat.dims().voxels();
  p.region_fluid = lat.fluid_count();
  return permeability(s, p).k_lattice;
}

lattice::SparseLattice sample_lattice(bool fused) {
  const auto file = testing::repo_file("samples/sphere_pack_64.raw");
  if (file.empty()) throw std::runtime_error(testing::repo_file_missing("samples/sphere_pack_64.raw"));
  io::VolumeSpec spec;
  spec.path = file;
  spec.dims = geometry::Dims{64, 64, 64};
  spec.voxel_size_um = 5.0;
  return lattice::SparseLattice::build(io::load_pore_mask(spec, geometry::LabelSelection::parse("0")).mask,
                                       {true, true, true}, fused);
}

constexpr double tau = 0.8, g = 1e-5;
constexpr double population_tolerance = 1e-4;  // measured ~1e-6 on an H100 (docs/PERFORMANCE.md)

void compare_after_steps(const lattice::SparseLattice& lat, backend::Propagation gpu_propagation, int steps) {
  const auto p = physics::make_collision_params(physics::CollisionModel::trt, tau, 3.0 / 16.0, 0, g);
  backend::CpuBackend cpu(lat, p);
  cuda::CudaBackend gpu(lat, p, 0);
  for (int s = 0; s < steps; ++s) {
    backend::advance(cpu, backend::Propagation::two_pass, s);
    backend::advance(gpu, gpu_propagation, s);
  }
  std::vector<float> a, b;
  cpu.download(a);
  gpu.download(b);
  const double rel = relative_difference(lat, a, b);
  testing::record("population_relative_difference", rel);
  EXPECT_LT(rel, population_tolerance);
  const double k_cpu = k_of(cpu.sums(), lat, tau, g), k_gpu = k_of(gpu.sums(), lat, tau, g);
  testing::record("k_relative_difference", std::abs(k_gpu / k_cpu - 1));
  EXPECT_NEAR(k_gpu / k_cpu, 1.0, 1e-5) << "k cpu " << k_cpu << " gpu " << k_gpu;
}

}  // namespace

TEST(CudaBackend, TwoPassMatchesCpuOnTheBundledSampleAfter1000Steps) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  if (testing::repo_file("samples/sphere_pack_64.raw").empty()) GTEST_SKIP() << testing::repo_file_missing("samples/sphere_pack_64.raw");
  compare_after_steps(sample_lattice(false), backend::Propagation::two_pass, 1000);
}

TEST(CudaBackend, FusedMatchesCpuOnTheBundledSampleAfter1000Steps) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  if (testing::repo_file("samples/sphere_pack_64.raw").empty()) GTEST_SKIP() << testing::repo_file_missing("samples/sphere_pack_64.raw");
  compare_after_steps(sample_lattice(true), backend::Propagation::fused, 1000);
}

TEST(CudaBackend, TwoPassAndFusedMatchCpuOnARandomGeometry) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const lattice::SparseLattice lat = lattice::SparseLattice::build(
      testing::random_mask(geometry::Dims{37, 23, 19}, 0.6, 4), {true, false, true}, true);
  compare_after_steps(lat, backend::Propagation::two_pass, 1000);
  compare_after_steps(lat, backend::Propagation::fused, 1000);
}

TEST(CudaBackend, ReductionsMatchTheCpuOnTheSameState) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const lattice::SparseLattice lat =
      lattice::SparseLattice::build(testing::random_mask(geometry::Dims{50, 40, 30}, 0.5, 9), {true, true, true});
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1e-3f, 1e-3f);
  std::vector<float> f(d3q19::q * lat.stride(), 0.0f);
  for (std::uint32_t c = 0; c < lat.fluid_count(); ++c)
    for (int i = 0; i < d3q19::q; ++i) f[i * lat.stride() + c] = dist(rng);
  const auto p = physics::make_collision_params(physics::CollisionModel::trt, tau, 3.0 / 16.0, 1, g);
  backend::CpuBackend cpu(lat, p);
  cuda::CudaBackend gpu(lat, p, 0);
  cpu.upload(f);
  gpu.upload(f);
  const physics::FlowSums a = cpu.sums(), b = gpu.sums();
  EXPECT_NEAR(b.mass / a.mass, 1.0, 1e-12);
  for (int axis = 0; axis < 3; ++axis) EXPECT_NEAR(b.velocity[axis], a.velocity[axis], 1e-6 * std::abs(a.speed));
  EXPECT_NEAR(b.speed / a.speed, 1.0, 1e-6);
  EXPECT_NEAR(b.max_speed / a.max_speed, 1.0, 1e-6);
  EXPECT_TRUE(b.finite);
  f[5 * lat.stride() + 17] = std::nanf("");
  gpu.upload(f);
  EXPECT_FALSE(gpu.sums().finite);
}

TEST(CudaBackend, SteadyPermeabilityOfTheSampleMatchesCpu) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  if (testing::repo_file("samples/sphere_pack_64.raw").empty()) GTEST_SKIP() << testing::repo_file_missing("samples/sphere_pack_64.raw");
  const lattice::SparseLattice lat = sample_lattice(true);
  const auto p = physics::make_collision_params(physics::CollisionModel::trt, 1.0, 3.0 / 16.0, 0, 1e-5);
  physics::FlowProblem problem;
  problem.tau = 1.0;
  problem.acceleration = 1e-5;
  problem.region_voxels = lat.dims().voxels();
  problem.region_fluid = lat.fluid_count();
  solve::RunControls controls;
  controls.monitor.tolerance = 1e-7;
  controls.monitor.auto_flux_tolerance = false;
  controls.monitor.flux_tolerance = 1e-4;
  controls.propagation = backend::Propagation::two_pass;
  backend::CpuBackend cpu(lat, p);
  const solve::SolverResult a = solve::run_to_steady_state(cpu, lat, problem, controls);
  std::vector<double> k_gpu;
  for (const backend::Propagation prop : {backend::Propagation::two_pass, backend::Propagation::fused}) {
    cuda::CudaBackend gpu(lat, p, 0);
    controls.propagation = prop;
    const solve::SolverResult b = solve::run_to_steady_state(gpu, lat, problem, controls);
    ASSERT_TRUE(a.converged && b.converged);
    EXPECT_NEAR(b.k.k_lattice / a.k.k_lattice, 1.0, 1e-5) << to_string(prop);
    k_gpu.push_back(b.k.k_lattice);
  }
  testing::record("k_cpu", a.k.k_lattice);
  testing::record("k_gpu_two_pass_over_cpu", k_gpu[0] / a.k.k_lattice);
  testing::record("k_gpu_fused_over_cpu", k_gpu[1] / a.k.k_lattice);
}

TEST(CudaBackend, EveryTableFormStepsTheSameBitwise) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  // periodic: the line tables hold exceptions at the x wrap, the grouped ones a second cluster
  const lattice::SparseLattice lat = lattice::SparseLattice::build(
      testing::random_mask(geometry::Dims{70, 23, 19}, 0.45, 6), {true, true, true}, true);
  const auto p = physics::make_collision_params(physics::CollisionModel::trt, tau, 3.0 / 16.0, 2, g);
  const std::pair<cuda::TableForm, double> forms[] = {{cuda::TableForm::automatic, 2.25},
                                                      {cuda::TableForm::line, lattice::line_table_bytes / 18},
                                                      {cuda::TableForm::grouped, 2.25},
                                                      {cuda::TableForm::packed, 3.0},
                                                      {cuda::TableForm::index, 4.0}};
  for (const physics::Storage storage : {physics::Storage::float32, physics::Storage::float16}) {
    for (const backend::Propagation prop : {backend::Propagation::fused, backend::Propagation::two_pass}) {
      std::vector<float> first;
      for (const auto& [form, bytes] : forms) {
        cuda::CudaBackend gpu(lat, p, 0, storage, form);
        EXPECT_DOUBLE_EQ(gpu.index_bytes(), bytes);
        for (int s = 0; s < 101; ++s) advance(gpu, prop, s);
        std::vector<float> f;
        gpu.download(f);
        if (first.empty()) {
          first = f;
        } else {
          EXPECT_TRUE(f == first) << to_string(storage) << " " << to_string(prop) << " " << bytes << "-byte tables";
        }
        if (prop == backend::Propagation::fused) {
          // the odd step's blocks visited in bands of two rows (12 bands) and in numbering order
          for (const std::uint64_t band_cells : {std::uint64_t{64}, std::uint64_t{0}}) {
            cuda::CudaBackend banded(lat, p, 0, storage, form, band_cells);
            for (int s = 0; s < 101; ++s) advance(banded, prop, s);
            banded.download(f);
            EXPECT_TRUE(f == first) << to_string(storage) << " " << bytes << "-byte tables, bands of " << band_cells
                                    << " cells";
          }
        }
      }
      if (prop == backend::Propagation::fused) {
        // the line tables' odd steps in three ranges that split groups of 32 cells, as a slab's
        // boundary planes and interior do: each exception is stepped once, in its range
        cuda::CudaBackend gpu(lat, p, 0, storage, cuda::TableForm::line, 64);
        const std::uint32_t n = lat.fluid_count(), a = n / 3 + 7, b = 2 * n / 3 + 13;
        for (int s = 0; s < 101; ++s) {
          gpu.begin_step(s);
          if (s % 2 == 0) {
            gpu.collide();
          } else {
            for (const backend::CellRange range :
                 {backend::CellRange{0, a}, backend::CellRange{a, b}, backend::CellRange{b, n}})
              gpu.fused_odd(range);
          }
        }
        std::vector<float> f;
        gpu.download(f);
        EXPECT_TRUE(f == first) << to_string(storage) << " line tables in three ranges, each in bands";
      }
    }
  }
}

// The grouped tables built on the device from a lattice's mask (LatticeTables::deferred) are
// those the host packs from its full tables: periodic wraps (second clusters), sealed and open
// edges, planes with fewer cells than a group and empty planes, slabs' non-periodic z.
TEST(CudaBackend, TablesBuiltOnTheDeviceAreTheHostOnes) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  struct Case {
    geometry::PoreMask mask;
    geometry::Periodicity periodic;
    geometry::EdgeContacts edges;
  };
  // sparse: planes of 0 to a few cells between dense ones, so that groups span many planes
  const geometry::PoreMask sparse = testing::mask_from(geometry::Dims{40, 30, 24}, [](auto x, auto y, auto z) {
    if (z % 3 == 0) return (x * 7 + y * 3 + z) % 5 != 0;
    if (z % 3 == 1) return z % 2 == 0 ? false : (x == 3 && y < 4);
    return x + y == z;
  });
  const Case cases[] = {
      {testing::random_mask(geometry::Dims{70, 23, 19}, 0.45, 6), {true, true, true}, geometry::EdgeContacts::open},
      {testing::random_mask(geometry::Dims{70, 23, 19}, 0.45, 6), {true, true, true}, geometry::EdgeContacts::sealed},
      {testing::random_mask(geometry::Dims{33, 65, 17}, 0.3, 8), {false, true, false}, geometry::EdgeContacts::sealed},
      {testing::sphere_pack_mask(48, 0.35, 4.0, 3), {true, true, true}, geometry::EdgeContacts::open},
      {sparse, {true, false, true}, geometry::EdgeContacts::open},
      {sparse, {false, false, false}, geometry::EdgeContacts::sealed},
  };
  for (const Case& c : cases) {
    const lattice::SparseLattice host = lattice::SparseLattice::build(c.mask, c.periodic, true, false, c.edges);
    const lattice::SparseLattice deferred =
        lattice::SparseLattice::build(c.mask, c.periodic, true, false, c.edges, lattice::LatticeTables::deferred);
    lattice::GroupedPairData expected;
    ASSERT_TRUE(lattice::pack_grouped_pair_tables(host.neighbours().data(), host.negative_neighbours().data(),
                                         host.neighbours().size(), host.stride(), host.fluid_count(), expected));
    cuda::DeviceBuffer<std::uint32_t> delta;
    cuda::DeviceBuffer<std::int32_t> base;
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_TRUE(cuda::build_grouped_tables(deferred, delta, base, nullptr));
    std::vector<std::uint32_t> got_delta;
    std::vector<std::int32_t> got_base;
    delta.download(got_delta);
    base.download(got_base);
    ASSERT_EQ(got_delta.size(), expected.delta.size());
    EXPECT_TRUE(std::equal(got_delta.begin(), got_delta.end(), expected.delta.begin())) << c.mask.dims.nx;
    EXPECT_EQ(got_base, expected.base) << c.mask.dims.nx;
  }
  // and a backend on the deferred lattice steps as one on the host's tables, bit for bit
  const lattice::SparseLattice host =
      lattice::SparseLattice::build(cases[1].mask, cases[1].periodic, true, false, cases[1].edges);
  const lattice::SparseLattice deferred = lattice::SparseLattice::build(
      cases[1].mask, cases[1].periodic, true, false, cases[1].edges, lattice::LatticeTables::deferred);
  const auto p = physics::make_collision_params(physics::CollisionModel::trt, tau, 3.0 / 16.0, 2, g);
  for (const physics::Storage storage : {physics::Storage::float32, physics::Storage::float16}) {
    std::vector<float> f[2];
    int i = 0;
    for (const lattice::SparseLattice* lat : {&host, &deferred}) {
      cuda::CudaBackend gpu(*lat, p, 0, storage);
      EXPECT_DOUBLE_EQ(gpu.index_bytes(), 2.25);
      for (int s = 0; s < 101; ++s) advance(gpu, backend::Propagation::fused, s);
      gpu.download(f[i++]);
    }
    EXPECT_TRUE(f[0] == f[1]) << to_string(storage);
  }
}

TEST(CudaBackend, AutomaticTablesAreLineTablesWhereTheGroupedOnesDoNotFit) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const lattice::SparseLattice lat = lattice::SparseLattice::build(
      testing::random_mask(geometry::Dims{160, 160, 160}, 0.9, 5), {true, true, true}, true);
  const double stride = static_cast<double>(lat.stride());
  // fp16 populations, then room for line tables (~23 B per cell) but not for grouped ones (36.5)
  const double populations = d3q19::q * 2 * stride, line = 23 * stride, grouped = 36.5 * stride;
  std::size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  const double keep = 0.05 * total + populations + (line + grouped) / 2;  // ~25 MB either side
  ASSERT_GT(static_cast<double>(free), keep);
  cuda::DeviceBuffer<std::byte> hog(static_cast<std::size_t>(free - keep));
  const cuda::CudaBackend tight(lat, physics::CollisionParams{}, 0, physics::Storage::float16);
  EXPECT_DOUBLE_EQ(tight.index_bytes(), lattice::line_table_bytes / 18);
  EXPECT_LT(tight.bytes_per_cell(), 62.0 * lat.stride() / lat.fluid_count());
  hog = cuda::DeviceBuffer<std::byte>();
  EXPECT_DOUBLE_EQ(cuda::CudaBackend(lat, physics::CollisionParams{}, 0, physics::Storage::float16).index_bytes(),
                   2.25);
}

TEST(CudaBackend, MemoryPerCellOfTheTwoPassIsAtMost112Bytes) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  if (testing::repo_file("samples/sphere_pack_64.raw").empty()) GTEST_SKIP() << testing::repo_file_missing("samples/sphere_pack_64.raw");
  const lattice::SparseLattice lat = sample_lattice(false);
  cuda::CudaBackend gpu(lat, physics::CollisionParams{}, 0);
  EXPECT_LE(gpu.bytes_per_cell(), 112.0 * lat.stride() / lat.fluid_count());
  EXPECT_DOUBLE_EQ(backend::ByteModel{backend::Propagation::two_pass}.memory_per_cell(), 112.0);
}

TEST(CudaBackend, MissingDeviceIsAClearError) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const lattice::SparseLattice lat =
      lattice::SparseLattice::build(testing::random_mask(geometry::Dims{4, 4, 4}, 0.9, 1), {true, true, true});
  EXPECT_THROW(cuda::CudaBackend(lat, physics::CollisionParams{}, 99), InputError);
}

}  // namespace rockperm
