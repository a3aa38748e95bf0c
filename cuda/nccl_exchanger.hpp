#pragma once
// The nccl halo transport (lib/parallel/halo_transport.hpp): NCCL point-to-point sends and
// receives of the device halo buffers, within a host (NVLink, PCIe) and across hosts (the
// network NCCL finds). Every exchange is one NCCL group of the rank's receives and sends,
// ordered by (peer, tag) on both sides so that NCCL pairs them as MPI's tags would.
//
// NCCL is optional twice over: its header is found by CMake at build time (the CUDA toolkit's
// include directory or NCCL_HOME), and the library (libnccl.so.2) is opened at run time, so a
// build with NCCL still runs, and installs, where the library is absent: the transport is then
// unavailable, with the reason, and `auto` keeps another one.
#include <memory>
#include <string>

#include "lib/parallel/halo_transport.hpp"

namespace rockperm::cuda {

// True when this build has the NCCL transport (CMake found nccl.h).
bool nccl_built();

// Collective over `comm`, on the current device of every rank. Returns null on every rank when
// NCCL cannot serve this run (no library, two ranks on one GPU, an init failure on any rank),
// with the reason in `why`.
std::unique_ptr<parallel::HaloExchanger> make_nccl_exchanger(const parallel::Comm& comm, std::string& why);

}  // namespace rockperm::cuda
