#include "lib/parallel/halo_transport.hpp"

#include "lib/base/error.hpp"

namespace rockperm {

const char* to_string(HaloTransport t) {
  switch (t) {
    case HaloTransport::staged: return "staged";
    case HaloTransport::cuda_aware: return "cuda-aware";
    case HaloTransport::ipc: return "ipc";
    case HaloTransport::nccl: return "nccl";
  }
  return "?";
}

const char* to_string(HaloTransportChoice t) {
  switch (t) {
    case HaloTransportChoice::auto_select: return "auto";
    case HaloTransportChoice::staged: return "staged";
    case HaloTransportChoice::cuda_aware: return "cuda-aware";
    case HaloTransportChoice::ipc: return "ipc";
    case HaloTransportChoice::nccl: return "nccl";
  }
  return "?";
}

HaloTransportChoice parse_halo_transport(const std::string& text) {
  for (const auto c : {HaloTransportChoice::auto_select, HaloTransportChoice::staged, HaloTransportChoice::cuda_aware,
                       HaloTransportChoice::ipc, HaloTransportChoice::nccl}) {
    if (text == to_string(c)) return c;
  }
  throw InputError("run.halo_transport '" + text + "' is unknown; use auto, staged, cuda-aware, ipc or nccl");
}

}  // namespace rockperm
