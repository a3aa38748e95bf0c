#pragma once
// The CUDA backend: populations and neighbour tables in device memory, the kernels of
// kernels.cu, reductions for the monitor on the device (in double, per block of cells, summed
// on the host in block order), timing with events.
#include <memory>
#include <string>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "lib/backend.hpp"
#include "lib/sparse_lattice.hpp"

namespace rockperm::cuda {

class CudaBackend final : public Backend {
 public:
  // Uploads the lattice's neighbour tables to `device`; populations start at rest.
  CudaBackend(const SparseLattice& lattice, const physics::CollisionParams& params, int device);

  std::string description() const override;
  double bytes_per_cell() const override;
  void collide() override;
  void swap() override;
  void fused_odd() override;
  FlowSums sums() override;
  void synchronize() override;
  double timed_steps(Propagation propagation, std::int64_t first, std::int64_t steps) override;
  double measure_copy_bandwidth_gbs() const override;
  void download(std::vector<float>& f) override;
  void upload(const std::vector<float>& f) override;

 private:
  DeviceInfo info_;
  std::uint32_t cells_;
  std::uint64_t stride_;
  physics::CollisionParams params_;
  Stream stream_;
  DeviceBuffer<float> f_;
  DeviceBuffer<std::uint32_t> neighbours_;
  DeviceBuffer<std::uint32_t> negative_;
  DeviceBuffer<FlowSums> partial_;
  PinnedBuffer<FlowSums> partial_host_;
};

// Device bytes a run of `fluid_cells` needs (populations + tables), for planning.
double device_bytes_per_cell(bool fused);

}  // namespace rockperm::cuda
