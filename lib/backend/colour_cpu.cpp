#include "lib/backend/colour_cpu.hpp"

#include <string>
#include <utility>

#include "lib/base/error.hpp"

namespace rockperm::backend {

namespace colour = physics::colour;

ColourCpu::ColourCpu(const lattice::SparseLattice& lattice, const colour::ColourParams& params,
                     std::span<const float> phi)
    : lattice_(lattice), params_(params), cells_(lattice.fluid_count()), stride_(lattice.stride()) {
  if (!lattice.has_negative()) throw Error("internal: the colour model's lattice needs its negative table");
  if (phi.size() != cells_) {
    throw Error("internal: the colour model's start has " + std::to_string(phi.size()) + " phase values for " +
                std::to_string(cells_) + " cells");
  }
  std::tie(positive_, negative_) = lattice.tables(own_tables_);
  f_.assign(d3q19::q * stride_, 0.0f);
  a_.assign(colour::q7 * stride_, 0.0f);
  b_.assign(colour::q7 * stride_, 0.0f);
  f_next_ = f_;
  a_next_ = a_;
  b_next_ = b_;
  phi_.assign(stride_, 0.0f);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(cells_); ++c) {
    float f[d3q19::q], a[colour::q7], b[colour::q7];
    colour::rest_state(phi[c], params_, f, a, b);
    for (int i = 0; i < d3q19::q; ++i) f_[i * stride_ + c] = f[i];
    for (int k = 0; k < colour::q7; ++k) {
      a_[k * stride_ + c] = a[k];
      b_[k * stride_ + c] = b[k];
    }
  }
}

std::uint32_t ColourCpu::neighbour(std::uint32_t cell, int i) const {
  return i <= d3q19::half ? positive_[(i - 1) * stride_ + cell] : negative_[(i - 1 - d3q19::half) * stride_ + cell];
}

void ColourCpu::compute_phi(std::vector<float>& phi) const {
  phi.resize(stride_);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(cells_); ++c) {
    float na = 0.0f, nb = 0.0f;
    for (int k = 0; k < colour::q7; ++k) {
      na += a_[k * stride_ + c];
      nb += b_[k * stride_ + c];
    }
    phi[c] = na + nb > 0.0f ? (na - nb) / (na + nb) : 0.0f;
  }
}

void ColourCpu::gather(std::uint32_t cell, const std::vector<float>& phi, float (&f)[d3q19::q],
                       float (&a)[colour::q7], float (&b)[colour::q7], float (&around)[d3q19::q]) const {
  for (int i = 0; i < d3q19::q; ++i) f[i] = f_[i * stride_ + cell];
  for (int k = 0; k < colour::q7; ++k) {
    a[k] = a_[k * stride_ + cell];
    b[k] = b_[k * stride_ + cell];
  }
  around[0] = phi[cell];
  for (int i = 1; i < d3q19::q; ++i) {
    const std::uint32_t t = neighbour(cell, i);
    around[i] = t == lattice::none ? params_.wall_phi : phi[t];
  }
}

void ColourCpu::advance(std::int64_t steps) {
  const auto n = static_cast<std::int64_t>(cells_);
  for (std::int64_t s = 0; s < steps; ++s) {
    compute_phi(phi_);
    // collide and recolour in place
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < n; ++c) {
      float f[d3q19::q], a[colour::q7], b[colour::q7], around[d3q19::q];
      gather(static_cast<std::uint32_t>(c), phi_, f, a, b, around);
      colour::collide_colour(f, a, b, colour::interface_at(around), params_);
      for (int i = 0; i < d3q19::q; ++i) f_[i * stride_ + c] = f[i];
      for (int k = 0; k < colour::q7; ++k) {
        a_[k * stride_ + c] = a[k];
        b_[k * stride_ + c] = b[k];
      }
    }
    // pull streaming: population i of a cell comes from the cell behind it along e_i, or, where
    // that is a wall, is the cell's own opposite one (half-way bounce-back)
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < n; ++c) {
      const auto cell = static_cast<std::uint32_t>(c);
      f_next_[c] = f_[c];
      for (int i = 1; i < d3q19::q; ++i) {
        const std::uint32_t from = neighbour(cell, d3q19::opposite(i));
        f_next_[i * stride_ + c] =
            from == lattice::none ? f_[d3q19::opposite(i) * stride_ + c] : f_[i * stride_ + from];
      }
      a_next_[c] = a_[c];
      b_next_[c] = b_[c];
      for (int k = 1; k < colour::q7; ++k) {
        const std::uint32_t from = neighbour(cell, d3q19::opposite(colour::d3q19_direction(k)));
        const std::uint64_t slot = from == lattice::none ? colour::opposite7(k) * stride_ + c : k * stride_ + from;
        a_next_[k * stride_ + c] = a_[slot];
        b_next_[k * stride_ + c] = b_[slot];
      }
    }
    std::swap(f_, f_next_);
    std::swap(a_, a_next_);
    std::swap(b_, b_next_);
    ++step_;
  }
}

ColourCpu::Fields ColourCpu::fields() const {
  Fields out;
  std::vector<float> phi;
  compute_phi(phi);
  out.phi.assign(phi.begin(), phi.begin() + cells_);
  out.drho.resize(cells_);
  out.u.resize(3 * std::size_t{cells_});
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(cells_); ++c) {
    float f[d3q19::q], a[colour::q7], b[colour::q7], around[d3q19::q];
    gather(static_cast<std::uint32_t>(c), phi, f, a, b, around);
    const colour::ColourMoments m = colour::colour_moments(f, a, b, colour::interface_at(around), params_);
    out.drho[c] = m.drho;
    for (int k = 0; k < 3; ++k) out.u[3 * c + k] = m.u[k];
  }
  return out;
}

ColourCpu::Sums ColourCpu::sums() const {
  const Fields fl = fields();
  Sums s;
  s.cells = cells_;
  for (std::uint32_t c = 0; c < cells_; ++c) {
    const double fa = colour::fraction_a(fl.phi[c]);
    s.fraction_a += fa;
    for (int k = 0; k < colour::q7; ++k) {
      s.mass_a += a_[k * stride_ + c];
      s.mass_b += b_[k * stride_ + c];
    }
    for (int k = 0; k < 3; ++k) {
      s.flux_a[k] += fa * fl.u[3 * c + k];
      s.flux_b[k] += (1.0 - fa) * fl.u[3 * c + k];
    }
  }
  return s;
}

}  // namespace rockperm::backend
