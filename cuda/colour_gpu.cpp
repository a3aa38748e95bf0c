#include "cuda/colour_gpu.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cuda/colour_kernels.hpp"
#include "lib/base/error.hpp"

namespace rockperm::cuda {

namespace step = lattice::colour_step;
namespace colour = physics::colour;

namespace {

template <class T>
DeviceBuffer<T> upload(const T* host, std::size_t count) {
  DeviceBuffer<T> out(count);
  out.upload(host, count);
  return out;
}

}  // namespace

ColourGpu::ColourGpu(const lattice::SparseLattice& lattice, const colour::ColourParams& params,
                     std::span<const float> phi, int device, physics::Storage storage, std::uint32_t cell_offset)
    : ColourBackend(params, storage), lattice_(lattice), info_(select_device(device)), cells_(lattice.fluid_count()),
      begin_(lattice.owned_begin()), end_(lattice.owned_end()), stride_(lattice.stride()), cell_offset_(cell_offset) {
  if (!lattice.has_negative()) throw Error("internal: the colour model's lattice needs its negative table");
  if (phi.size() != cells_) {
    throw Error("internal: the colour model's start has " + std::to_string(phi.size()) + " phase values for " +
                std::to_string(cells_) + " cells");
  }
  lattice::NeighbourTables scratch;
  const auto [positive, negative] = lattice.tables(scratch);
  positive_ = upload(positive, d3q19::half * stride_);
  negative_ = upload(negative, d3q19::half * stride_);
  f_ = DeviceBuffer<std::uint16_t>(d3q19::q * stride_ * physics::storage_bytes(storage_) / sizeof(std::uint16_t));
  f_next_ = DeviceBuffer<std::uint16_t>(f_.size());
  a_ = DeviceBuffer<float>(colour::q7 * stride_);
  b_ = DeviceBuffer<float>(colour::q7 * stride_);
  phi_ = DeviceBuffer<float>(stride_);
  na_ = DeviceBuffer<float>(stride_);
  nb_ = DeviceBuffer<float>(stride_);
  totals_ = DeviceBuffer<unsigned long long>(step::sum_count + 1);  // the sums, the largest speed
  // the padding slots are never read; zero them once so that a download is defined
  for (DeviceBuffer<float>* buffer : {&a_, &b_, &phi_, &na_, &nb_}) {
    ROCKPERM_CUDA_CHECK(cudaMemsetAsync(buffer->data(), 0, buffer->bytes(), stream_.get()));
  }
  for (DeviceBuffer<std::uint16_t>* buffer : {&f_, &f_next_}) {
    ROCKPERM_CUDA_CHECK(cudaMemsetAsync(buffer->data(), 0, buffer->bytes(), stream_.get()));
  }
  const DeviceBuffer<float> start = upload(phi.data(), phi.size());
  physics::with_storage(storage_, [&](auto s) {
    launch_colour_start(cells<decltype(s)>(), begin_, end_, start.data(), params_, stream_.get());
  });
  stream_.synchronize();
}

template <class S>
step::Cells<S> ColourGpu::cells() {
  return {reinterpret_cast<S*>(f_.data()), a_.data(), b_.data(), phi_.data(), na_.data(), nb_.data(),
          wall_phi_.size() == 0 ? nullptr : wall_phi_.data(), positive_.data(), negative_.data(), stride_, cell_offset_};
}

void ColourGpu::set_wall_phi(std::span<const float> per_cell) {
  if (!per_cell.empty() && per_cell.size() != cells_) {
    throw Error("internal: the colour model's wetting has " + std::to_string(per_cell.size()) + " values for " +
                std::to_string(cells_) + " cells");
  }
  wall_phi_ = per_cell.empty() ? DeviceBuffer<float>() : upload(per_cell.data(), per_cell.size());
}

void ColourGpu::set_sources(std::span<const std::uint32_t> to_a, std::span<const std::uint32_t> to_b) {
  int phase = 0;
  for (const auto list : {to_a, to_b}) {
    for (const std::uint32_t c : list) {
      if (c < begin_ || c >= end_) throw Error("internal: a colour source at cell " + std::to_string(c) + ", not an owned cell");
    }
    sources_[phase++] = list.empty() ? DeviceBuffer<std::uint32_t>() : upload(list.data(), list.size());
  }
}

std::string ColourGpu::description() const {
  char text[200];
  std::snprintf(text, sizeof text, "cuda device %d: %s (sm_%d%d, %d SMs, %s)", info_.index, info_.name.c_str(),
                info_.major, info_.minor, info_.multiprocessors, physics::to_string(storage_));
  return text;
}

void ColourGpu::phase_pass() {
  launch_colour_phase(cells<float>(), begin_, end_, stream_.get());  // the phase pass reads no momentum population
}

void ColourGpu::collide_pass() {
  const std::uint32_t seed = physics::step_seed(step_);
  physics::with_storage(storage_, [&](auto slot) {
    using S = decltype(slot);
    launch_colour_collide(cells<S>(), reinterpret_cast<S*>(f_next_.data()), begin_, end_, params_, seed, stream_.get());
  });
  for (int phase = 0; phase < 2; ++phase) {
    launch_colour_feed(a_.data(), b_.data(), stride_, sources_[phase].data(),
                       static_cast<std::uint32_t>(sources_[phase].size()), phase == 0, stream_.get());
  }
  std::swap(f_, f_next_);
  ++step_;
}

void ColourGpu::advance(std::int64_t steps) {
  ColourBackend::advance(steps);
  stream_.synchronize();
}

ColourGpu::Fields ColourGpu::fields_now() {
  if (moments_.size() == 0) moments_ = DeviceBuffer<float>(6 * stride_);
  ROCKPERM_CUDA_CHECK(cudaMemsetAsync(moments_.data(), 0, moments_.bytes(), stream_.get()));
  physics::with_storage(storage_, [&](auto slot) {
    launch_colour_moments(cells<decltype(slot)>(), begin_, end_, params_, moments_.data(), stream_.get());
  });
  stream_.synchronize();
  std::vector<float> host, phi;
  moments_.download(host);
  phi_.download(phi);
  Fields fl;
  const auto part = [&](int k) { return std::vector<float>(host.begin() + k * stride_, host.begin() + k * stride_ + cells_); };
  fl.phi.assign(phi.begin(), phi.begin() + cells_);
  fl.na = part(0);
  fl.nb = part(1);
  fl.drho = part(2);
  fl.u.resize(3 * std::size_t{cells_});
  for (std::uint32_t c = 0; c < cells_; ++c)
    for (int k = 0; k < 3; ++k) fl.u[3 * std::size_t{c} + k] = host[(3 + k) * stride_ + c];
  return fl;
}

ColourGpu::FixedSums ColourGpu::fixed_sums_now(int plane_axis) {
  const std::uint32_t planes = plane_axis >= 0 ? static_cast<std::uint32_t>(lattice_.dims()[plane_axis]) : 0;
  if (plane_axis >= 0 && plane_axis != plane_axis_) {
    std::vector<std::uint16_t> plane(cells_);
    for (std::uint32_t c = 0; c < cells_; ++c) {
      const lattice::Coord& k = lattice_.coords()[c];
      plane[c] = plane_axis == 0 ? k.x : (plane_axis == 1 ? k.y : k.z);
    }
    plane_of_ = upload(plane.data(), plane.size());
    bins_ = DeviceBuffer<unsigned long long>(4 * std::size_t{planes});
    plane_axis_ = plane_axis;
  }
  ROCKPERM_CUDA_CHECK(cudaMemsetAsync(totals_.data(), 0, totals_.bytes(), stream_.get()));
  if (planes > 0) ROCKPERM_CUDA_CHECK(cudaMemsetAsync(bins_.data(), 0, bins_.bytes(), stream_.get()));
  physics::with_storage(storage_, [&](auto slot) {
    launch_colour_sums(cells<decltype(slot)>(), begin_, end_, params_, planes > 0 ? plane_of_.data() : nullptr,
                       plane_axis, planes, totals_.data(), planes > 0 ? bins_.data() : nullptr, stream_.get());
  });
  stream_.synchronize();
  std::vector<unsigned long long> t, b;
  totals_.download(t);
  if (planes > 0) bins_.download(b);
  FixedSums out;
  out.cells = end_ - begin_;
  out.totals.assign(t.begin(), t.begin() + step::sum_count);  // two's complement
  out.fastest = t[step::sum_count];
  out.planes.assign(b.begin(), b.end());
  return out;
}

void ColourGpu::pack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, std::uint8_t* out) {
  halo_pieces(what, dir, f_.data(), a_.data(), b_.data(), phi_.data(), stride_, [&](const std::uint8_t* base, std::size_t bytes) {
    ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(out, base + first * bytes, (end - first) * bytes, cudaMemcpyDeviceToHost, stream_.get()));
    out += (end - first) * bytes;
  });
  stream_.synchronize();
}

void ColourGpu::unpack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, const std::uint8_t* in) {
  halo_pieces(what, dir, f_.data(), a_.data(), b_.data(), phi_.data(), stride_, [&](std::uint8_t* base, std::size_t bytes) {
    ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(base + first * bytes, in, (end - first) * bytes, cudaMemcpyHostToDevice, stream_.get()));
    in += (end - first) * bytes;
  });
  stream_.synchronize();
}

}  // namespace rockperm::cuda
