// The halo transports (lib/parallel/halo_transport.hpp) on two ranks of the CUDA backend: the
// populations after the same steps are bit for bit those of the staged transport with ipc (and
// with cuda-aware where the MPI library supports it, and with nccl where NCCL can run), in fp32
// and fp16, both propagations. Run as `mpiexec -n 2 gpu_mpi_tests` (both ranks may share one GPU:
// CUDA IPC works between processes on one device too; NCCL needs a GPU per rank and skips
// otherwise), and on one rank, whose slab is its own neighbour across the periodic z wrap (what
// `rockperm bench --loopback` times: ipc copies into its own buffers); skips without a device.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cuda/cuda_backend.hpp"
#include "cuda/device_info.hpp"
#include "cuda/ipc_exchanger.hpp"
#include "cuda/nccl_exchanger.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/parallel/partition.hpp"
#include "lib/solve/stepper.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

enum class Way { staged, ipc, cuda_aware, nccl };

// This rank's owned slots (as stored) after `steps` steps from rest; empty with `skipped` set
// when the transport is not available here.
std::vector<std::byte> owned_after(Way way, backend::Propagation propagation, physics::Storage storage, int steps,
                                   std::string& skipped) {
  const parallel::Comm comm = parallel::Comm::world();
  const geometry::PoreMask mask = testing::sphere_pack_mask(32, 0.35, 3.0, 5);
  const geometry::Periodicity periodic{true, true, true};
  const auto params = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 0, 1e-5);
  const std::vector<parallel::Slab> slabs = parallel::partition_slabs(parallel::plane_fluid_counts(mask), comm.size());
  const parallel::SlabDomain domain = parallel::slab_domain(slabs, comm.rank(), mask.dims.nz, periodic[2]);
  const lattice::SparseLattice local =
      parallel::build_slab_lattice(parallel::extract_planes(mask, domain.planes), domain, periodic, true);
  const int devices = static_cast<int>(cuda::list_devices().devices.size());
  cuda::CudaBackend backend(local, params, comm.rank() % devices, storage);
  solve::Stepper stepper(backend, propagation, comm, domain, local, way != Way::staged);
  if (way == Way::ipc || way == Way::nccl) {
    auto exchanger = way == Way::ipc ? cuda::make_ipc_exchanger(comm, stepper.receive_endpoints(), skipped)
                                     : cuda::make_nccl_exchanger(comm, skipped);
    if (!exchanger) return {};
    stepper.set_exchanger(std::move(exchanger));
  }
  for (int s = 0; s < steps; ++s) stepper.advance(s);
  backend.synchronize();
  std::vector<std::byte> raw;
  backend.download_raw(raw);
  const std::size_t slot = physics::storage_bytes(storage);
  std::vector<std::byte> owned;
  for (int i = 0; i < d3q19::q; ++i) {
    const std::byte* row = raw.data() + (i * local.stride() + local.owned_begin()) * slot;
    owned.insert(owned.end(), row, row + (local.owned_end() - local.owned_begin()) * slot);
  }
  return owned;
}

}  // namespace

TEST(HaloTransports, IpcAndCudaAwareAreBitwiseEqualToStaged) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const parallel::Comm comm = parallel::Comm::world();
  for (const physics::Storage storage : {physics::Storage::float32, physics::Storage::float16}) {
    for (const backend::Propagation propagation : {backend::Propagation::two_pass, backend::Propagation::fused}) {
      std::string why;
      const auto staged = owned_after(Way::staged, propagation, storage, 60, why);
      const auto ipc = owned_after(Way::ipc, propagation, storage, 60, why);
      ASSERT_FALSE(ipc.empty()) << "CUDA IPC not available: " << why;
      EXPECT_TRUE(ipc == staged) << "ipc, " << to_string(storage) << ", " << to_string(propagation) << ", rank "
                                 << comm.rank();
      if (comm.cuda_aware()) {
        const auto aware = owned_after(Way::cuda_aware, propagation, storage, 60, why);
        EXPECT_TRUE(aware == staged) << "cuda-aware, " << to_string(storage) << ", " << to_string(propagation);
      }
    }
  }
}

TEST(HaloTransports, NcclIsBitwiseEqualToStaged) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  const parallel::Comm comm = parallel::Comm::world();
  if (!cuda::nccl_built()) GTEST_SKIP() << "built without NCCL";
  for (const physics::Storage storage : {physics::Storage::float32, physics::Storage::float16}) {
    for (const backend::Propagation propagation : {backend::Propagation::two_pass, backend::Propagation::fused}) {
      std::string why;
      const auto nccl = owned_after(Way::nccl, propagation, storage, 60, why);
      if (nccl.empty()) GTEST_SKIP() << "NCCL not available: " << why;  // e.g. both ranks on one GPU
      const auto staged = owned_after(Way::staged, propagation, storage, 60, why);
      EXPECT_TRUE(nccl == staged) << "nccl, " << to_string(storage) << ", " << to_string(propagation) << ", rank "
                                  << comm.rank();
    }
  }
}

}  // namespace rockperm
