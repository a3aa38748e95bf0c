// Backend::rescale, what the auto force adjusts the drive with: in creeping flow the state is
// linear in the force, so a run whose state and force are halved at step 200 continues as the
// run with half the force from the start.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/test_support.hpp"

namespace rockperm {

TEST(Backend, RescaledStateIsTheStateOfTheScaledForce) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const lattice::SparseLattice lat =
      lattice::SparseLattice::build(testing::sphere_pack_mask(16, 0.4, 3.0, 2026), {true, true, true});
  const auto strong = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 0, 2e-5);
  const auto weak = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 0, 1e-5);
  const auto rescaled = testing::make_test_backend(lat, strong);
  const auto reference = testing::make_test_backend(lat, weak);
  for (std::int64_t s = 0; s < 200; ++s) advance(*rescaled, backend::Propagation::two_pass, s);
  rescaled->rescale(0.5f, weak);
  for (std::int64_t s = 200; s < 400; ++s) advance(*rescaled, backend::Propagation::two_pass, s);
  for (std::int64_t s = 0; s < 400; ++s) advance(*reference, backend::Propagation::two_pass, s);
  backend::Macroscopic a, b;
  rescaled->macroscopic(rescaled->owned(), a);
  reference->macroscopic(reference->owned(), b);
  double largest = 0, difference = 0;
  for (std::size_t c = 0; c < a.size(); ++c) {
    largest = std::max(largest, static_cast<double>(std::abs(b.ux[c])));
    difference = std::max(difference, static_cast<double>(std::abs(a.ux[c] - b.ux[c])));
  }
  ASSERT_GT(largest, 0.0);
  // what is left: float rounding and the O(Ma^2) terms (u ~ 1e-4 here)
  EXPECT_LT(difference / largest, 1e-5);
}

}  // namespace rockperm
