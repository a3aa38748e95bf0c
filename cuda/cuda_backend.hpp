#pragma once
// The CUDA backend: populations and neighbour tables in device memory, the kernels of
// kernels.cu, reductions for the monitor on the device (in double, per block of cells, summed
// on the host in block order), timing with events.
#include <memory>
#include <string>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "lib/backend/backend.hpp"
#include "lib/lattice/block_order.hpp"
#include "lib/lattice/line_tables.hpp"
#include "lib/lattice/neighbour_table.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/halo_rows.hpp"

namespace rockperm::cuda {

// The device-to-device copy bandwidth of `device` (bytes read plus written per second / 1e9,
// median of 10 copies of 1 GiB timed with events): the roofline `rockperm bench` compares with.
double copy_bandwidth_gbs(int device);

// The form of the fused form's neighbour tables (see with_tables): `automatic` takes the grouped
// tables (78.5 B per fluid cell with fp16 populations; on an H200 about 1 % faster) where the
// device's memory holds them with 5 % to spare, else the line tables (60 B); the others name the
// form to take, or the next larger where it does not hold the lattice (the tests run every form's
// kernels). Two-pass lattices take the packed tables, or the index tables.
enum class TableForm { automatic, line, grouped, packed, index };

class CudaBackend final : public backend::Backend {
 public:
  // Uploads the lattice's neighbour tables to `device`; populations start at rest. The odd step
  // visits its blocks in bands of odd_band_cells cells a plane (lib/lattice/block_order.hpp; 0:
  // in numbering order; automatic_bands: lattice::odd_band_cells for this device's L2); every
  // choice steps bitwise the same.
  static constexpr std::uint64_t automatic_bands = ~std::uint64_t{0};
  CudaBackend(const lattice::SparseLattice& lattice, const physics::CollisionParams& params, int device,
              physics::Storage storage = physics::Storage::float32, TableForm tables = TableForm::automatic,
              std::uint64_t odd_band_cells = automatic_bands);

  std::string description() const override;
  double bytes_per_cell() const override;
  double index_bytes() const override {
    return line_tables_      ? lattice::line_table_bytes / (d3q19::q - 1)
           : grouped_tables_ ? 2.0 + 8.0 / lattice::group_cells
           : packed_tables_  ? 3.0
                             : 4.0;
  }
  physics::Storage storage() const override { return storage_; }
  backend::CellRange owned() const override { return owned_; }
  backend::CellRange all() const override { return all_; }
  using Backend::collide;
  using Backend::fused_odd;
  using Backend::sums;
  using Backend::swap;
  void begin_step(std::int64_t step) override { params_.seed = physics::step_seed(step); }
  void collide(backend::CellRange cells) override;
  void swap(backend::CellRange cells) override;
  void fused_odd(backend::CellRange cells) override;
  physics::FlowSums sums(backend::CellRange cells) override;
  void macroscopic(backend::CellRange cells, backend::Macroscopic& out) override;
  void set_planes(int axis, Uninitialized<std::uint16_t> plane_of_owned, std::uint32_t planes) override;
  void plane_sums(backend::PlaneSums& out) override;
  void rescale(float factor, const physics::CollisionParams& params) override;
  bool hold_density(bool keep_change) override;
  float density_change_peak() override;
  physics::DensityProducts density_products(float scale) override;
  void extrapolate_density(float factor) override;
  void extrapolate_density_at_rest(float factor, const std::array<float, 3>& acceleration) override;
  void held_densities(std::vector<float>& out) override;
  void restore_held_densities(const std::vector<float>& in) override;
  void set_halo_lists(const std::vector<std::vector<std::uint64_t>>& lists, bool device_buffers) override;
  void* halo_buffer(int list) override {
    return device_halo_ ? static_cast<void*>(halo_[list].device.data()) : static_cast<void*>(halo_[list].host.data());
  }
  void pack_halo(int list) override;
  void unpack_halo(int list) override;
  void wait_halo() override;
  void begin_boundary() override;
  void end_boundary() override;
  void synchronize() override;
  void download_raw(std::vector<std::byte>& f) override;
  void upload_raw(const std::vector<std::byte>& f) override;

 private:
  struct Halo {
    DeviceBuffer<std::uint32_t> cells;  // the list's cells, with its runs of one slot each
    parallel::HaloRows rows;
    DeviceBuffer<std::byte> device;  // slots as stored
    PinnedBuffer<std::byte> host;
  };
  // fn(S{}) with the slot type of this backend's storage, and the populations as S*
  template <class Fn>
  void each_storage(Fn&& fn) {
    physics::with_storage(storage_, [&](auto slot) { fn(slot, reinterpret_cast<decltype(slot)*>(f_.data())); });
  }
  DeviceInfo info_;
  backend::CellRange owned_;
  backend::CellRange all_;
  std::uint32_t cells_;
  std::uint64_t stride_;
  physics::CollisionParams params_;
  physics::Storage storage_;
  Stream stream_;
  // A slab's boundary work, beside the interior on stream_ (begin_boundary): its small kernels
  // no longer sit in front of the interior, and their blocks go first where the interior's retire.
  Stream boundary_stream_{highest_stream_priority()};
  Event step_start_;     // on stream_: what the boundary work waits for
  Event boundary_done_;  // on boundary_stream_: what stream_'s work after the exchange waits for
  bool in_boundary_ = false;
  bool boundary_pending_ = false;  // boundary_done_ recorded, stream_ not yet made to wait
  // The unpacks go on the boundary stream too: they touch only ghost slots and the boundary
  // planes' slots, which the next step's boundary work (after them on that stream) reads and the
  // next step's interior does not, so the interior follows the interior with no gap on stream_.
  // Any other work on stream_ waits for them first (main_stream()).
  Event unpacked_;               // on boundary_stream_: the unpacks enqueued so far are done
  bool unpack_pending_ = false;  // unpacked_ recorded, stream_ not yet made to wait
  const Stream& main_stream();
  const Stream& work() { return in_boundary_ ? boundary_stream_ : main_stream(); }
  DeviceBuffer<std::byte> f_;  // 19 * stride slots
  DeviceBuffer<std::uint8_t> phases_;  // the lattice's cell phases where it has grey cells
  // fn(tables) with the neighbour tables as the kernels read them (lib/lattice/neighbour_table.hpp):
  // the fused form's two as line ranks and masks (22 bytes per cell, lib/lattice/line_tables.hpp),
  // else grouped to 2 bytes per entry (and two bases per 32 cells) where every group fits, else
  // packed to 3 bytes per entry (the fused form's two interleaved), else 4
  template <class Fn>
  void with_tables(Fn&& fn) {
    if (line_tables_) {
      fn(lattice::LineTables{line_mask_.data(), line_ranks_.data(), line_base_.data(), line_first_.data(),
                    line_exceptions_.data(), stride_});
    } else if (grouped_tables_) {
      fn(lattice::GroupedPairTables{group_delta_.data(), group_base_.data()});
    } else if (packed_tables_ && has_negative_) {
      fn(lattice::PackedPairTables{pair_low_.data(), pair_high_.data(), cells_});
    } else if (packed_tables_) {
      fn(lattice::PackedTables{lattice::PackedTable{pos_low_.data(), pos_high_.data(), cells_}});
    } else {
      fn(lattice::IndexTables{{neighbours_.data()}, {negative_.data()}});
    }
  }
  bool line_tables_ = false;
  bool grouped_tables_ = false;
  bool packed_tables_ = false;
  bool has_negative_ = false;
  DeviceBuffer<std::uint32_t> neighbours_;
  DeviceBuffer<std::uint32_t> negative_;
  DeviceBuffer<std::uint16_t> pos_low_;  // two-pass lattices
  DeviceBuffer<std::uint8_t> pos_high_;
  DeviceBuffer<std::uint32_t> pair_low_;  // fused lattices
  DeviceBuffer<std::uint16_t> pair_high_;
  DeviceBuffer<std::uint32_t> line_mask_;  // fused lattices whose line ranks group
  DeviceBuffer<std::uint32_t> line_ranks_;
  DeviceBuffer<std::int32_t> line_base_;
  DeviceBuffer<std::uint32_t> line_first_;
  DeviceBuffer<std::uint32_t> line_exceptions_;
  std::vector<std::uint32_t> line_first_host_;  // each group's first exception (the odd step's second launch)
  DeviceBuffer<std::uint32_t> group_delta_;  // else fused lattices whose groups fit
  DeviceBuffer<std::int32_t> group_base_;
  // The odd step's bands, and the order of the blocks of each range it stepped (a slab's boundary
  // planes and interior: a few), 4 bytes per block of 256 cells each
  lattice::BlockBands bands_;
  struct RangeOrder {
    backend::CellRange range;
    DeviceBuffer<std::uint32_t> blocks;  // empty: numbering order
  };
  std::vector<RangeOrder> orders_;
  const DeviceBuffer<std::uint32_t>& odd_order(backend::CellRange cells);
  DeviceBuffer<physics::FlowSums> partial_;
  PinnedBuffer<physics::FlowSums> partial_host_;
  int plane_axis_ = 0;
  std::uint32_t planes_ = 0;
  DeviceBuffer<std::uint16_t> plane_of_;
  DeviceBuffer<unsigned long long> plane_out_;
  // the pressure extrapolation's (held, change) per owned cell, interleaved, and its sums
  DeviceBuffer<float> held_;
  DeviceBuffer<unsigned long long> density_out_;
  void density_pass(int pass, float arg, const std::array<float, 3>& acceleration = {});
  std::vector<Halo> halo_;
  bool device_halo_ = false;
  // Staged halos copy on their own stream, so the copies overlap the interior kernels
  // instead of queueing in front of them (that cost ~0.25 ms per step on two H200s).
  Stream copy_stream_;
  Event packed_;     // on the boundary stream: the pack kernels are done
  Event halo_event_; // on the stream whose work the host must wait for before MPI
  Event arrived_;    // on copy_stream_: the received halo is on the device
};

}  // namespace rockperm::cuda
