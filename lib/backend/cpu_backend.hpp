#pragma once
// The CPU reference backend: OpenMP loops over fluid indices calling the shared per-cell
// functions of lib/propagation.hpp.
#include <vector>

#include "lib/backend/backend.hpp"
#include "lib/lattice/sparse_lattice.hpp"

namespace rockperm {

// The copy bandwidth of host memory (bytes read plus written per second / 1e9, median of 7
// copies of 256 MiB over all OpenMP threads): the roofline `rockperm bench` compares with.
double cpu_copy_bandwidth_gbs();

class CpuBackend final : public Backend {
 public:
  // Populations start at rest (physics::rest_population); the padding slots stay zero.
  CpuBackend(const SparseLattice& lattice, const physics::CollisionParams& params);

  std::string description() const override;
  double bytes_per_cell() const override;
  CellRange owned() const override { return owned_; }
  CellRange all() const override { return all_; }
  using Backend::collide;
  using Backend::fused_odd;
  using Backend::sums;
  using Backend::swap;
  void collide(CellRange cells) override;
  void swap(CellRange cells) override;
  void fused_odd(CellRange cells) override;
  FlowSums sums(CellRange cells) override;
  void macroscopic(CellRange cells, Macroscopic& out) override;
  void set_planes(int axis, const std::vector<std::uint16_t>& plane_of_owned, std::uint32_t planes) override;
  void plane_sums(PlaneSums& out) override;
  void rescale(float factor, const physics::CollisionParams& params) override;
  void set_halo_lists(const std::vector<std::vector<std::uint64_t>>& lists, bool device_buffers) override;
  Population* halo_buffer(int list) override { return buffers_[list].data(); }
  void pack_halo(int list) override;
  void unpack_halo(int list) override;
  void download(std::vector<Population>& f) override;
  void upload(const std::vector<Population>& f) override;

 private:
  const SparseLattice& lattice_;
  physics::CollisionParams params_;
  CellRange owned_;
  CellRange all_;
  std::vector<Population> f_;
  int plane_axis_ = 0;
  std::uint32_t planes_ = 0;
  std::vector<std::uint16_t> plane_of_;
  std::vector<std::vector<std::uint64_t>> lists_;
  std::vector<std::vector<Population>> buffers_;
};

}  // namespace rockperm
