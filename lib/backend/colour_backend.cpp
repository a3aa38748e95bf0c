#include "lib/backend/colour_backend.hpp"

namespace rockperm::backend {

ColourBackend::Sums ColourBackend::sums() {
  const Fields fl = fields();
  Sums s;
  s.cells = static_cast<double>(fl.phi.size());
  for (std::size_t c = 0; c < fl.phi.size(); ++c) {
    const double fa = physics::colour::fraction_a(fl.phi[c]);
    s.fraction_a += fa;
    s.mass_a += fl.na[c];
    s.mass_b += fl.nb[c];
    for (int k = 0; k < 3; ++k) {
      s.flux_a[k] += fa * fl.u[3 * c + k];
      s.flux_b[k] += (1.0 - fa) * fl.u[3 * c + k];
    }
  }
  return s;
}

}  // namespace rockperm::backend
