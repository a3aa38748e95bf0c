// With TRT and Lambda = 3/16 the bounce-back wall does not move with tau, so k must not
// depend on the viscosity (Ginzburg & d'Humieres 2003); BGK shows the dependence clearly.
#include <gtest/gtest.h>

#include <algorithm>

#include "lib/geometry/sphere_pack.hpp"
#include "tests/pipeline_support.hpp"

namespace rockperm {

TEST(Validation, TrtPermeabilityIndependentOfTau) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const geometry::PoreMask pack = testing::sphere_pack_mask(32, 0.4, 4.5, 11);
  std::vector<double> k;
  for (const double tau : {0.6, 0.8, 1.2}) {
    const auto run = testing::run_pipeline(pack, testing::periodic_flow(tau, 1e-6));
    ASSERT_TRUE(run.result.converged()) << "tau " << tau;
    testing::record("steps_tau_" + std::to_string(tau).substr(0, 3), static_cast<double>(run.result.steps));
    k.push_back(run.result.k.k_lattice);
  }
  const auto [lo, hi] = std::minmax_element(k.begin(), k.end());
  testing::record("max_relative_spread", *hi / *lo - 1.0);
  EXPECT_LT(*hi / *lo - 1.0, 0.005) << "k(0.6) = " << k[0] << ", k(0.8) = " << k[1] << ", k(1.2) = " << k[2];
}

}  // namespace rockperm
