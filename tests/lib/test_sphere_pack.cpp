#include <gtest/gtest.h>

#include "lib/sphere_pack.hpp"

namespace rockperm {

TEST(SpherePack, IsDeterministicAndReachesThePorosity) {
  SpherePackSpec spec;
  spec.dims = {40, 30, 20};
  spec.porosity = 0.4;
  spec.radius = 4;
  const Volume a = make_sphere_pack(spec);
  const Volume b = make_sphere_pack(spec);
  EXPECT_EQ(a.labels, b.labels);
  std::uint64_t pore = 0;
  for (auto l : a.labels) pore += l == pack_pore_label;
  const double porosity = static_cast<double>(pore) / a.labels.size();
  EXPECT_LE(porosity, 0.4);
  EXPECT_GT(porosity, 0.37);  // at most one sphere of overshoot
  spec.seed += 1;
  EXPECT_NE(make_sphere_pack(spec).labels, a.labels);
}

}  // namespace rockperm
