#include "lib/backend/colour_backend.hpp"

#include "lib/lattice/colour_propagation.hpp"

namespace rockperm::backend {

void ColourBackend::advance(std::int64_t steps) {
  for (std::int64_t s = 0; s < steps; ++s) {
    phase_pass();
    collide_pass();
  }
}

ColourBackend::Fields ColourBackend::fields() {
  phase_pass();
  return fields_now();
}

ColourBackend::Sums ColourBackend::sums(int plane_axis) {
  phase_pass();
  return from_fixed(fixed_sums_now(plane_axis));
}

std::size_t ColourBackend::halo_bytes(Halo what, std::uint64_t cells) const {
  const std::size_t per_cell = what == Halo::phase ? sizeof(float)
                                                   : lattice::colour_step::halo_f_slots * physics::storage_bytes(storage_) +
                                                         2 * sizeof(float);
  return per_cell * cells;
}

ColourBackend::Sums ColourBackend::from_fixed(const FixedSums& fixed) {
  const double unit = 1.0 / lattice::colour_step::sum_scale;
  const std::vector<long long>& t = fixed.totals;
  Sums s;
  s.cells = static_cast<double>(fixed.cells);
  s.fraction_a = t[0] * unit;
  s.mass_a = t[1] * unit;
  s.mass_b = t[2] * unit;
  s.finite = t[lattice::colour_step::sum_count - 1] == 0;
  s.fastest = static_cast<double>(fixed.fastest) * unit;
  // the face after plane p passes p's + populations less plane p + 1's - ones
  const std::vector<long long>& planes = fixed.planes;
  const std::size_t n = planes.size() / 4;
  s.plane_a.resize(n);
  s.plane_b.resize(n);
  for (std::size_t p = 0; p < n; ++p) {
    const std::size_t next = (p + 1) % n;
    s.plane_a[p] = static_cast<double>(planes[4 * p] - planes[4 * next + 1]) * unit;
    s.plane_b[p] = static_cast<double>(planes[4 * p + 2] - planes[4 * next + 3]) * unit;
  }
  return s;
}

}  // namespace rockperm::backend
