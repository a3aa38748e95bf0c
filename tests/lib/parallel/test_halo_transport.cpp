// The choice of halo transport (lib/parallel/halo_transport.hpp): the order `auto` tries, and a
// clear refusal where an asked-for transport cannot work.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/base/error.hpp"
#include "lib/parallel/halo_transport.hpp"

namespace rockperm {

namespace {

using T = parallel::HaloTransport;

std::vector<T> candidates(parallel::HaloTransportChoice choice, parallel::HaloFacts facts,
                          std::string* note = nullptr) {
  std::string n;
  auto c = parallel::halo_transport_candidates(choice, facts, n);
  if (note) *note = n;
  return c;
}

// The message of the InputError that choosing `choice` with `facts` throws ("" if none).
std::string refusal(parallel::HaloTransportChoice choice, parallel::HaloFacts facts) {
  try {
    candidates(choice, facts);
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "execution.halo_transport");
    return e.detail();
  }
  return "";
}

}  // namespace

TEST(HaloTransportChoice, AutoTriesIpcThenNcclThenCudaAwareThenStaged) {
  const parallel::HaloFacts all{true, false, true, true};
  EXPECT_EQ(candidates(parallel::HaloTransportChoice::auto_select, all),
            (std::vector<T>{T::ipc, T::nccl, T::cuda_aware, T::staged}));
  std::string note;
  candidates(parallel::HaloTransportChoice::auto_select, all, &note);
  EXPECT_EQ(note, "device to device through CUDA IPC (auto)");
  // across hosts: ipc within each host and NCCL between them first, then NCCL for every pair
  EXPECT_EQ(candidates(parallel::HaloTransportChoice::auto_select, {false, false, true, true}, &note),
            (std::vector<T>{T::ipc_nccl, T::nccl, T::cuda_aware, T::staged}));
  EXPECT_EQ(note, "device to device: CUDA IPC within a host, NCCL across hosts (auto)");
  // ... but not without NCCL
  EXPECT_EQ(candidates(parallel::HaloTransportChoice::auto_select, {false, false, false, true}),
            (std::vector<T>{T::cuda_aware, T::staged}));
  // a build without NCCL, an MPI without CUDA support, on one host
  EXPECT_EQ(candidates(parallel::HaloTransportChoice::auto_select, {true, false, false, false}),
            (std::vector<T>{T::ipc, T::staged}));
}

TEST(HaloTransportChoice, AutoKeepsRanksThatShareAGpuOffIpcAndNccl) {
  std::string note;
  EXPECT_EQ(candidates(parallel::HaloTransportChoice::auto_select, {true, true, true, false}, &note),
            (std::vector<T>{T::staged}));
  EXPECT_NE(note.find("ranks share a GPU"), std::string::npos) << note;
  EXPECT_NE(note.find("MPI not CUDA-aware"), std::string::npos) << note;
  EXPECT_EQ(candidates(parallel::HaloTransportChoice::auto_select, {true, true, true, true}),
            (std::vector<T>{T::cuda_aware, T::staged}));
}

TEST(HaloTransportChoice, AnAskedForTransportIsTheOnlyCandidate) {
  const parallel::HaloFacts all{true, false, true, true};
  for (const auto& [choice, t] : {std::pair{parallel::HaloTransportChoice::staged, T::staged},
                                  {parallel::HaloTransportChoice::ipc, T::ipc},
                                  {parallel::HaloTransportChoice::nccl, T::nccl},
                                  {parallel::HaloTransportChoice::ipc_nccl, T::ipc_nccl},
                                  {parallel::HaloTransportChoice::cuda_aware, T::cuda_aware}}) {
    std::string note;
    EXPECT_EQ(candidates(choice, all, &note), std::vector<T>{t});
    EXPECT_EQ(note, std::string(describe(t)) + " (asked for)");
  }
}

TEST(HaloTransportChoice, AnAskedForTransportThatCannotWorkIsRefusedNamingTheAlternatives) {
  EXPECT_NE(refusal(parallel::HaloTransportChoice::ipc, {false, false, true, true}).find("every rank on one host"),
            std::string::npos);
  EXPECT_NE(refusal(parallel::HaloTransportChoice::nccl, {true, false, false, true}).find("built without NCCL"),
            std::string::npos);
  EXPECT_NE(refusal(parallel::HaloTransportChoice::nccl, {true, true, true, true}).find("needs a GPU per rank"),
            std::string::npos);
  EXPECT_NE(refusal(parallel::HaloTransportChoice::cuda_aware, {true, false, true, false})
                .find("does not report CUDA support"),
            std::string::npos);
  EXPECT_NE(refusal(parallel::HaloTransportChoice::ipc_nccl, {false, false, false, true}).find("built without NCCL"),
            std::string::npos);
  EXPECT_NE(refusal(parallel::HaloTransportChoice::ipc_nccl, {false, true, true, true}).find("needs a GPU per rank"),
            std::string::npos);
  EXPECT_EQ(refusal(parallel::HaloTransportChoice::staged, {false, true, false, false}), "");  // staged always works
  for (const std::string& m : {refusal(parallel::HaloTransportChoice::ipc, {false, false, true, true}),
                               refusal(parallel::HaloTransportChoice::nccl, {true, true, true, true})}) {
    EXPECT_NE(m.find("; use "), std::string::npos) << m;  // says what to do instead
  }
}

// Issue 50: the halo line of a run over several hosts names each neighbour pair's transport.
// One to three fake hosts, their ranks in blocks (as mpirun and srun place them) or
// interleaved, the slabs wrapping in z or not.
TEST(HaloTransportChoice, EachPairOfNeighboursIsNamedWithItsTransport) {
  using parallel::describe_pairs;
  const std::vector<std::string> two_by_two{"h0", "h0", "h1", "h1"};
  EXPECT_EQ(describe_pairs(T::ipc_nccl, two_by_two, false), "ipc 0-1 2-3; nccl 1-2");
  EXPECT_EQ(describe_pairs(T::ipc_nccl, two_by_two, true), "ipc 0-1 2-3; nccl 1-2 3-0");
  EXPECT_EQ(describe_pairs(T::ipc_nccl, {"a", "b", "a", "b"}, true), "nccl 0-1 1-2 2-3 3-0");
  EXPECT_EQ(describe_pairs(T::ipc_nccl, {"a", "a", "b", "c", "c", "c"}, false), "ipc 0-1 3-4 4-5; nccl 1-2 2-3");
  EXPECT_EQ(describe_pairs(T::ipc_nccl, {"one"}, true), "");  // no neighbour
  EXPECT_EQ(describe_pairs(T::ipc_nccl, {"a", "b"}, true), "nccl 0-1");  // two ranks: one pair, also wrapped
  EXPECT_EQ(describe_pairs(T::nccl, two_by_two, false), "nccl 0-1 1-2 2-3");  // other transports: every pair alike
  EXPECT_EQ(describe_pairs(T::staged, {"a", "b", "c"}, true), "staged 0-1 1-2 2-0");
  const std::vector<std::string> many(16, "h");
  EXPECT_EQ(describe_pairs(T::ipc_nccl, many, true), "ipc 16 pairs");
}

}  // namespace rockperm
