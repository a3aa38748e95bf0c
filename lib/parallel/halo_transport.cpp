#include "lib/parallel/halo_transport.hpp"

#include "lib/base/error.hpp"

namespace rockperm::parallel {

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

const char* describe(HaloTransport t) {
  switch (t) {
    case HaloTransport::staged: return "staged through pinned host buffers";
    case HaloTransport::cuda_aware: return "device buffers handed to CUDA-aware MPI";
    case HaloTransport::ipc: return "device to device through CUDA IPC";
    case HaloTransport::nccl: return "device to device through NCCL point-to-point";
  }
  return "?";
}

std::vector<HaloTransport> halo_transport_candidates(HaloTransportChoice choice, const HaloFacts& facts,
                                                     std::string& note) {
  const auto asked = [&](HaloTransport t) {
    note = std::string(describe(t)) + " (asked for)";
    return std::vector<HaloTransport>{t};
  };
  const auto refuse = [](const std::string& why) { return InputError("execution.halo_transport", why); };
  switch (choice) {
    case HaloTransportChoice::auto_select: {
      // Measured on two H200s (docs/SCALING.md, "Halo transports"), on the slabs strong scaling of
      // a 768^3 pack gives 2 to 64 GPUs: staged falls to 48 % at 8 GPUs' slabs; CUDA IPC keeps
      // 96 % there and 71 % at 64 GPUs' (fp32), NCCL 94 % and 60 % (its kernels take
      // multiprocessors from the interior update). So within a host ipc, across hosts NCCL; both
      // want a GPU per rank (NCCL refuses a shared one; IPC on a shared GPU was slower than staged).
      std::vector<HaloTransport> order;
      if (facts.one_host && !facts.shared_gpu) order.push_back(HaloTransport::ipc);
      if (facts.nccl && !facts.shared_gpu) order.push_back(HaloTransport::nccl);
      if (facts.cuda_aware) order.push_back(HaloTransport::cuda_aware);
      order.push_back(HaloTransport::staged);
      std::string why;
      if (order.front() == HaloTransport::staged) {
        why = facts.shared_gpu ? ": ranks share a GPU" : ": ranks on several hosts";
        if (!facts.cuda_aware) why += "; MPI not CUDA-aware";
        if (!facts.nccl) why += "; built without NCCL";
      }
      note = std::string(describe(order.front())) + " (auto" + why + ")";
      return order;
    }
    case HaloTransportChoice::staged: return asked(HaloTransport::staged);
    case HaloTransportChoice::cuda_aware:
      if (!facts.cuda_aware) {
        throw refuse("run.halo_transport = cuda-aware, but this MPI library does not report CUDA support (or "
                     "run.cuda_aware_mpi = off); use auto, nccl, ipc (ranks of one host) or staged");
      }
      return asked(HaloTransport::cuda_aware);
    case HaloTransportChoice::ipc:
      if (!facts.one_host) {
        throw refuse("run.halo_transport = ipc needs every rank on one host (CUDA IPC does not cross hosts); use "
                     "auto, nccl, cuda-aware or staged");
      }
      return asked(HaloTransport::ipc);
    case HaloTransportChoice::nccl:
      if (!facts.nccl) {
        throw refuse("run.halo_transport = nccl, but this rockperm was built without NCCL (CMake did not find "
                     "nccl.h; set NCCL_HOME and rebuild); use auto, ipc, cuda-aware or staged");
      }
      if (facts.shared_gpu) {
        throw refuse("run.halo_transport = nccl needs a GPU per rank, but ranks share one (run.devices or more "
                     "ranks than GPUs); use auto, ipc or staged");
      }
      return asked(HaloTransport::nccl);
  }
  return {HaloTransport::staged};
}

}  // namespace rockperm::parallel
