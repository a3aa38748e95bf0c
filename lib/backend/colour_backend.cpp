#include "lib/backend/colour_backend.hpp"

#include "lib/lattice/colour_propagation.hpp"

namespace rockperm::backend {

ColourBackend::Sums ColourBackend::from_fixed(double cells, const long long* totals, const std::vector<long long>& planes) {
  const double unit = 1.0 / lattice::colour_step::sum_scale;
  Sums s;
  s.cells = cells;
  s.fraction_a = totals[0] * unit;
  s.mass_a = totals[1] * unit;
  s.mass_b = totals[2] * unit;
  s.finite = totals[lattice::colour_step::sum_count - 1] == 0;
  // the face after plane p passes p's + populations less plane p + 1's - ones
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
