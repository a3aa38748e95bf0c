#pragma once
// The ipc halo transport (lib/parallel/halo_transport.hpp): neighbouring ranks on one host
// write into each other's device receive buffers, without a CUDA-aware MPI.
//
// Set-up (collective between neighbours): every rank exports an IPC handle of each buffer it
// receives into and sends it, with the message tag it belongs to, to the peer that fills it
// (MPI, once); the peer opens it (peer access enabled on another device).
// Each exchange: (1) zero-byte "free" messages: a rank sends one to every peer it receives from
// once the backend's pack is done (so its previous unpack, earlier on the same stream, is done
// too and the buffer may be overwritten); (2) on a "free" from a peer, the copy of the send
// buffer into that peer's receive buffer (cudaMemcpyAsync on a stream of its own, peer to peer);
// (3) after the copies, zero-byte "arrived" messages; the receiver unpacks after its "arrived"s.
// Two message rounds of a few microseconds replace the device-host-device staging.
#include <memory>
#include <string>
#include <vector>

#include "lib/parallel/halo_transport.hpp"

namespace rockperm::cuda {

// Collective over `comm`. `receives`: every buffer this rank receives into
// (Stepper::receive_endpoints), device memory of the current device. Returns null on every rank
// when IPC is not available on one of them (a container without it, no peer access between the
// GPUs), with the reason in `why`.
std::unique_ptr<parallel::HaloExchanger> make_ipc_exchanger(const parallel::Comm& comm,
                                                            const std::vector<parallel::Comm::Transfer>& receives,
                                                            std::string& why);

}  // namespace rockperm::cuda
