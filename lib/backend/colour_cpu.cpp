#include "lib/backend/colour_cpu.hpp"

#include <omp.h>

#include <string>
#include <utility>

#include "lib/base/error.hpp"

namespace rockperm::backend {

namespace colour = physics::colour;
namespace step = lattice::colour_step;

ColourCpu::ColourCpu(const lattice::SparseLattice& lattice, const colour::ColourParams& params,
                     std::span<const float> phi, physics::Storage storage)
    : ColourBackend(params), lattice_(lattice), cells_(lattice.fluid_count()), stride_(lattice.stride()), storage_(storage) {
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
    for (std::int64_t cell = 0; cell < static_cast<std::int64_t>(cells_); ++cell) step::start(c, cell, phi[cell], params_);
  });
}

template <class S>
step::Cells<S> ColourCpu::cells() {
  return {reinterpret_cast<S*>(f_.data()), a_.data(), b_.data(), phi_.data(), na_.data(), nb_.data(),
          wall_phi_.empty() ? nullptr : wall_phi_.data(), positive_, negative_, stride_};
}

void ColourCpu::set_wall_phi(std::span<const float> per_cell) {
  if (!per_cell.empty() && per_cell.size() != cells_) {
    throw Error("internal: the colour model's wetting has " + std::to_string(per_cell.size()) + " values for " +
                std::to_string(cells_) + " cells");
  }
  wall_phi_.assign(per_cell.begin(), per_cell.end());
}

void ColourCpu::compute_phase() {
  const step::Cells<float> c = cells<float>();  // the phase pass reads no momentum population
#pragma omp parallel for schedule(static)
  for (std::int64_t cell = 0; cell < static_cast<std::int64_t>(cells_); ++cell) step::phase(c, cell);
}

void ColourCpu::advance(std::int64_t steps) {
  const auto n = static_cast<std::int64_t>(cells_);
  for (std::int64_t s = 0; s < steps; ++s) {
    compute_phase();
    const std::uint32_t seed = physics::step_seed(step_);
    physics::with_storage(storage_, [&](auto slot) {
      using S = decltype(slot);
      const step::Cells<S> c = cells<S>();
      S* const out = reinterpret_cast<S*>(f_next_.data());
#pragma omp parallel for schedule(static)
      for (std::int64_t cell = 0; cell < n; ++cell) step::collide(c, out, cell, params_, seed);
    });
    std::swap(f_, f_next_);
    ++step_;
  }
}

std::string ColourCpu::description() const {
  return "cpu (OpenMP, " + std::to_string(omp_get_max_threads()) + " threads, " + physics::to_string(storage_) + ")";
}

ColourCpu::Fields ColourCpu::fields() {
  compute_phase();
  const auto n = static_cast<std::int64_t>(cells_);
  Fields out;
  out.phi.assign(phi_.begin(), phi_.begin() + n);
  out.na.resize(cells_);
  out.nb.resize(cells_);
  out.drho.resize(cells_);
  out.u.resize(3 * std::size_t{cells_});
  physics::with_storage(storage_, [&](auto slot) {
    const step::Cells<decltype(slot)> c = cells<decltype(slot)>();
#pragma omp parallel for schedule(static)
    for (std::int64_t cell = 0; cell < n; ++cell) {
      const colour::ColourMoments m = step::moments(c, cell, params_);
      out.na[cell] = m.na;
      out.nb[cell] = m.nb;
      out.drho[cell] = m.drho;
      for (int k = 0; k < 3; ++k) out.u[3 * cell + k] = m.u[k];
    }
  });
  return out;
}

ColourCpu::Sums ColourCpu::sums(int plane_axis) {
  compute_phase();
  const std::int64_t planes = plane_axis >= 0 ? lattice_.dims()[plane_axis] : 0;
  long long totals[step::sum_count] = {};
  std::vector<long long> bins(4 * static_cast<std::size_t>(planes), 0);
  const auto n = static_cast<std::int64_t>(cells_);
  physics::with_storage(storage_, [&](auto slot) {
    const step::Cells<decltype(slot)> c = cells<decltype(slot)>();
#pragma omp parallel
    {
      long long mine[step::sum_count] = {};
      std::vector<long long> my_bins(bins.size(), 0);
#pragma omp for schedule(static)
      for (std::int64_t cell = 0; cell < n; ++cell) {
        long long v[step::sum_count], faces[4];
        step::cell_sums(c, cell, params_, v, plane_axis, planes > 0 ? faces : nullptr);
        for (int k = 0; k < step::sum_count; ++k) mine[k] += v[k];
        if (planes > 0) {
          const lattice::Coord& k = lattice_.coords()[cell];
          const std::int64_t plane = plane_axis == 0 ? k.x : (plane_axis == 1 ? k.y : k.z);
          for (int f = 0; f < 4; ++f) my_bins[4 * plane + f] += faces[f];
        }
      }
#pragma omp critical
      {
        for (int k = 0; k < step::sum_count; ++k) totals[k] += mine[k];
        for (std::size_t b = 0; b < bins.size(); ++b) bins[b] += my_bins[b];
      }
    }
  });
  return from_fixed(static_cast<double>(cells_), totals, bins);
}

}  // namespace rockperm::backend
