#include "lib/backend/colour_cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "lib/base/error.hpp"

namespace rockperm::backend {

namespace colour = physics::colour;
namespace step = lattice::colour_step;

ColourCpu::ColourCpu(const lattice::SparseLattice& lattice, const colour::ColourParams& params,
                     std::span<const float> phi, physics::Storage storage, std::uint32_t cell_offset)
    : ColourBackend(params, storage), lattice_(lattice), cells_(lattice.fluid_count()), begin_(lattice.owned_begin()),
      end_(lattice.owned_end()), stride_(lattice.stride()), cell_offset_(cell_offset) {
  if (!lattice.has_negative()) throw Error("internal: the colour model's lattice needs its negative table");
  if (phi.size() != cells_) {
    throw Error("internal: the colour model's start has " + std::to_string(phi.size()) + " phase values for " +
                std::to_string(cells_) + " cells");
  }
  std::tie(positive_, negative_) = lattice.tables(own_tables_);
  f_.assign(d3q19::q * stride_ * physics::storage_bytes(storage_) / sizeof(std::uint16_t), 0);
  f_next_ = f_;
  a_.assign(colour::q7 * stride_, 0.0f);
  b_.assign(colour::q7 * stride_, 0.0f);
  phi_.assign(stride_, 0.0f);
  na_ = phi_;
  nb_ = phi_;
  physics::with_storage(storage_, [&](auto s) {
    const step::Cells<decltype(s)> c = cells<decltype(s)>();
#pragma omp parallel for schedule(static)
    for (std::int64_t cell = begin_; cell < end_; ++cell) step::start(c, cell, phi[cell], params_);
  });
}

template <class S>
step::Cells<S> ColourCpu::cells() {
  return {reinterpret_cast<S*>(f_.data()), a_.data(), b_.data(), phi_.data(), na_.data(), nb_.data(),
          wall_phi_.empty() ? nullptr : wall_phi_.data(), positive_, negative_, stride_, cell_offset_};
}

void ColourCpu::set_wall_phi(std::span<const float> per_cell) {
  if (!per_cell.empty() && per_cell.size() != cells_) {
    throw Error("internal: the colour model's wetting has " + std::to_string(per_cell.size()) + " values for " +
                std::to_string(cells_) + " cells");
  }
  wall_phi_.assign(per_cell.begin(), per_cell.end());
}

void ColourCpu::set_sources(std::span<const std::uint32_t> to_a, std::span<const std::uint32_t> to_b) {
  for (const auto list : {to_a, to_b}) {
    for (const std::uint32_t c : list) {
      if (c < begin_ || c >= end_) throw Error("internal: a colour source at cell " + std::to_string(c) + ", not an owned cell");
    }
  }
  sources_[0].assign(to_a.begin(), to_a.end());
  sources_[1].assign(to_b.begin(), to_b.end());
}

void ColourCpu::phase_pass() {
  const step::Cells<float> c = cells<float>();  // the phase pass reads no momentum population
#pragma omp parallel for schedule(static)
  for (std::int64_t cell = begin_; cell < end_; ++cell) step::phase(c, cell);
}

void ColourCpu::collide_pass() {
  const std::uint32_t seed = physics::step_seed(step_);
  physics::with_storage(storage_, [&](auto slot) {
    using S = decltype(slot);
    const step::Cells<S> c = cells<S>();
    S* const out = reinterpret_cast<S*>(f_next_.data());
#pragma omp parallel for schedule(static)
    for (std::int64_t cell = begin_; cell < end_; ++cell) step::collide(c, out, cell, params_, seed);
  });
  for (int phase = 0; phase < 2; ++phase) {
    for (const std::uint32_t cell : sources_[phase]) step::feed(a_.data(), b_.data(), stride_, cell, phase == 0);
  }
  std::swap(f_, f_next_);
  ++step_;
}

std::string ColourCpu::description() const {
  return "cpu (OpenMP, " + std::to_string(omp_get_max_threads()) + " threads, " + physics::to_string(storage_) + ")";
}

ColourCpu::Fields ColourCpu::fields_now() {
  const auto n = static_cast<std::int64_t>(cells_);
  Fields out;
  out.phi.assign(phi_.begin(), phi_.begin() + n);
  out.na.assign(cells_, 0.0f);
  out.nb.assign(cells_, 0.0f);
  out.drho.assign(cells_, 0.0f);
  out.u.assign(3 * std::size_t{cells_}, 0.0f);
  physics::with_storage(storage_, [&](auto slot) {
    const step::Cells<decltype(slot)> c = cells<decltype(slot)>();
#pragma omp parallel for schedule(static)
    for (std::int64_t cell = begin_; cell < end_; ++cell) {
      const colour::ColourMoments m = step::moments(c, cell, params_);
      out.na[cell] = m.na;
      out.nb[cell] = m.nb;
      out.drho[cell] = m.drho;
      for (int k = 0; k < 3; ++k) out.u[3 * cell + k] = m.u[k];
    }
  });
  return out;
}

ColourCpu::FixedSums ColourCpu::fixed_sums_now(int plane_axis) {
  const std::int64_t planes = plane_axis >= 0 ? lattice_.dims()[plane_axis] : 0;
  FixedSums out;
  out.cells = static_cast<std::uint64_t>(end_ - begin_);
  out.totals.assign(step::sum_count, 0);
  out.planes.assign(4 * static_cast<std::size_t>(planes), 0);
  physics::with_storage(storage_, [&](auto slot) {
    const step::Cells<decltype(slot)> c = cells<decltype(slot)>();
#pragma omp parallel
    {
      long long mine[step::sum_count] = {};
      unsigned long long my_fastest = 0;
      std::vector<long long> my_bins(out.planes.size(), 0);
#pragma omp for schedule(static)
      for (std::int64_t cell = begin_; cell < end_; ++cell) {
        long long v[step::sum_count], faces[4];
        unsigned long long speed = 0;
        step::cell_sums(c, cell, params_, v, speed, plane_axis, planes > 0 ? faces : nullptr);
        for (int k = 0; k < step::sum_count; ++k) mine[k] += v[k];
        my_fastest = std::max(my_fastest, speed);
        if (planes > 0) {
          const lattice::Coord& k = lattice_.coords()[cell];
          const std::int64_t plane = plane_axis == 0 ? k.x : (plane_axis == 1 ? k.y : k.z);
          for (int f = 0; f < 4; ++f) my_bins[4 * plane + f] += faces[f];
        }
      }
#pragma omp critical
      {
        for (int k = 0; k < step::sum_count; ++k) out.totals[k] += mine[k];
        out.fastest = std::max<std::uint64_t>(out.fastest, my_fastest);
        for (std::size_t b = 0; b < out.planes.size(); ++b) out.planes[b] += my_bins[b];
      }
    }
  });
  return out;
}

void ColourCpu::pack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, std::uint8_t* out) {
  halo_pieces(what, dir, f_.data(), a_.data(), b_.data(), phi_.data(), stride_, [&](const std::uint8_t* base, std::size_t bytes) {
    std::memcpy(out, base + first * bytes, (end - first) * bytes);
    out += (end - first) * bytes;
  });
}

void ColourCpu::unpack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, const std::uint8_t* in) {
  halo_pieces(what, dir, f_.data(), a_.data(), b_.data(), phi_.data(), stride_, [&](std::uint8_t* base, std::size_t bytes) {
    std::memcpy(base + first * bytes, in, (end - first) * bytes);
    in += (end - first) * bytes;
  });
}

}  // namespace rockperm::backend
