#include "lib/pipeline/execution.hpp"

#include <unistd.h>

#include <algorithm>

#include "lib/backend/cpu_backend.hpp"
#include "lib/base/error.hpp"
#include "lib/parallel/device_assignment.hpp"
#include "lib/parallel/plan.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#include "cuda/device_info.hpp"
#include "cuda/ipc_exchanger.hpp"
#endif

namespace rockperm::pipeline {

namespace {

std::string hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// The backend this process can have: no communication.
ExecutionPlan choose_backend(BackendChoice choice) {
  ExecutionPlan plan;
  if (choice == BackendChoice::cpu) {
    plan.note = "CPU backend (asked for)";
    return plan;
  }
#if ROCKPERM_HAVE_CUDA
  const cuda::DeviceList list = cuda::list_devices();
  for (const auto& d : list.devices) {
    plan.device_memory.push_back(static_cast<double>(d.memory_bytes));
    plan.device_names.push_back(d.name + " (" + d.uuid + ")");
  }
  if (!list.devices.empty()) {
    plan.cuda = true;
    plan.note = "chose CUDA device 0 of " + std::to_string(list.devices.size()) + " (" + list.devices[0].name + ")";
    return plan;
  }
  if (choice == BackendChoice::cuda) {
    throw InputError("execution.backend", "CUDA was asked for but no CUDA device is usable (" + list.reason +
                                              "); use the CPU backend or run on a GPU host");
  }
  plan.note = "CPU backend (no CUDA device: " + list.reason + ")";
#else
  if (choice == BackendChoice::cuda) {
    throw InputError("execution.backend", "CUDA was asked for but this rockperm was built without CUDA; rebuild "
                                          "with -DROCKPERM_ENABLE_CUDA=ON or use the CPU backend");
  }
  plan.note = "CPU backend (built without CUDA)";
#endif
  return plan;
}

// The halo transport of a run on several ranks (lib/parallel/halo_transport.hpp). Collective;
// every rank decides alike.
HaloTransport choose_transport(const Comm& comm, const ExecutionSpec& spec, bool cuda, std::string& note) {
  const HaloTransportChoice choice = spec.halo_transport;
  if (!cuda) {
    if (choice != HaloTransportChoice::auto_select && choice != HaloTransportChoice::staged) {
      throw on_all_ranks(InputError("execution.halo_transport", std::string("run.halo_transport = ") + to_string(choice) +
                                                       " needs the CUDA backend; use auto or staged"));
    }
    note = "host buffers";
    return HaloTransport::staged;
  }
  const std::vector<std::string> names = comm.gather(hostname());
  bool one_host = true;
  for (const auto& n : names) one_host = one_host && n == names.front();
  one_host = comm.sum(std::uint64_t{comm.root() && !one_host ? 1u : 0u}) == 0;  // rank 0's finding, everywhere
  const bool aware = comm.cuda_aware();
  switch (choice) {
    case HaloTransportChoice::auto_select:
      // ipc is not chosen by itself yet: it is bitwise right, but it has not been timed on two
      // GPUs (docs/SCALING.md, "Halo transports"); on two ranks sharing one GPU it was slower
      // than staged. Until it is measured to win, auto keeps the transports that were.
      if (aware && spec.cuda_aware_mpi) {
        note = "device buffers handed to CUDA-aware MPI";
        return HaloTransport::cuda_aware;
      }
      note = std::string("staged through pinned host buffers (MPI not CUDA-aware") +
             (one_host ? "; run.halo_transport = ipc copies device to device)" : ")");
      return HaloTransport::staged;
    case HaloTransportChoice::staged:
      note = "staged through pinned host buffers (asked for)";
      return HaloTransport::staged;
    case HaloTransportChoice::cuda_aware:
      if (!aware) {
        throw on_all_ranks(InputError("execution.halo_transport",
                                      "run.halo_transport = cuda-aware, but this MPI library does not report CUDA "
                                      "support; use auto, ipc (ranks of one host) or staged"));
      }
      note = "device buffers handed to CUDA-aware MPI (asked for)";
      return HaloTransport::cuda_aware;
    case HaloTransportChoice::ipc:
      if (!one_host) {
        throw on_all_ranks(InputError("execution.halo_transport",
                                      "run.halo_transport = ipc needs every rank on one host (CUDA IPC does not "
                                      "cross hosts); use auto, cuda-aware or staged"));
      }
      note = "device to device through CUDA IPC (asked for)";
      return HaloTransport::ipc;
    case HaloTransportChoice::nccl:
      throw on_all_ranks(InputError("execution.halo_transport",
                                    "run.halo_transport = nccl, but this rockperm was built without NCCL (CMake did "
                                    "not find it); use auto, ipc, cuda-aware or staged"));
  }
  return HaloTransport::staged;
}

}  // namespace

ExecutionPlan plan_execution(const Comm& comm, const ExecutionSpec& spec, const std::vector<std::uint64_t>& plane_fluid) {
  ExecutionPlan plan;
  collectively(comm, [&] { plan = choose_backend(spec.backend); });
  switch (spec.propagation) {
    case PropagationChoice::two_pass: plan.propagation = Propagation::two_pass; break;
    case PropagationChoice::fused: plan.propagation = Propagation::fused; break;
    case PropagationChoice::auto_select:
      // fused on a GPU (the faster kernel there, docs/PERFORMANCE.md), two-pass on the CPU
      // (which vectorizes only that one)
      plan.propagation = plan.cuda ? Propagation::fused : Propagation::two_pass;
  }
  plan.storage = spec.storage == StorageChoice::fp16 ? Storage::float16 : Storage::float32;
  if (!plan.cuda) {
    if (comm.size() > 1) plan.halo_transport = choose_transport(comm, spec, false, plan.halo_note);
    return plan;
  }
  plan.device = assign_device(comm, hostname(), plan.gpus(), spec.devices, plan.device_log);
  if (comm.size() > 1) {
    plan.halo_transport = choose_transport(comm, spec, true, plan.halo_note);
    plan.device_halo = plan.halo_transport != HaloTransport::staged;
  }
  if (plane_fluid.empty()) return plan;
  const double capacity = plan.memory_of(plan.device);
  const auto fits_as = [&](Storage storage) {
    const std::vector<RankMemory> memory =
        plan_memory(plane_fluid, comm.size(), plan.propagation, storage, gpu_index_bytes(plane_fluid));
    return comm.sum(std::uint64_t{memory[comm.rank()].bytes <= 0.95 * capacity ? 0u : 1u}) == 0;
  };
  bool fits = fits_as(plan.storage);
  if (!fits && spec.storage == StorageChoice::auto_select && fits_as(Storage::float16)) {
    plan.storage = Storage::float16;  // half the population bytes: the sample fits these GPUs
    plan.note += "; populations in fp16 (fp32 does not fit " + std::to_string(comm.size()) + " GPU(s))";
    fits = true;
  }
  if (!fits) {
    const int needed =
        ranks_needed(plane_fluid, capacity, plan.propagation, plan.storage, gpu_index_bytes(plane_fluid));
    throw on_all_ranks(CapacityError(
        "the sample needs more GPU memory than " + std::to_string(comm.size()) + " rank(s) of " +
        std::to_string(static_cast<int>(capacity / 1073741824.0)) + " GiB hold; run it on " +
        (needed > 0 ? "at least " + std::to_string(needed) + " ranks (one per GPU)" : "more ranks or crop it")));
  }
  return plan;
}

double copy_bandwidth_gbs(const ExecutionPlan& plan) {
#if ROCKPERM_HAVE_CUDA
  if (plan.cuda) return cuda::copy_bandwidth_gbs(plan.device);
#endif
  (void)plan;
  return cpu_copy_bandwidth_gbs();
}

bool connect_halos(ExecutionPlan& plan, HaloTransportChoice asked, const Comm& comm, Stepper& stepper) {
  if (plan.halo_transport != HaloTransport::ipc) return true;
  std::string why = "this rockperm was built without CUDA";
#if ROCKPERM_HAVE_CUDA
  why.clear();
  if (auto exchanger = cuda::make_ipc_exchanger(comm, stepper.receive_endpoints(), why)) {
    stepper.set_exchanger(std::move(exchanger));
    return true;
  }
#else
  (void)comm, (void)stepper;
#endif
  if (asked == HaloTransportChoice::ipc) {
    throw on_all_ranks(InputError("execution.halo_transport",
                                  "run.halo_transport = ipc, but CUDA IPC is not available here (" + why +
                                      "); use auto or staged"));
  }
  plan.halo_transport = HaloTransport::staged;
  plan.device_halo = false;
  plan.halo_note = "staged through pinned host buffers (CUDA IPC not available: " + why + ")";
  return false;
}

std::unique_ptr<Backend> make_backend(const ExecutionPlan& plan, const SparseLattice& lattice,
                                      const physics::CollisionParams& params) {
#if ROCKPERM_HAVE_CUDA
  if (plan.cuda) return std::make_unique<cuda::CudaBackend>(lattice, params, plan.device, plan.storage);
#endif
  return std::make_unique<CpuBackend>(lattice, params, plan.storage);
}

}  // namespace rockperm::pipeline
