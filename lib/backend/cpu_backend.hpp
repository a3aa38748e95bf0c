#pragma once
// The CPU reference backend: OpenMP loops over fluid indices calling the shared per-cell
// functions of lib/lattice/propagation.hpp, in either storage (the loops are compiled for each).
#include <cstddef>
#include <utility>
#include <vector>

#include "lib/backend/backend.hpp"
#include "lib/lattice/sparse_lattice.hpp"

namespace rockperm::backend {

// The copy bandwidth of host memory (bytes read plus written per second / 1e9, median of 7
// copies of 256 MiB over all OpenMP threads): the roofline `rockperm bench` compares with.
double cpu_copy_bandwidth_gbs();

// Whether the cell loops may use their AVX2 build where the processor has AVX2 (the default);
// tests turn it off to compare the two builds bit for bit.
void cpu_wide_vectors(bool allowed);

class CpuBackend final : public Backend {
 public:
  // Populations start at rest (physics::rest_population); the padding slots stay zero.
  CpuBackend(const lattice::SparseLattice& lattice, const physics::CollisionParams& params,
             physics::Storage storage = physics::Storage::float32);

  std::string description() const override;
  double bytes_per_cell() const override;
  physics::Storage storage() const override { return storage_; }
  CellRange owned() const override { return owned_; }
  CellRange all() const override { return all_; }
  using Backend::collide;
  using Backend::fused_odd;
  using Backend::sums;
  using Backend::swap;
  void begin_step(std::int64_t step) override { params_.seed = physics::step_seed(step); }
  void collide(CellRange cells) override;
  void swap(CellRange cells) override;
  void fused_odd(CellRange cells) override;
  physics::FlowSums sums(CellRange cells) override;
  void macroscopic(CellRange cells, Macroscopic& out) override;
  void set_planes(int axis, Uninitialized<std::uint16_t> plane_of_owned, std::uint32_t planes) override;
  void plane_sums(PlaneSums& out) override;
  void rescale(float factor, const physics::CollisionParams& params) override;
  bool hold_density(bool keep_change) override;
  float density_change_peak() override;
  physics::DensityProducts density_products(float scale) override;
  void extrapolate_density(float factor) override;
  void extrapolate_density_at_rest(float factor, const std::array<float, 3>& acceleration) override;
  bool blocks_on_interior() const override { return true; }
  void held_densities(std::vector<float>& out) override;
  void restore_held_densities(const std::vector<float>& in) override;
  void set_halo_lists(const std::vector<std::vector<std::uint64_t>>& lists, bool device_buffers) override;
  void* halo_buffer(int list) override { return buffers_[list].data(); }
  void pack_halo(int list) override;
  void unpack_halo(int list) override;
  void download_raw(std::vector<std::byte>& f) override;
  void upload_raw(const std::vector<std::byte>& f) override;
  std::byte* host_slots() override { return f_.data(); }

 private:
  void extrapolate_density_at(float factor, const std::array<float, 3>* acceleration);
  template <class S>
  S* slots() {
    return reinterpret_cast<S*>(f_.data());
  }
  // fn(S{}) with the slot type of this backend's storage
  template <class Fn>
  void each_storage(Fn&& fn) {
    physics::with_storage(storage_, std::forward<Fn>(fn));
  }

  const lattice::SparseLattice& lattice_;
  lattice::NeighbourTables own_tables_;  // built here where the lattice deferred them (SparseLattice::tables)
  const std::uint32_t* positive_ = nullptr;  // the tables the steps read: the lattice's or own_tables_
  const std::uint32_t* negative_ = nullptr;
  physics::CollisionParams params_;
  physics::Storage storage_;
  CellRange owned_;
  CellRange all_;
  std::vector<std::byte> f_;  // 19 * stride slots
  int plane_axis_ = 0;
  std::uint32_t planes_ = 0;
  Uninitialized<std::uint16_t> plane_of_;
  // the lattice's cell phases for CollisionParams::phases (null: every cell open)
  const std::uint8_t* phases() const { return lattice_.has_grey() ? lattice_.phases().data() : nullptr; }
  std::vector<float> held_;  // the pressure extrapolation's (held, change) per owned cell, interleaved
  std::vector<std::vector<std::uint64_t>> lists_;
  std::vector<std::vector<std::byte>> buffers_;
};

}  // namespace rockperm::backend
