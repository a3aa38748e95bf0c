// The CPU backend's cell loops are built twice, for generic x86-64 and for AVX2 (chosen at run
// time where the processor has it): both builds give the same populations bit for bit, in fp32
// and fp16 (stochastic rounding included), two-pass and fused.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "lib/backend/cpu_backend.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

std::vector<std::byte> after_steps(const lattice::SparseLattice& lattice, backend::Propagation propagation,
                                   physics::Storage storage, bool wide) {
  backend::cpu_wide_vectors(wide);
  const auto params = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 0, 2e-5);
  backend::CpuBackend backend(lattice, params, storage);
  for (std::int64_t s = 0; s < 40; ++s) advance(backend, propagation, s);
  std::vector<std::byte> raw;
  backend.download_raw(raw);
  backend::cpu_wide_vectors(true);
  return raw;
}

}  // namespace

TEST(CpuBackend, WideVectorsGiveTheSameBits) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "this processor has no AVX2: one build of the loops only";
#else
  GTEST_SKIP() << "the AVX2 build exists on x86-64 only";
#endif
  const geometry::PoreMask mask = testing::sphere_pack_mask(24, 0.4, 3.0, 11);
  for (const backend::Propagation propagation : {backend::Propagation::two_pass, backend::Propagation::fused}) {
    const lattice::SparseLattice lattice =
        lattice::SparseLattice::build(mask, {true, true, true}, propagation == backend::Propagation::fused);
    for (const physics::Storage storage : {physics::Storage::float32, physics::Storage::float16}) {
      const auto generic = after_steps(lattice, propagation, storage, false);
      const auto wide = after_steps(lattice, propagation, storage, true);
      ASSERT_EQ(generic.size(), wide.size());
      EXPECT_TRUE(generic == wide) << to_string(propagation) << ", " << to_string(storage);
    }
  }
}

}  // namespace rockperm

namespace rockperm {

// A lattice that deferred its tables (built for a GPU, then run on the CPU, as a campaign's
// read-ahead may do) steps as one that holds them: the backend builds them from the mask.
TEST(CpuBackend, ALatticeWithDeferredTablesStepsTheSame) {
  const geometry::PoreMask mask = testing::sphere_pack_mask(20, 0.4, 3.0, 5);
  for (const backend::Propagation propagation : {backend::Propagation::two_pass, backend::Propagation::fused}) {
    const bool fused = propagation == backend::Propagation::fused;
    const lattice::SparseLattice host = lattice::SparseLattice::build(mask, {true, false, true}, fused);
    const lattice::SparseLattice deferred = lattice::SparseLattice::build(
        mask, {true, false, true}, fused, false, geometry::EdgeContacts::open, lattice::LatticeTables::deferred);
    EXPECT_TRUE(after_steps(host, propagation, physics::Storage::float32, true) ==
                after_steps(deferred, propagation, physics::Storage::float32, true))
        << to_string(propagation);
  }
}

}  // namespace rockperm
