// 16-bit population storage against 32-bit on the validation cases (issue "Half-precision
// storage"): k within 0.1 % and the slit and duct profiles within 1e-3 of the largest velocity,
// in both propagations; the tight creeping flows included (velocities of 1e-6 and below); and a
// run resumed from a saved state continues bit for bit. Runs on the CPU backend here and on the
// CUDA backend in gpu_validation_tests.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "lib/physics/collision.hpp"
#include "tests/test_support.hpp"
#include "tests/pipeline_support.hpp"

namespace rockperm {

namespace {

struct Pair {
  testing::PipelineRun fp32, fp16;
};

Pair both(const geometry::PoreMask& mask, const pipeline::FlowSpec& flow, pipeline::PropagationChoice propagation) {
  testing::PipelineSettings settings;
  settings.propagation = propagation;
  settings.tolerance = 1e-4;  // a run's default; fp16 leaves k fluctuating by ~1e-5 on tiny lattices
  Pair p;
  p.fp32 = testing::run_pipeline(mask, flow, settings);
  settings.storage = pipeline::StorageChoice::fp16;
  p.fp16 = testing::run_pipeline(mask, flow, settings);
  return p;
}

// The largest difference of the velocity along `axis` between the runs, over the largest speed.
double profile_difference(const Pair& p, int axis) {
  double largest = 0, diff = 0;
  for (std::uint32_t c = 0; c < p.fp32.lattice().fluid_count(); ++c) {
    largest = std::max(largest, std::abs(p.fp32.u(c, axis)));
    diff = std::max(diff, std::abs(p.fp16.u(c, axis) - p.fp32.u(c, axis)));
  }
  return diff / largest;
}

class Fp16 : public ::testing::TestWithParam<pipeline::PropagationChoice> {};

}  // namespace

TEST_P(Fp16, SlitProfileAndKMatchFp32) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const Pair p = both(testing::mask_from(geometry::Dims{1, 16, 1}, [](auto, auto, auto) { return true; }),
                      testing::periodic_flow(0.8, 1e-5, {true, false, true}), GetParam());
  ASSERT_TRUE(p.fp32.result.converged() && p.fp16.result.converged());
  EXPECT_LT(profile_difference(p, 0), 1e-3);
  EXPECT_NEAR(p.fp16.result.k.k_lattice / p.fp32.result.k.k_lattice, 1.0, 1e-3);
  testing::record("k_fp16_over_fp32", p.fp16.result.k.k_lattice / p.fp32.result.k.k_lattice);
}

TEST_P(Fp16, SquareDuctProfileAndKMatchFp32) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const Pair p = both(testing::mask_from(geometry::Dims{1, 24, 24}, [](auto, auto, auto) { return true; }),
                      testing::periodic_flow(0.9, 1e-6, {true, false, false}), GetParam());
  ASSERT_TRUE(p.fp32.result.converged() && p.fp16.result.converged());
  EXPECT_LT(profile_difference(p, 0), 1e-3);
  EXPECT_NEAR(p.fp16.result.k.k_lattice / p.fp32.result.k.k_lattice, 1.0, 1e-3);
}

TEST_P(Fp16, SphereArrayKMatchesFp32) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const int L = 32;
  const double a = L * std::cbrt(3 * 0.125 / (4 * std::numbers::pi)), c = L / 2.0;
  const geometry::PoreMask mask =
      testing::mask_from(geometry::Dims{L, L, L}, [&](std::int64_t x, std::int64_t y, std::int64_t z) {
        const double dx = x + 0.5 - c, dy = y + 0.5 - c, dz = z + 0.5 - c;
        return dx * dx + dy * dy + dz * dz > a * a;
      });
  const Pair p = both(mask, testing::periodic_flow(1.0, 1e-6), GetParam());
  ASSERT_TRUE(p.fp32.result.converged() && p.fp16.result.converged());
  EXPECT_NEAR(p.fp16.result.k.k_lattice / p.fp32.result.k.k_lattice, 1.0, 1e-3);
}

// A tight pack (porosity 0.15) driven gently: pore velocities of 1e-7 .. 1e-5, the creeping
// flows where rounding to nearest stalls short of steady state.
TEST_P(Fp16, TightPackCreepingFlowKMatchesFp32) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const geometry::PoreMask mask = testing::sphere_pack_mask(32, 0.15, 4.0, 7);
  const Pair p = both(mask, testing::periodic_flow(1.0, 1e-7), GetParam());
  ASSERT_TRUE(p.fp32.result.converged() && p.fp16.result.converged());
  EXPECT_LT(p.fp32.result.k.k_lattice * 1e-7 / physics::viscosity(1.0), 1e-5) << "not a creeping flow";
  EXPECT_NEAR(p.fp16.result.k.k_lattice / p.fp32.result.k.k_lattice, 1.0, 1e-3);
  testing::record("k_fp16_over_fp32_tight", p.fp16.result.k.k_lattice / p.fp32.result.k.k_lattice);
}

INSTANTIATE_TEST_SUITE_P(Validation, Fp16,
                         ::testing::Values(pipeline::PropagationChoice::two_pass, pipeline::PropagationChoice::fused),
                         [](const auto& info) {
                           return std::string(info.param == pipeline::PropagationChoice::fused ? "Fused" : "TwoPass");
                         });

// Saved after 300 steps and restored into a new simulation, fp16 continues bit for bit: the
// stochastic rounding is seeded by the step, not by a count of calls.
TEST(Validation, Fp16ResumeIsBitwise) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  testing::PipelineSettings settings;
  settings.storage = pipeline::StorageChoice::fp16;
  settings.propagation = pipeline::PropagationChoice::fused;
  settings.max_steps = 300;
  const geometry::PoreMask mask = testing::sphere_pack_mask(24, 0.35, 3.0, 3);
  const auto flow = testing::periodic_flow(0.8, 1e-5);
  auto first = testing::run_pipeline(mask, flow, settings);
  ASSERT_EQ(first.simulation->storage(), physics::Storage::float16);
  const pipeline::Simulation::State saved = first.simulation->save();
  settings.max_steps = 600;
  auto straight = testing::run_pipeline(mask, flow, settings);
  // a second simulation (it runs too; then its state is replaced by the saved one and continued)
  auto resumed = testing::run_pipeline(mask, flow, settings);
  pipeline::Simulation& sim = *resumed.simulation;
  sim.restore(saved);
  ASSERT_EQ(sim.progress().step, 300);
  while (!sim.finished()) sim.advance();
  EXPECT_EQ(sim.save().owned, straight.simulation->save().owned);
}

// A cell whose populations leave the 16-bit range (a diverging run) is marked NaN, so that the
// monitor's sums report the divergence: rounding toward zero would hold it at the largest half.
TEST(Validation, Fp16DivergingCellMakesTheSumsNaN) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const lattice::SparseLattice lat =
      lattice::SparseLattice::build(testing::random_mask(geometry::Dims{8, 8, 8}, 0.7, 2), {true, true, true}, true);
  const auto p = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 0, 1e-5);
  for (const backend::Propagation prop : {backend::Propagation::two_pass, backend::Propagation::fused}) {
    const auto backend = testing::make_test_backend(lat, p, physics::Storage::float16);
    std::vector<float> f(d3q19::q * lat.stride(), 0.0f);
    f[1 * lat.stride() + 5] = 1e-3f;  // a sane state stays finite
    backend->upload(f);
    backend::advance(*backend, prop, 0);
    EXPECT_TRUE(backend->sums().finite) << to_string(prop);
    // storable, but far beyond any flow (a speed of ~8): the collision leaves the range
    f[1 * lat.stride() + 5] = 3.9f;
    f[d3q19::opposite(1) * lat.stride() + 5] = -3.9f;
    backend->upload(f);
    backend::advance(*backend, prop, 0);
    EXPECT_FALSE(backend->sums().finite) << to_string(prop);
  }
}

}  // namespace rockperm
