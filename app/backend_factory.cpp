#include "app/backend_factory.hpp"

#include "lib/cpu_backend.hpp"
#include "lib/error.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/device_info.hpp"
#endif

namespace rockperm::app {

std::unique_ptr<Backend> make_backend(config::BackendChoice choice, const SparseLattice& lattice,
                                      const physics::CollisionParams& params, std::string& note) {
  if (choice == config::BackendChoice::cpu) {
    note = "CPU backend (asked for)";
    return std::make_unique<CpuBackend>(lattice, params);
  }
#if ROCKPERM_HAVE_CUDA
  const cuda::DeviceList list = cuda::list_devices();
  if (choice == config::BackendChoice::cuda && list.devices.empty()) {
    throw InputError("run.backend = cuda but no CUDA device is usable (" + list.reason +
                     "); use --run.backend=cpu or run on a GPU host");
  }
  if (!list.devices.empty()) {
    throw InputError("the CUDA backend is not built into this rockperm yet; use --run.backend=cpu");
  }
  note = "CPU backend (no CUDA device: " + list.reason + ")";
#else
  if (choice == config::BackendChoice::cuda) {
    throw InputError("run.backend = cuda but this rockperm was built without CUDA; rebuild with "
                     "-DROCKPERM_ENABLE_CUDA=ON or use --run.backend=cpu");
  }
  note = "CPU backend (built without CUDA)";
#endif
  return std::make_unique<CpuBackend>(lattice, params);
}

}  // namespace rockperm::app
