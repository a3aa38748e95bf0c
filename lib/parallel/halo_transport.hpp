#pragma once
// How the halo buffers of a decomposed run travel between neighbouring ranks:
//   staged      MPI over pinned host buffers (any MPI, any backend; the CPU backend's only way)
//   cuda-aware  MPI handed device buffers (an MPI library built with CUDA support)
//   ipc         ranks of one host: each rank's receive buffers are opened by its neighbours
//               through CUDA IPC and written by a device-to-device copy (NVLink or PCIe); MPI
//               carries only zero-byte messages that order the steps (cuda/ipc_exchanger.hpp)
//   nccl        NCCL point-to-point sends and receives of the device buffers, within a host and
//               across hosts: in a build where CMake found nccl.h, with libnccl.so.2 opened at run
//               time (cuda/nccl_exchanger.hpp)
//   ipc+nccl    ranks on several hosts: each neighbour pair by what serves it, ipc between two
//               ranks of one host and nccl between ranks of two (cuda/host_split_exchanger.hpp)
// `auto` tries, in this order, ipc (one host, a GPU per rank), ipc+nccl (several hosts, a GPU per
// rank), nccl (a GPU per rank), cuda-aware (MPI reports CUDA support) and staged, taking the
// first that starts (measured order: docs/SCALING.md, "Halo transports"; pipeline/execution.cpp).
#include <string>
#include <vector>

#include "lib/parallel/comm.hpp"

namespace rockperm::parallel {

enum class HaloTransport { staged, cuda_aware, ipc, nccl, ipc_nccl };
enum class HaloTransportChoice { auto_select, staged, cuda_aware, ipc, nccl, ipc_nccl };

const char* to_string(HaloTransport t);
const char* to_string(HaloTransportChoice t);
HaloTransportChoice parse_halo_transport(const std::string& text);  // throws InputError naming the choices
// How the transport moves the buffers, for the run's `halo` line ("device to device through CUDA IPC").
const char* describe(HaloTransport t);

// What a run on several GPU ranks offers the transports (agreed by every rank).
struct HaloFacts {
  bool one_host = true;     // every rank on one host
  bool shared_gpu = false;  // two ranks of a host on one GPU
  bool nccl = false;        // this build has the NCCL transport
  bool cuda_aware = false;  // the MPI library reports CUDA support, and run.cuda_aware_mpi allows it
};

// The transports `choice` may use on GPU ranks, best first (the run takes the first that
// starts); `note` says which and why. Throws InputError (field execution.halo_transport) naming
// what is missing when the transport asked for cannot work with these facts.
std::vector<HaloTransport> halo_transport_candidates(HaloTransportChoice choice, const HaloFacts& facts,
                                                     std::string& note);

// The neighbour pairs of a run on Z slabs (ranks r and r + 1, and the last with the first where
// z wraps) and the transport `t` gives each, for the run's halo line: with ipc+nccl, ipc where
// both ranks are on one host and nccl where they are not; with any other transport, its own.
// `hosts`: every rank's host name, in rank order. Say "ipc 0-1 2-3; nccl 1-2 3-0"; past 6
// pairs of a kind, their count.
std::string describe_pairs(HaloTransport t, const std::vector<std::string>& hosts, bool wrap);

// Moves one exchange's buffers other than through Comm::exchange. The sends and receives are
// those Comm::exchange would get (device buffers); on return the receives hold the peers' slots.
class HaloExchanger {
 public:
  virtual ~HaloExchanger() = default;
  virtual void exchange(const std::vector<Comm::Transfer>& sends, const std::vector<Comm::Transfer>& receives) = 0;
};

}  // namespace rockperm::parallel
