// The colour-gradient model's CUDA kernels against its CPU loops (issue 69): the same passes of
// lib/lattice/colour_propagation.hpp, so the same fields to float rounding, on a pack with walls,
// an interface through it, both drives and the displacement's sources.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuda/colour_gpu.hpp"
#include "lib/backend/colour_cpu.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

void steps_as_the_cpu_loops(physics::Storage storage) {
  const auto lat = lattice::SparseLattice::build(testing::sphere_pack_mask(40, 0.45, 5.0, 11), {true, true, true}, true);
  physics::colour::ColourParams p;
  p.sigma = 0.01f;
  p.nu[1] = 0.05f;
  p.g[0][0] = 2e-5f;
  p.g[1][0] = 1e-5f;
  p.wall_phi = 0.5f;
  std::vector<float> phi(lat.fluid_count());
  for (std::uint32_t c = 0; c < lat.fluid_count(); ++c) {
    const auto& k = lat.coords()[c];
    phi[c] = std::tanh(0.7f * (10.0f - std::abs(k.z - 20.0f)));  // a slab of A across the flow
  }
  backend::ColourCpu cpu(lat, p, phi, storage);
  cuda::ColourGpu gpu(lat, p, phi, 0, storage);
  // the displacement's reservoir sources (lib/lattice/colour_propagation.hpp, feed) on both
  std::vector<std::uint32_t> to_a, to_b;
  for (std::uint32_t c = 0; c < lat.fluid_count(); ++c) {
    if (lat.coords()[c].x == 0) to_b.push_back(c);
    if (lat.coords()[c].x == 39) to_a.push_back(c);
  }
  cpu.set_sources(to_a, to_b);
  gpu.set_sources(to_a, to_b);
  cpu.advance(200);
  gpu.advance(200);
  const auto a = cpu.fields(), b = gpu.fields();
  ASSERT_EQ(a.phi.size(), b.phi.size());
  double phi_diff = 0, u_diff = 0, u_size = 0;
  for (std::size_t c = 0; c < a.phi.size(); ++c) {
    phi_diff = std::max(phi_diff, double(std::abs(a.phi[c] - b.phi[c])));
    for (int k = 0; k < 3; ++k) {
      u_diff = std::max(u_diff, double(std::abs(a.u[3 * c + k] - b.u[3 * c + k])));
      u_size = std::max(u_size, double(std::abs(a.u[3 * c + k])));
    }
  }
  const std::string tag = storage == physics::Storage::float32 ? "" : "_fp16";
  testing::record("phi_difference" + tag, phi_diff);
  testing::record("u_difference_relative" + tag, u_diff / u_size);
  // The GPU contracts products and sums into FMAs where the CPU build does not; at the interfaces
  // the recolouring's normal and the curvature amplify those roundings in the early, fast steps:
  // on an H100 phi agreed to 1.1e-6 and the largest velocity difference was 3.8e-3 of the largest
  // velocity, while the validation cases' figures agree to four digits (docs/ACCURACY.md). In fp16
  // the stochastic rounding draws the same bits on both, but where the floats it rounds differ by
  // those FMAs a draw can land on the other side: a whole fp16 unit apart, and the interfaces
  // amplify that alike (H100: phi 5.5e-6, u 1.6e-2 of the largest; the fp16 validation cases
  // agree with the CPU's to the digits docs/ACCURACY.md gives).
  const bool half = storage == physics::Storage::float16;
  EXPECT_LT(phi_diff, 1e-4);
  EXPECT_LT(u_diff, (half ? 4e-2 : 1e-2) * u_size);
  const auto sa = cpu.sums(0), sb = gpu.sums(0);
  EXPECT_NEAR(sa.mass_a, sb.mass_a, 1e-5 * sa.mass_a);
  EXPECT_GT(sb.fastest, 0.5 * u_size);  // the largest speed, at least the largest component's
  EXPECT_NEAR(sa.fastest, sb.fastest, (half ? 4e-2 : 1e-2) * u_size);
  ASSERT_EQ(sa.plane_a.size(), sb.plane_a.size());
  double flow = 0, flow_diff = 0;
  for (std::size_t k = 0; k < sa.plane_a.size(); ++k) {
    flow = std::max(flow, std::abs(sa.plane_a[k]));
    flow_diff = std::max(flow_diff, std::abs(sa.plane_a[k] - sb.plane_a[k]));
  }
  EXPECT_LT(flow_diff, 1e-2 * flow);
}

}  // namespace

TEST(ColourGpu, StepsAsTheCpuLoops) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  steps_as_the_cpu_loops(physics::Storage::float32);
}

// fp16: the same stochastic rounding bits on both (lib/physics/storage.hpp), so the same tolerances
TEST(ColourGpu, StepsAsTheCpuLoopsInFp16) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  steps_as_the_cpu_loops(physics::Storage::float16);
}

}  // namespace rockperm
