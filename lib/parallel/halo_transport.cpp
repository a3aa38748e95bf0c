#include "lib/parallel/halo_transport.hpp"

#include <algorithm>

#include "lib/base/error.hpp"

namespace rockperm::parallel {

const char* to_string(HaloTransport t) {
  switch (t) {
    case HaloTransport::staged: return "staged";
    case HaloTransport::cuda_aware: return "cuda-aware";
    case HaloTransport::ipc: return "ipc";
    case HaloTransport::nccl: return "nccl";
    case HaloTransport::ipc_nccl: return "ipc+nccl";
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
    case HaloTransportChoice::ipc_nccl: return "ipc+nccl";
  }
  return "?";
}

HaloTransportChoice parse_halo_transport(const std::string& text) {
  for (const auto c : {HaloTransportChoice::auto_select, HaloTransportChoice::staged, HaloTransportChoice::cuda_aware,
                       HaloTransportChoice::ipc, HaloTransportChoice::nccl, HaloTransportChoice::ipc_nccl}) {
    if (text == to_string(c)) return c;
  }
  throw InputError("run.halo_transport '" + text + "' is unknown; use auto, staged, cuda-aware, ipc, nccl or ipc+nccl");
}

const char* describe(HaloTransport t) {
  switch (t) {
    case HaloTransport::staged: return "staged through pinned host buffers";
    case HaloTransport::cuda_aware: return "device buffers handed to CUDA-aware MPI";
    case HaloTransport::ipc: return "device to device through CUDA IPC";
    case HaloTransport::nccl: return "device to device through NCCL point-to-point";
    case HaloTransport::ipc_nccl: return "device to device: CUDA IPC within a host, NCCL across hosts";
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
      // Across hosts, each pair by what serves it: IPC between the ranks of a host, NCCL between hosts.
      std::vector<HaloTransport> order;
      if (facts.one_host && !facts.shared_gpu) order.push_back(HaloTransport::ipc);
      if (!facts.one_host && facts.nccl && !facts.shared_gpu) order.push_back(HaloTransport::ipc_nccl);
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
    case HaloTransportChoice::ipc_nccl: {  // both send through NCCL
      const HaloTransport t = choice == HaloTransportChoice::nccl ? HaloTransport::nccl : HaloTransport::ipc_nccl;
      const std::string asked_for = std::string("run.halo_transport = ") + to_string(t);
      if (!facts.nccl) {
        throw refuse(asked_for + ", but this rockperm was built without NCCL (CMake did not find nccl.h; set "
                                 "NCCL_HOME and rebuild); use auto, ipc, cuda-aware or staged");
      }
      if (facts.shared_gpu) {
        throw refuse(asked_for + " needs a GPU per rank, but ranks share one (run.devices or more ranks than GPUs); "
                                 "use auto, ipc or staged");
      }
      return asked(t);
    }
  }
  return {HaloTransport::staged};
}

std::string describe_pairs(HaloTransport t, const std::vector<std::string>& hosts, bool wrap) {
  const int n = static_cast<int>(hosts.size());
  std::vector<std::string> kinds;                 // in order of first use
  std::vector<std::vector<std::string>> pairs;    // of each kind
  const int last = wrap && n > 2 ? n : n - 1;     // two ranks: one pair, whether z wraps or not
  for (int r = 0; r < last; ++r) {
    const int q = (r + 1) % n;
    std::string kind = to_string(t);
    if (t == HaloTransport::ipc_nccl) kind = hosts[r] == hosts[q] ? "ipc" : "nccl";
    const auto at = std::find(kinds.begin(), kinds.end(), kind);
    const std::size_t k = static_cast<std::size_t>(at - kinds.begin());
    if (at == kinds.end()) {
      kinds.push_back(kind);
      pairs.emplace_back();
    }
    pairs[k].push_back(std::to_string(r) + "-" + std::to_string(q));
  }
  std::string out;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    out += (k ? "; " : "") + kinds[k];
    if (pairs[k].size() > 6) {
      out += " " + std::to_string(pairs[k].size()) + " pairs";
      continue;
    }
    for (const auto& p : pairs[k]) out += " " + p;
  }
  return out;
}

}  // namespace rockperm::parallel
