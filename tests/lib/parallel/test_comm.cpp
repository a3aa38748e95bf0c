// The single-process communicator (the MPI one is tested under mpirun in tests/mpi).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "lib/base/error.hpp"
#include "lib/parallel/comm.hpp"

namespace rockperm {

TEST(SerialComm, IsOneRankAndItsReductionsAreIdentities) {
  const parallel::Comm comm;
  EXPECT_EQ(comm.size(), 1);
  EXPECT_TRUE(comm.root());
  const parallel::Comm part = comm.split(7, 0);
  EXPECT_EQ(part.size(), 1);
  EXPECT_DOUBLE_EQ(comm.sum(2.5), 2.5);
  EXPECT_DOUBLE_EQ(comm.max(-1.0), -1.0);
  EXPECT_EQ(comm.sum(std::uint64_t{9}), 9u);
  EXPECT_EQ(comm.sum(std::vector<double>{1, 2, 3}), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(comm.gather(std::string("me")), (std::vector<std::string>{"me"}));
  EXPECT_EQ(comm.scatter({4}), 4);
}

// A process started on its own does not initialize MPI (an Open MPI singleton's MPI_Init took
// 0.4 to 0.9 s of every single-process run); one started by a launcher, or asked to, does.
TEST(SerialComm, MpiOnlyWhereALauncherStartedTheProcess) {
  const char* names[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "ROCKPERM_MPI"};
  std::vector<std::pair<std::string, std::string>> saved;
  for (const char* name : names) {
    if (const char* v = std::getenv(name)) saved.emplace_back(name, v);
    unsetenv(name);
  }
  EXPECT_FALSE(parallel::launched_by_mpi());
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    setenv(name, "0", 1);
    EXPECT_TRUE(parallel::launched_by_mpi()) << name;
    unsetenv(name);
  }
  setenv("ROCKPERM_MPI", "0", 1);
  EXPECT_FALSE(parallel::launched_by_mpi());
  setenv("ROCKPERM_MPI", "1", 1);
  EXPECT_TRUE(parallel::launched_by_mpi());
  unsetenv("ROCKPERM_MPI");
  for (const auto& [name, value] : saved) setenv(name.c_str(), value.c_str(), 1);
}

// A failure crosses ranks as code and text (collectively): a physics error keeps its reason.
TEST(SerialComm, CollectivelyKeepsAPhysicsErrorsReason) {
  try {
    parallel::collectively(parallel::Comm(),
                           [] { throw PhysicsError("the pore space does not percolate", "no_path"); });
    FAIL() << "no error";
  } catch (const PhysicsError& e) {
    EXPECT_EQ(e.reason(), "no_path");
    EXPECT_STREQ(e.what(), "the pore space does not percolate");
  }
}

TEST(SerialComm, ExchangeWithItselfMatchesByTag) {
  const parallel::Comm comm;
  std::vector<physics::Population> send_a{1, 2}, send_b{3}, recv_a(2), recv_b(1);
  comm.exchange(
      {{0, 5, send_a.data(), 2 * sizeof(physics::Population)}, {0, 6, send_b.data(), sizeof(physics::Population)}},
      {{0, 6, recv_b.data(), sizeof(physics::Population)}, {0, 5, recv_a.data(), 2 * sizeof(physics::Population)}});
  EXPECT_EQ(recv_a, send_a);
  EXPECT_EQ(recv_b, send_b);
}

TEST(SerialComm, AStartedExchangeWithItselfIsDoneOnWait) {
  const parallel::Comm comm;
  std::vector<physics::Population> send{7, 8, 9}, receive(3);
  parallel::Comm::Pending pending = comm.start_exchange({{0, 4, send.data(), sizeof(physics::Population) * 3}},
                                              {{0, 4, receive.data(), sizeof(physics::Population) * 3}});
  pending.wait();
  pending.wait();  // a second wait does nothing
  EXPECT_EQ(receive, send);
}

TEST(SerialComm, CollectivelyRethrowsTheKindFieldAndMessageForEveryRank) {
  const parallel::Comm comm;
  try {
    parallel::collectively(comm, [] { throw InputError("flow.tau", "tau is too small"); });
    ADD_FAILURE() << "nothing thrown";
  } catch (const InputError& e) {
    EXPECT_TRUE(e.all_ranks);
    EXPECT_EQ(e.field(), "flow.tau");
    EXPECT_EQ(e.detail(), "tau is too small");
  }
  EXPECT_THROW(parallel::collectively(comm, [] { throw PhysicsError("no path"); }), PhysicsError);
  EXPECT_THROW(parallel::collectively(comm, [] { throw OutputError("disk full"); }), OutputError);
  EXPECT_NO_THROW(parallel::collectively(comm, [] {}));
}

}  // namespace rockperm
