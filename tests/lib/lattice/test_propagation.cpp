// The swap propagation against the textbook: push streaming with half-way bounce-back on a
// dense grid. No arithmetic happens in streaming, so the two must agree to the last bit.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "lib/backend/cpu_backend.hpp"
#include "lib/physics/d3q19.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

using d3q19::q;

std::vector<float> random_state(const lattice::SparseLattice& lat, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1e-3f, 1e-3f);
  std::vector<float> f(q * lat.stride(), 0.0f);
  for (std::uint32_t c = 0; c < lat.fluid_count(); ++c)
    for (int i = 0; i < q; ++i) f[i * lat.stride() + c] = dist(rng);
  return f;
}

// Push streaming with half-way bounce-back, on the sparse numbering but computed from
// coordinates (not from the neighbour table under test).
std::vector<float> reference_steps(const lattice::SparseLattice& lat, std::vector<float> f,
                                   const physics::CollisionParams& p, int steps) {
  const auto s = lat.stride();
  std::vector<float> next(f.size(), 0.0f);
  for (int step = 0; step < steps; ++step) {
    for (std::uint32_t c = 0; c < lat.fluid_count(); ++c) {
      float v[q];
      for (int i = 0; i < q; ++i) v[i] = f[i * s + c];
      physics::collide(v, p);
      for (int i = 0; i < q; ++i) {
        const std::uint32_t target = i == 0 ? c : testing::expected_link(lat, c, i);
        if (target != lattice::none) next[i * s + target] = v[i];
        else next[d3q19::opposite(i) * s + c] = v[i];  // half-way bounce-back
      }
    }
    f.swap(next);
  }
  return f;
}

void expect_bitwise_equal(const lattice::SparseLattice& lat, const std::vector<float>& a, const std::vector<float>& b) {
  std::size_t mismatches = 0;
  for (std::uint32_t c = 0; c < lat.fluid_count(); ++c)
    for (int i = 0; i < q; ++i)
      if (std::memcmp(&a[i * lat.stride() + c], &b[i * lat.stride() + c], sizeof(float)) != 0) ++mismatches;
  EXPECT_EQ(mismatches, 0u) << "of " << lat.fluid_count() * q << " populations";
}

struct Geometry {
  geometry::Dims dims;
  geometry::Periodicity periodic;
  double porosity;
};

}  // namespace

class SwapPropagation : public ::testing::TestWithParam<Geometry> {};

TEST_P(SwapPropagation, EqualsPushStreamingWithBounceBackBitwise) {
  const Geometry g = GetParam();
  const lattice::SparseLattice lat =
      lattice::SparseLattice::build(testing::random_mask(g.dims, g.porosity, 99), g.periodic);
  const auto p = physics::make_collision_params(physics::CollisionModel::trt, 0.7, 3.0 / 16.0, 1, 1e-4);
  const std::vector<float> initial = random_state(lat, 5);
  backend::CpuBackend backend(lat, p);
  backend.upload(initial);
  const int steps = 5;
  for (int s = 0; s < steps; ++s) advance(backend, backend::Propagation::two_pass, s);
  std::vector<float> swapped;
  backend.download(swapped);
  expect_bitwise_equal(lat, swapped, reference_steps(lat, initial, p, steps));
}

TEST_P(SwapPropagation, FusedEqualsTwoPassAfterEvenSteps) {
  const Geometry g = GetParam();
  const lattice::SparseLattice lat =
      lattice::SparseLattice::build(testing::random_mask(g.dims, g.porosity, 7), g.periodic, true);
  const auto p = physics::make_collision_params(physics::CollisionModel::trt, 0.9, 3.0 / 16.0, 0, 1e-4);
  const std::vector<float> initial = random_state(lat, 11);
  backend::CpuBackend two_pass(lat, p), fused(lat, p);
  two_pass.upload(initial);
  fused.upload(initial);
  for (int s = 0; s < 6; ++s) {
    backend::advance(two_pass, backend::Propagation::two_pass, s);
    const bool natural = backend::advance(fused, backend::Propagation::fused, s);
    EXPECT_EQ(natural, s % 2 == 1);
    if (natural) {
      std::vector<float> a, b;
      two_pass.download(a);
      fused.download(b);
      expect_bitwise_equal(lat, a, b);
    }
  }
}

TEST_P(SwapPropagation, ConservesMassExactlyEnoughWithBounceBack) {
  const Geometry g = GetParam();
  const lattice::SparseLattice lat =
      lattice::SparseLattice::build(testing::random_mask(g.dims, g.porosity, 3), g.periodic);
  const auto p = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 2, 1e-4);
  backend::CpuBackend backend(lat, p);
  backend.upload(random_state(lat, 2));
  const double before = backend.sums().mass;
  for (int s = 0; s < 50; ++s) advance(backend, backend::Propagation::two_pass, s);
  EXPECT_NEAR(backend.sums().mass, before, 1e-9 * before);
}

INSTANTIATE_TEST_SUITE_P(RandomGeometries, SwapPropagation,
                         ::testing::Values(Geometry{{9, 7, 6}, {true, false, true}, 0.6},
                                           Geometry{{8, 8, 8}, {true, true, true}, 0.5},
                                           Geometry{{5, 11, 4}, {false, false, false}, 0.7},
                                           Geometry{{1, 6, 2}, {true, true, true}, 0.8},
                                           Geometry{{2, 2, 2}, {true, true, true}, 1.0}),
                         [](const auto& info) {
                           const Geometry& g = info.param;
                           std::string name = std::to_string(g.dims.nx) + "x" + std::to_string(g.dims.ny) + "x" +
                                              std::to_string(g.dims.nz) + "_periodic_";
                           for (int a = 0; a < 3; ++a) name += g.periodic[a] ? "xyz"[a] : '0';
                           return name;
                         });

}  // namespace rockperm
