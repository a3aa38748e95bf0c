#include "app/backend_factory.hpp"

#include "lib/backend/cpu_backend.hpp"
#include "lib/base/error.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#include "cuda/device_info.hpp"
#endif

namespace rockperm::app {

BackendPlan plan_backend(config::BackendChoice choice) {
  BackendPlan plan;
  if (choice == config::BackendChoice::cpu) {
    plan.note = "CPU backend (asked for)";
    return plan;
  }
#if ROCKPERM_HAVE_CUDA
  const cuda::DeviceList list = cuda::list_devices();
  for (const auto& d : list.devices) plan.device_memory.push_back(static_cast<double>(d.memory_bytes));
  if (!list.devices.empty()) {
    plan.cuda = true;
    plan.device = 0;
    plan.note = "chose CUDA device 0 of " + std::to_string(list.devices.size()) + " (" + list.devices[0].name + ")";
    return plan;
  }
  if (choice == config::BackendChoice::cuda) {
    throw InputError("run.backend = cuda but no CUDA device is usable (" + list.reason +
                     "); use --run.backend=cpu or run on a GPU host");
  }
  plan.note = "CPU backend (no CUDA device: " + list.reason + ")";
#else
  if (choice == config::BackendChoice::cuda) {
    throw InputError("run.backend = cuda but this rockperm was built without CUDA; rebuild with "
                     "-DROCKPERM_ENABLE_CUDA=ON or use --run.backend=cpu");
  }
  plan.note = "CPU backend (built without CUDA)";
#endif
  return plan;
}

Propagation resolve_propagation(config::PropagationChoice choice, const BackendPlan& plan) {
  switch (choice) {
    case config::PropagationChoice::two_pass: return Propagation::two_pass;
    case config::PropagationChoice::fused: return Propagation::fused;
    case config::PropagationChoice::auto_select: break;
  }
  return plan.cuda ? Propagation::fused : Propagation::two_pass;
}

std::unique_ptr<Backend> make_backend(const BackendPlan& plan, const SparseLattice& lattice,
                                      const physics::CollisionParams& params) {
#if ROCKPERM_HAVE_CUDA
  if (plan.cuda) return std::make_unique<cuda::CudaBackend>(lattice, params, plan.device);
#endif
  return std::make_unique<CpuBackend>(lattice, params);
}

}  // namespace rockperm::app
