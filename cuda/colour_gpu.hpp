#pragma once
// The colour-gradient two-phase model on one GPU (issue 69): the CPU loops' passes
// (lib/backend/colour_cpu.hpp) as kernels (cuda/colour_kernels.hpp) over the lattice's full
// neighbour tables in device memory. The same cells, the same order, float rounding apart.
#include <cstdint>
#include <span>

#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "lib/backend/colour_backend.hpp"
#include "lib/lattice/colour_propagation.hpp"
#include "lib/lattice/sparse_lattice.hpp"

namespace rockperm::cuda {

class ColourGpu final : public backend::ColourBackend {
 public:
  // As backend::ColourCpu, on CUDA device `device`.
  ColourGpu(const lattice::SparseLattice& lattice, const physics::colour::ColourParams& params,
            std::span<const float> phi, int device = 0, physics::Storage storage = physics::Storage::float32,
            std::uint32_t cell_offset = 0);

  std::string description() const override;
  void advance(std::int64_t steps) override;  // the passes queued, one wait at the end
  void set_wall_phi(std::span<const float> per_cell) override;
  void set_sources(std::span<const std::uint32_t> to_a, std::span<const std::uint32_t> to_b) override;
  void phase_pass() override;
  void collide_pass() override;
  Fields fields_now() override;
  FixedSums fixed_sums_now(int plane_axis) override;
  // through the host: each piece's rows copied on the stream, then one wait
  void pack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, std::uint8_t* out) override;
  void unpack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, const std::uint8_t* in) override;

 private:
  template <class S>
  lattice::colour_step::Cells<S> cells();

  const lattice::SparseLattice& lattice_;
  DeviceInfo info_;
  std::uint32_t cells_ = 0;
  std::uint32_t begin_ = 0, end_ = 0;  // the owned cells
  std::uint64_t stride_ = 0;
  std::uint32_t cell_offset_ = 0;
  DeviceBuffer<std::uint32_t> positive_, negative_;
  DeviceBuffer<std::uint16_t> f_, f_next_;  // the momentum's populations as storage_ holds them
  DeviceBuffer<float> a_, b_, phi_, na_, nb_;
  DeviceBuffer<float> wall_phi_;  // empty: params_.wall_phi
  DeviceBuffer<std::uint32_t> sources_[2];  // fed to phase A, to phase B
  DeviceBuffer<std::uint16_t> plane_of_;  // each cell's plane across plane_axis_ (built when first asked)
  int plane_axis_ = -1;
  DeviceBuffer<unsigned long long> totals_, bins_;  // sums()' (bins_ sized for plane_axis_)
  DeviceBuffer<float> moments_;                     // fields()' (allocated when first asked)
  Stream stream_;
};

}  // namespace rockperm::cuda
