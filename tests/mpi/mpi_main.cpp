// main() of the MPI test binaries: MPI for the whole run, results printed by rank 0, and a
// failure on any rank fails every rank's exit code.
#include <gtest/gtest.h>

#include "lib/parallel/comm.hpp"

int main(int argc, char** argv) {
  rockperm::parallel::MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (rockperm::parallel::Comm::world().rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
  const auto total = rockperm::parallel::Comm::world().sum(static_cast<std::uint64_t>(failed));
  return total == 0 ? 0 : 1;
}
