#pragma once
// The ipc+nccl halo transport (lib/parallel/halo_transport.hpp): a run over several hosts sends
// each neighbour's halo by what serves that pair, CUDA IPC between two ranks of one host
// (cuda/ipc_exchanger.hpp) and NCCL between ranks of two hosts (cuda/nccl_exchanger.hpp). Each
// exchange runs the IPC transfers, then the NCCL ones: the IPC round waits only on ranks of its
// own host, which all run it first, so the two rounds never wait on each other.
#include <memory>
#include <string>
#include <vector>

#include "lib/parallel/halo_transport.hpp"

namespace rockperm::cuda {

// Collective over `comm`. `receives`: every buffer this rank receives into
// (Stepper::receive_endpoints); `hosts`: every rank's host name, in rank order. Returns null on
// every rank when either transport cannot start on one of them, with the reason in `why`.
std::unique_ptr<parallel::HaloExchanger> make_host_split_exchanger(const parallel::Comm& comm,
                                                                   const std::vector<parallel::Comm::Transfer>& receives,
                                                                   const std::vector<std::string>& hosts,
                                                                   std::string& why);

}  // namespace rockperm::cuda
