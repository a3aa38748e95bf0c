#include "lib/solve/time_scales.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "lib/physics/d3q19.hpp"

namespace rockperm::solve {

TimeScales time_scales(const geometry::PoreStatistics& s, double length, double nu) {
  const double pi2 = std::numbers::pi * std::numbers::pi;
  TimeScales t;
  t.momentum = s.hydraulic_diameter * s.hydraulic_diameter / (pi2 * nu);
  t.pressure = s.kozeny_carman_k > 0 ? length * length * nu * s.porosity / (pi2 * s.kozeny_carman_k * d3q19::cs2) : 0;
  return t;
}

double fastest_tau(const geometry::PoreStatistics& s, double length) {
  if (!(s.kozeny_carman_k > 0) || !(s.porosity > 0) || !(length > 0)) return 1.0;
  const double nu =
      auto_tau_alpha * (s.hydraulic_diameter / length) * std::sqrt(s.kozeny_carman_k * d3q19::cs2 / s.porosity);
  return std::clamp(0.5 + 3.0 * nu, min_auto_tau, max_auto_tau);
}

}  // namespace rockperm::solve
