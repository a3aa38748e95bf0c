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

std::vector<std::byte> after_steps(const SparseLattice& lattice, Propagation propagation, Storage storage, bool wide) {
  cpu_wide_vectors(wide);
  const auto params = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 0, 2e-5);
  CpuBackend backend(lattice, params, storage);
  for (std::int64_t s = 0; s < 40; ++s) advance(backend, propagation, s);
  std::vector<std::byte> raw;
  backend.download_raw(raw);
  cpu_wide_vectors(true);
  return raw;
}

}  // namespace

TEST(CpuBackend, WideVectorsGiveTheSameBits) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "this processor has no AVX2: one build of the loops only";
#else
  GTEST_SKIP() << "the AVX2 build exists on x86-64 only";
#endif
  const PoreMask mask = testing::sphere_pack_mask(24, 0.4, 3.0, 11);
  for (const Propagation propagation : {Propagation::two_pass, Propagation::fused}) {
    const SparseLattice lattice = SparseLattice::build(mask, {true, true, true}, propagation == Propagation::fused);
    for (const Storage storage : {Storage::float32, Storage::float16}) {
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
  const PoreMask mask = testing::sphere_pack_mask(20, 0.4, 3.0, 5);
  for (const Propagation propagation : {Propagation::two_pass, Propagation::fused}) {
    const bool fused = propagation == Propagation::fused;
    const SparseLattice host = SparseLattice::build(mask, {true, false, true}, fused);
    const SparseLattice deferred =
        SparseLattice::build(mask, {true, false, true}, fused, false, EdgeContacts::open, LatticeTables::deferred);
    EXPECT_TRUE(after_steps(host, propagation, Storage::float32, true) ==
                after_steps(deferred, propagation, Storage::float32, true))
        << to_string(propagation);
  }
}

}  // namespace rockperm
