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
  // across hosts: no ipc
  EXPECT_EQ(candidates(parallel::HaloTransportChoice::auto_select, {false, false, true, true}),
            (std::vector<T>{T::nccl, T::cuda_aware, T::staged}));
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
  EXPECT_EQ(refusal(parallel::HaloTransportChoice::staged, {false, true, false, false}), "");  // staged always works
  for (const std::string& m : {refusal(parallel::HaloTransportChoice::ipc, {false, false, true, true}),
                               refusal(parallel::HaloTransportChoice::nccl, {true, true, true, true})}) {
    EXPECT_NE(m.find("; use "), std::string::npos) << m;  // says what to do instead
  }
}

}  // namespace rockperm
