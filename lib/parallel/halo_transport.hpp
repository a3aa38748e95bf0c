#pragma once
// How the halo buffers of a decomposed run travel between neighbouring ranks:
//   staged      MPI over pinned host buffers (any MPI, any backend; the CPU backend's only way)
//   cuda-aware  MPI handed device buffers (an MPI library built with CUDA support)
//   ipc         ranks of one host: each rank's receive buffers are opened by its neighbours
//               through CUDA IPC and written by a device-to-device copy (NVLink or PCIe); MPI
//               carries only zero-byte messages that order the steps (cuda/ipc_exchanger.hpp)
//   nccl        NCCL point-to-point: only in a build where CMake found NCCL
// `auto` takes cuda-aware when the MPI library reports CUDA support, else staged; ipc only when
// asked for until it is measured on two GPUs (lib/pipeline/execution.cpp, docs/SCALING.md).
#include <string>
#include <vector>

#include "lib/parallel/comm.hpp"

namespace rockperm {

enum class HaloTransport { staged, cuda_aware, ipc, nccl };
enum class HaloTransportChoice { auto_select, staged, cuda_aware, ipc, nccl };

const char* to_string(HaloTransport t);
const char* to_string(HaloTransportChoice t);
HaloTransportChoice parse_halo_transport(const std::string& text);  // throws InputError naming the choices

// Moves one exchange's buffers other than through Comm::exchange. The sends and receives are
// those Comm::exchange would get (device buffers); on return the receives hold the peers' slots.
class HaloExchanger {
 public:
  virtual ~HaloExchanger() = default;
  virtual void exchange(const std::vector<Comm::Transfer>& sends, const std::vector<Comm::Transfer>& receives) = 0;
};

}  // namespace rockperm
