#include "cuda/cuda_backend.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "cuda/kernels.hpp"
#include "cuda/table_builder.hpp"
#include "lib/physics/d3q19.hpp"

namespace rockperm::cuda {


CudaBackend::CudaBackend(const lattice::SparseLattice& lattice, const physics::CollisionParams& params, int device,
                         physics::Storage storage, TableForm tables, std::uint64_t odd_band_cells)
    : info_(select_device(device)),
      owned_{lattice.owned_begin(), lattice.owned_end()},
      all_{0, lattice.fluid_count()},
      cells_(lattice.fluid_count()),
      stride_(lattice.stride()),
      params_(params),
      storage_(storage),
      stream_(),
      f_(d3q19::q * lattice.stride() * storage_bytes(storage)),
      has_negative_(lattice.has_negative()),
      partial_(sum_blocks(lattice.fluid_count())),
      partial_host_(sum_blocks(lattice.fluid_count())) {
  if (lattice.has_grey()) {  // the cells' phases, 1 byte a cell (CollisionParams::phases)
    phases_ = DeviceBuffer<std::uint8_t>(lattice.phases().size());
    phases_.upload(lattice.phases().data(), lattice.phases().size());
    params_.phases = phases_.data();
  }
  each_storage([&](auto, auto* f) { launch_rest_state(f, stride_, cells_, params_, stream_.get()); });
  // the fused form's: line tables (22 bytes per cell) where the grouped ones do not fit the device
  // (TableForm) and their ranks group, else 2-byte tables where every group fits, else 3-byte
  // tables where every entry packs (both tables, so that the kernels read one form), else the
  // lattice's own
  const auto upload = [](auto& buffer, const auto* data, std::size_t count) {
    buffer = std::remove_reference_t<decltype(buffer)>(count);
    if (count) buffer.upload(data, count);
  };
  const std::uint64_t entries = d3q19::half * stride_;
  // the host's full tables, where a form is packed from them: the lattice's, or built here from
  // its mask where it deferred them (and the device did not build the grouped form)
  lattice::NeighbourTables own;
  const auto host_tables = [&] { return lattice.tables(own); };
  if (has_negative_) {
    lattice::LineTableData line;
    lattice::GroupedPairData grouped;
    lattice::PackedPairData pair;
    std::size_t free = 0, total = 0;
    ROCKPERM_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    const double grouped_bytes =
        static_cast<double>(entries) * 4 + stride_ / lattice::group_cells * 4.0 * 4 * d3q19::half;
    const bool grouped_fit = free >= grouped_bytes + 0.05 * total;
    // built on the device where the lattice kept its mask and the build's scratch fits too
    const bool on_device =
        !lattice.has_tables() && free >= grouped_bytes + grouped_build_scratch_bytes(lattice) + 0.05 * total;
    const bool line_first = tables == TableForm::line || (tables == TableForm::automatic && !grouped_fit);
    if (line_first) {
      if (lattice.has_tables()) {
        const auto [pos, neg] = host_tables();
        line_tables_ = lattice::pack_line_tables(pos, neg, entries, stride_, cells_, line);
      } else if (entries == d3q19::half * stride_) {
        // from windows of the full tables (2.3 GB each), not the whole tables' 72 B per cell:
        // at 1.35 G cells those alone outgrew a 125 GB host (docs/PERFORMANCE.md)
        constexpr std::uint64_t window_cells = 32u << 20;
        lattice::NeighbourTables window;
        line_tables_ = lattice::pack_line_tables(
            [&](std::uint64_t first, std::uint64_t end) { return lattice.table_window(first, end, window); }, stride_,
            cells_, window_cells, line);
      }
      if (line_tables_) {
        upload(line_mask_, line.mask.data(), line.mask.size());
        upload(line_ranks_, line.ranks.data(), line.ranks.size());
        upload(line_base_, line.base.data(), line.base.size());
        upload(line_first_, line.exception_first.data(), line.exception_first.size());
        upload(line_exceptions_, line.exceptions.data(), line.exceptions.size());
        line_first_host_ = std::move(line.exception_first);
      }
    }
    if (!line_tables_ && tables <= TableForm::grouped) {
      if (on_device) {
        grouped_tables_ = build_grouped_tables(lattice, group_delta_, group_base_, stream_.get());
      } else {
        const auto [pos, neg] = host_tables();
        if ((grouped_tables_ = lattice::pack_grouped_pair_tables(pos, neg, entries, stride_, cells_, grouped))) {
          upload(group_delta_, grouped.delta.data(), grouped.delta.size());
          upload(group_base_, grouped.base.data(), grouped.base.size());
        }
      }
    }
    if (!line_tables_ && !grouped_tables_ && tables <= TableForm::packed) {
      const auto [pos, neg] = host_tables();
      if ((packed_tables_ = lattice::pack_pair_tables(pos, neg, entries, stride_, cells_, pair))) {
        upload(pair_low_, pair.low.data(), pair.low.size());
        upload(pair_high_, pair.high.data(), pair.high.size());
      }
    }
  } else {
    lattice::PackedTableData pos;
    packed_tables_ = tables <= TableForm::packed && pack_table(host_tables().first, entries, stride_, cells_, pos);
    if (packed_tables_) {
      upload(pos_low_, pos.low.data(), pos.low.size());
      upload(pos_high_, pos.high.data(), pos.high.size());
    }
  }
  if (!line_tables_ && !grouped_tables_ && !packed_tables_) {
    const auto [pos, neg] = host_tables();
    upload(neighbours_, pos, entries);
    upload(negative_, neg, has_negative_ ? entries : 0);
  }
  if (has_negative_) {
    if (odd_band_cells == automatic_bands)
      odd_band_cells = lattice::odd_band_cells(lattice, bytes_per_cell(), info_.l2_bytes);
    bands_ = lattice::block_bands(lattice, odd_band_cells);
  }
  // the uploads above (cudaMemcpy from pageable memory, the legacy stream) may still be in flight
  // when they return, and the backend's streams do not wait for the legacy stream: wait once here
  // (the conduction engine's first kernels read such an upload too early in a full gpu_tests run)
  ROCKPERM_CUDA_CHECK(cudaDeviceSynchronize());
}

std::string CudaBackend::description() const {
  char text[256];
  std::snprintf(text, sizeof text, "cuda device %d: %s (sm_%d%d, %d SMs, %.1f GiB, %s, %.3g-byte tables)",
                info_.index, info_.name.c_str(), info_.major, info_.minor, info_.multiprocessors,
                info_.memory_bytes / 1073741824.0, to_string(storage_), index_bytes());
  std::string out = text;
  if (bands_.bands > 1)  // its planes outgrow the L2 (lib/lattice/block_order.hpp)
    out += ", odd steps in " + std::to_string(bands_.bands) + " bands of " + std::to_string(bands_.rows) + " rows";
  return out;
}

double CudaBackend::bytes_per_cell() const {
  const std::size_t tables = neighbours_.bytes() + negative_.bytes() + pos_low_.bytes() + pos_high_.bytes() +
                             pair_low_.bytes() + pair_high_.bytes() + group_delta_.bytes() + group_base_.bytes() +
                             line_mask_.bytes() + line_ranks_.bytes() + line_base_.bytes() + line_first_.bytes() +
                             line_exceptions_.bytes();
  return static_cast<double>(f_.bytes() + tables + plane_of_.bytes()) / cells_;
}

void CudaBackend::collide(backend::CellRange c) {
  each_storage([&](auto, auto* f) { launch_collide(f, stride_, c.begin, c.end, params_, work().get()); });
}

void CudaBackend::swap(backend::CellRange c) {
  with_tables([&](auto tables) {
    each_storage([&](auto, auto* f) { launch_swap(f, stride_, c.begin, c.end, tables, work().get()); });
  });
}

void CudaBackend::fused_odd(backend::CellRange c) {
  if (!has_negative_) throw Error("internal: the fused propagation needs the lattice built with negative neighbours");
  with_tables([&](auto tables) {
    if constexpr (std::is_same_v<decltype(tables), lattice::PackedTables>) {
      throw Error("internal: the fused propagation needs the negative table");  // not reached (has_negative_)
    } else {
      const DeviceBuffer<std::uint32_t>& order = odd_order(c);
      each_storage([&](auto, auto* f) {
        launch_fused_odd(f, stride_, c.begin, c.end, tables, params_, order.size() ? order.data() : nullptr,
                         static_cast<std::uint32_t>(order.size()), work().get());
        if constexpr (std::is_same_v<decltype(tables), lattice::LineTables>) {
          // the exceptions of the groups that hold c (the kernel keeps those inside it)
          const std::uint64_t first_group = c.begin / lattice::group_cells,
                              end_group = (c.end + lattice::group_cells - 1) / lattice::group_cells;
          const std::uint32_t first = line_first_host_[first_group];
          const auto all = static_cast<std::uint32_t>(line_exceptions_.size() / lattice::line_exception_words);
          const std::uint32_t last = end_group < line_first_host_.size() ? line_first_host_[end_group] : all;
          launch_fused_odd_exceptions(f, stride_, c.begin, c.end, tables, first, last, params_, work().get());
        }
      });
    }
  });
}

const DeviceBuffer<std::uint32_t>& CudaBackend::odd_order(backend::CellRange c) {
  for (const RangeOrder& o : orders_)
    if (o.range.begin == c.begin && o.range.end == c.end) return o.blocks;
  static const DeviceBuffer<std::uint32_t> none;
  if (bands_.bands <= 1 || orders_.size() >= 8) return none;  // more ranges than a slab steps: not kept
  const std::vector<std::uint32_t> order = lattice::block_order(bands_, c.begin, c.end);
  DeviceBuffer<std::uint32_t> blocks(order.size());
  if (!order.empty()) {
    // from pageable memory on the legacy stream, which the backend's streams do not wait for
    blocks.upload(order);
    ROCKPERM_CUDA_CHECK(cudaDeviceSynchronize());
  }
  orders_.push_back({c, std::move(blocks)});
  return orders_.back().blocks;
}

physics::FlowSums CudaBackend::sums(backend::CellRange c) {
  const std::uint32_t blocks = c.size() ? sum_blocks(c.size()) : 0;
  physics::FlowSums total;
  if (blocks == 0) return total;
  const Stream& s = main_stream();
  each_storage([&](auto, auto* f) { launch_sums(f, stride_, c.begin, c.end, params_, partial_.data(), s.get()); });
  ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(partial_host_.data(), partial_.data(), blocks * sizeof(physics::FlowSums),
                                      cudaMemcpyDeviceToHost, s.get()));
  s.synchronize();
  for (std::uint32_t b = 0; b < blocks; ++b) total.add(partial_host_[b]);
  return total;
}

void CudaBackend::set_halo_lists(const std::vector<std::vector<std::uint64_t>>& lists, bool device_buffers) {
  device_halo_ = device_buffers;
  halo_.clear();
  std::vector<std::uint32_t> cells;
  for (const auto& list : lists) {
    const std::size_t bytes = list.size() * storage_bytes(storage_);
    parallel::HaloRows rows;
    if (!parallel::split_halo_list(list, stride_, cells, rows))
      throw Error("internal: a halo list not listed slot by slot");
    Halo h{DeviceBuffer<std::uint32_t>(cells.size()), rows, DeviceBuffer<std::byte>(bytes),
           PinnedBuffer<std::byte>(device_buffers ? 0 : bytes)};
    if (!cells.empty()) h.cells.upload(cells);
    halo_.push_back(std::move(h));
  }
}

// Enqueue the pack (and, when staging, its copy to the pinned buffer); MPI reads the buffer
// after wait_halo(), while later kernels (the interior) already run on the stream.
void CudaBackend::pack_halo(int list) {
  Halo& h = halo_[list];
  if (h.rows.count() == 0) return;
  each_storage([&](auto, auto* f) {
    using S = std::remove_pointer_t<decltype(f)>;
    launch_pack(f, stride_, h.cells.data(), h.rows, reinterpret_cast<S*>(h.device.data()), work().get());
  });
  if (device_halo_) {
    halo_event_.record(work());
    return;
  }
  packed_.record(work());
  packed_.make_wait(copy_stream_);
  ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(h.host.data(), h.device.data(), h.device.bytes(), cudaMemcpyDeviceToHost,
                                      copy_stream_.get()));
  halo_event_.record(copy_stream_);
}

void CudaBackend::unpack_halo(int list) {
  Halo& h = halo_[list];
  if (h.rows.count() == 0) return;
  if (!device_halo_) {
    ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(h.device.data(), h.host.data(), h.device.bytes(), cudaMemcpyHostToDevice,
                                        copy_stream_.get()));
    arrived_.record(copy_stream_);
    arrived_.make_wait(boundary_stream_);
  }
  each_storage([&](auto, auto* f) {
    using S = std::remove_pointer_t<decltype(f)>;
    launch_unpack(f, stride_, h.cells.data(), h.rows, reinterpret_cast<const S*>(h.device.data()),
                  boundary_stream_.get());
  });
  unpacked_.record(boundary_stream_);
  unpack_pending_ = true;
}

const Stream& CudaBackend::main_stream() {
  if (unpack_pending_) {
    unpacked_.make_wait(stream_);
    unpack_pending_ = false;
  }
  return stream_;
}

// The host waits for the packs (MPI reads their buffers); the device work enqueued on stream_
// from here on (the next step's interior, sums) waits for all of the boundary work, also where a
// boundary plane sends nothing (an empty halo list records no pack event).
void CudaBackend::wait_halo() {
  halo_event_.synchronize();
  if (boundary_pending_) {
    boundary_done_.make_wait(stream_);
    boundary_pending_ = false;
  }
}

void CudaBackend::end_boundary() {
  in_boundary_ = false;
  boundary_done_.record(boundary_stream_);
  boundary_pending_ = true;
}

void CudaBackend::begin_boundary() {
  step_start_.record(stream_);
  step_start_.make_wait(boundary_stream_);
  in_boundary_ = true;
  unpack_pending_ = false;  // the last step's unpacks come first on the boundary stream
}

void CudaBackend::synchronize() {
  stream_.synchronize();
  boundary_stream_.synchronize();
  copy_stream_.synchronize();
}

void CudaBackend::macroscopic(backend::CellRange c, backend::Macroscopic& out) {
  out.resize(c.size());
  // in chunks, so that the scratch stays small next to the populations
  constexpr std::uint32_t chunk = 1u << 22;
  DeviceBuffer<float> scratch(4 * static_cast<std::size_t>(std::min(chunk, std::max(c.size(), 1u))));
  std::vector<float> host;
  for (std::uint32_t first = c.begin; first < c.end; first += chunk) {
    const std::uint32_t n = std::min(chunk, c.end - first);
    each_storage([&](auto, auto* f) {
      launch_macroscopic<std::remove_pointer_t<decltype(f)>>(f, stride_, first, first + n, params_, scratch.data(),
                                                             main_stream().get());
    });
    main_stream().synchronize();
    scratch.download(host);
    const std::size_t at = first - c.begin;
    std::copy(host.begin(), host.begin() + n, out.drho.begin() + at);
    std::copy(host.begin() + n, host.begin() + 2 * n, out.ux.begin() + at);
    std::copy(host.begin() + 2 * n, host.begin() + 3 * n, out.uy.begin() + at);
    std::copy(host.begin() + 3 * n, host.begin() + 4 * n, out.uz.begin() + at);
  }
}

void CudaBackend::set_planes(int axis, Uninitialized<std::uint16_t> plane_of_owned, std::uint32_t planes) {
  if (plane_of_owned.size() != owned_.size()) throw Error("internal: set_planes with the wrong number of cells");
  plane_axis_ = axis;
  planes_ = planes;
  plane_of_ = DeviceBuffer<std::uint16_t>(plane_of_owned.size());
  if (!plane_of_owned.empty()) plane_of_.upload(plane_of_owned.data(), plane_of_owned.size());
  plane_out_ = DeviceBuffer<unsigned long long>(3 * static_cast<std::size_t>(planes));
}

void CudaBackend::plane_sums(backend::PlaneSums& out) {
  out.drho.assign(planes_, 0);
  out.flux.assign(planes_, 0);
  out.weighted.assign(planes_, 0);
  if (planes_ == 0) return;
  const Stream& s = main_stream();
  ROCKPERM_CUDA_CHECK(cudaMemsetAsync(plane_out_.data(), 0, plane_out_.bytes(), s.get()));
  each_storage([&](auto, auto* f) {
    launch_plane_sums<std::remove_pointer_t<decltype(f)>>(f, stride_, owned_.begin, owned_.end, plane_of_.data(),
                                                          plane_axis_, planes_, params_, plane_out_.data(),
                                                          8 * info_.multiprocessors, s.get());
  });
  s.synchronize();
  std::vector<unsigned long long> host;
  plane_out_.download(host);
  for (std::uint32_t p = 0; p < planes_; ++p) {
    out.drho[p] = static_cast<std::int64_t>(host[p]);
    out.flux[p] = static_cast<std::int64_t>(host[planes_ + p]);
    out.weighted[p] = static_cast<std::int64_t>(host[2 * static_cast<std::size_t>(planes_) + p]);
  }
}

void CudaBackend::rescale(float factor, const physics::CollisionParams& params) {
  params_ = params;
  params_.phases = phases_.size() ? phases_.data() : nullptr;
  if (factor == 1.0f) return;
  const Stream& s = main_stream();
  each_storage([&](auto slot, auto* f) { launch_scale(f, f_.size() / sizeof(slot), factor, s.get()); });
  if (held_.size() > 0) launch_scale(held_.data(), held_.size(), factor, s.get());
  s.synchronize();
}

void CudaBackend::density_pass(int pass, float arg, const std::array<float, 3>& g) {
  const Stream& s = main_stream();
  const bool sums = pass == static_cast<int>(DensityPass::peak) || pass == static_cast<int>(DensityPass::products);
  if (sums) ROCKPERM_CUDA_CHECK(cudaMemsetAsync(density_out_.data(), 0, density_out_.bytes(), s.get()));
  each_storage([&](auto, auto* f) {
    launch_density_pass<std::remove_pointer_t<decltype(f)>>(static_cast<DensityPass>(pass), f, stride_, owned_.begin,
                                                           owned_.end, held_.data(), arg, density_out_.data(), s.get(), g[0],
                                                           g[1], g[2]);
  });
  s.synchronize();
}

bool CudaBackend::hold_density(bool keep_change) {
  const std::size_t n = owned_.size();
  if (held_.size() != 2 * n) {
    try {
      held_ = DeviceBuffer<float>(2 * n);
      density_out_ = DeviceBuffer<unsigned long long>(3);
    } catch (const std::exception&) {  // out of device memory: the run goes on without
      held_ = DeviceBuffer<float>();
      cudaGetLastError();  // clears the allocation's error
      return false;
    }
    ROCKPERM_CUDA_CHECK(cudaMemset(held_.data(), 0, held_.bytes()));
  }
  density_pass(static_cast<int>(DensityPass::hold), keep_change ? 1.0f : 0.0f);
  return true;
}

float CudaBackend::density_change_peak() {
  if (held_.size() == 0) return 0.0f;
  density_pass(static_cast<int>(DensityPass::peak), 0.0f);
  std::vector<unsigned long long> out;
  density_out_.download(out);
  const auto bits = static_cast<std::uint32_t>(out[0]);
  float peak;
  std::memcpy(&peak, &bits, sizeof peak);
  return peak;
}

physics::DensityProducts CudaBackend::density_products(float scale) {
  if (held_.size() == 0) return {};
  density_pass(static_cast<int>(DensityPass::products), scale);
  std::vector<unsigned long long> out;
  density_out_.download(out);
  return physics::DensityProducts{static_cast<long long>(out[0]), static_cast<long long>(out[1]),
                                  static_cast<long long>(out[2])};
}

void CudaBackend::extrapolate_density(float factor) {
  if (held_.size() == 0) return;
  density_pass(static_cast<int>(DensityPass::extrapolate), factor);
}

void CudaBackend::extrapolate_density_at_rest(float factor, const std::array<float, 3>& acceleration) {
  if (held_.size() == 0) return;
  density_pass(static_cast<int>(DensityPass::extrapolate_at_rest), factor, acceleration);
}

void CudaBackend::held_densities(std::vector<float>& out) {
  main_stream().synchronize();
  held_.download(out);
}

void CudaBackend::restore_held_densities(const std::vector<float>& in) {
  if (in.empty()) {
    held_ = DeviceBuffer<float>();
    return;
  }
  if (in.size() != 2 * static_cast<std::size_t>(owned_.size())) {
    throw Error("internal: restore_held_densities of the wrong size");
  }
  if (!hold_density(false)) throw RuntimeFailure("the device has no memory left for the pressure extrapolation");
  held_.upload(in);
}

void CudaBackend::download_raw(std::vector<std::byte>& f) {
  main_stream().synchronize();
  f_.download(f);
}

void CudaBackend::upload_raw(const std::vector<std::byte>& f) {
  if (f.size() != f_.size()) throw Error("internal: upload of " + std::to_string(f.size()) + " bytes of populations");
  main_stream().synchronize();
  f_.upload(f);
}

double copy_bandwidth_gbs(int device) {
  ROCKPERM_CUDA_CHECK(cudaSetDevice(device));
  Stream stream;
  const std::size_t bytes = std::size_t{1} << 30;
  DeviceBuffer<char> a(bytes), b(bytes);
  ROCKPERM_CUDA_CHECK(cudaMemsetAsync(a.data(), 1, bytes, stream.get()));
  std::vector<float> ms;
  for (int rep = 0; rep < 12; ++rep) {
    Event start, stop;
    start.record(stream);
    ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    stop.record(stream);
    stop.synchronize();
    if (rep >= 2) ms.push_back(stop.elapsed_ms_since(start));
  }
  std::sort(ms.begin(), ms.end());
  return 2.0 * bytes / (ms[ms.size() / 2] * 1e-3) * 1e-9;
}

}  // namespace rockperm::cuda
