// With TRT and Lambda = 3/16 the bounce-back wall does not move with tau, so k must not
// depend on the viscosity (Ginzburg & d'Humieres 2003); BGK shows the dependence clearly.
#include <gtest/gtest.h>

#include <algorithm>

#include "lib/geometry/sphere_pack.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

TEST(Validation, TrtPermeabilityIndependentOfTau) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  SpherePackSpec spec;
  spec.dims = {32, 32, 32};
  spec.porosity = 0.4;
  spec.radius = 4.5;
  spec.seed = 11;
  const SparseLattice lat =
      SparseLattice::build(make_pore_mask(make_sphere_pack(spec), LabelSelection::parse("0")), {true, true, true});
  std::vector<double> k;
  for (const double tau : {0.6, 0.8, 1.2}) {
    const auto flow = testing::steady_flow(lat, physics::CollisionModel::trt, tau, 1e-6, 0, 1e-8);
    ASSERT_TRUE(flow.result.converged) << "tau " << tau;
    testing::record("steps_tau_" + std::to_string(tau).substr(0, 3), static_cast<double>(flow.result.steps));
    k.push_back(flow.result.k.k_lattice);
  }
  const auto [lo, hi] = std::minmax_element(k.begin(), k.end());
  testing::record("max_relative_spread", *hi / *lo - 1.0);
  EXPECT_LT(*hi / *lo - 1.0, 0.005) << "k(0.6) = " << k[0] << ", k(0.8) = " << k[1] << ", k(1.2) = " << k[2];
}

}  // namespace rockperm
