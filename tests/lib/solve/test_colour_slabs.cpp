// The colour model on Z-slab ranks (lib/solve/colour_slabs.hpp) in one process: a slab whose
// neighbours below and above are the process itself across the periodic z wrap holds both ghost
// planes and exchanges them with itself, so every halo (phi after the phase pass, the crossing
// populations after the collision, in both directions) is exercised; it must step as the whole
// lattice does, to the bit, in fp32 and fp16 (tests/mpi/test_pipeline_ranks.cpp runs 2 and 3 ranks).
// On the backend under test: the CPU loops in unit_tests, the CUDA kernels (and their halo copies
// through the host) in gpu_tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "lib/parallel/partition.hpp"
#include "lib/solve/colour_slabs.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

void expect_the_wrapped_slab_steps_as_the_whole(physics::Storage storage) {
  const geometry::PoreMask mask = testing::sphere_pack_mask(20, 0.45, 3.5, 11);
  const geometry::Periodicity periodic{true, true, true};
  physics::colour::ColourParams p;
  p.sigma = 0.01f;
  p.nu[1] = 0.05f;
  p.g[0][2] = 2e-5f;  // along z: momentum and colour cross the cut
  p.g[1][2] = 1e-5f;
  p.g[0][0] = 1e-5f;
  p.wall_phi = 0.3f;
  // A in a band of z that the wrap cuts through: interfaces on both ghost planes
  const auto phi_at = [](std::int64_t x, std::int64_t z) { return (z < 5 || z >= 16) && x > 3 ? 1.0f : -1.0f; };

  const lattice::SparseLattice whole_lat = lattice::SparseLattice::build(mask, periodic, true);
  std::vector<float> whole_phi(whole_lat.fluid_count());
  for (std::uint32_t c = 0; c < whole_lat.fluid_count(); ++c) whole_phi[c] = phi_at(whole_lat.coords()[c].x, whole_lat.coords()[c].z);
  const auto whole_model = testing::make_test_colour_backend(whole_lat, p, whole_phi, storage);
  backend::ColourBackend& whole = *whole_model;

  const parallel::Comm self;
  const std::vector<parallel::Slab> slabs = parallel::partition_slabs(parallel::plane_fluid_counts(mask), 1);
  const parallel::SlabDomain domain = parallel::slab_domain(slabs, 0, mask.dims.nz, true);
  ASSERT_TRUE(domain.ghost_low && domain.ghost_high);
  const lattice::SparseLattice lat =
      parallel::build_slab_lattice(parallel::extract_planes(mask, domain.planes), domain, periodic, true);
  std::vector<float> phi(lat.fluid_count(), 0.0f);
  for (std::uint32_t c = 0; c < lat.fluid_count(); ++c) phi[c] = phi_at(lat.coords()[c].x, domain.planes[lat.coords()[c].z]);
  const auto offset = static_cast<std::uint32_t>(parallel::fluid_before(slabs, 0) - lat.owned_begin());
  EXPECT_EQ(offset, 0u - lat.owned_begin());
  solve::ColourSlabs slab(testing::make_test_colour_backend(lat, p, phi, storage, offset), self, domain, lat, mask.dims.nz);
  ASSERT_EQ(lat.owned_end() - lat.owned_begin(), whole_lat.fluid_count());

  for (const int steps : {1, 59}) {
    whole.advance(steps);
    slab.advance(steps);
    for (const int axis : {2, 0}) {
      const auto a = whole.sums(axis), b = slab.sums(axis);
      EXPECT_TRUE(b.finite);
      EXPECT_EQ(a.cells, b.cells);
      EXPECT_EQ(a.fraction_a, b.fraction_a);
      EXPECT_EQ(a.mass_a, b.mass_a);
      EXPECT_EQ(a.mass_b, b.mass_b);
      EXPECT_EQ(a.plane_a, b.plane_a) << "axis " << axis << " after " << slab.step() << " steps";
      EXPECT_EQ(a.plane_b, b.plane_b) << "axis " << axis;
    }
    const auto fa = whole.fields(), fb = slab.fields();
    std::size_t differ = 0;
    for (std::uint32_t c = lat.owned_begin(); c < lat.owned_end(); ++c) {
      const std::uint32_t w = c - lat.owned_begin();
      differ += fa.phi[w] != fb.phi[c] || std::memcmp(&fa.u[3 * w], &fb.u[3 * c], 3 * sizeof(float)) != 0 ||
                fa.drho[w] != fb.drho[c];
    }
    EXPECT_EQ(differ, 0u) << "cells unlike the whole lattice's after " << slab.step() << " steps";
  }
  // colour did cross the cut (the face from the last plane to the first)
  const auto moved = slab.sums(2);
  EXPECT_GT(std::abs(moved.plane_a[mask.dims.nz - 1]), 1e-3);
}

}  // namespace

TEST(ColourSlabs, AWrappedSlabStepsAsTheWholeLatticeToTheBit) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  expect_the_wrapped_slab_steps_as_the_whole(physics::Storage::float32);
}

TEST(ColourSlabs, AWrappedSlabStepsAsTheWholeLatticeToTheBitInFp16) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  expect_the_wrapped_slab_steps_as_the_whole(physics::Storage::float16);
}

}  // namespace rockperm
