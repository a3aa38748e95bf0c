#include "lib/geometry/pore_statistics.hpp"

#include <algorithm>

namespace rockperm {

PoreStatistics pore_statistics(const PoreMask& mask) {
  const Dims& d = mask.dims;
  std::uint64_t faces = 0;
  for (std::int64_t z = 0; z < d.nz; ++z) {
    for (std::int64_t y = 0; y < d.ny; ++y) {
      for (std::int64_t x = 0; x < d.nx; ++x) {
        const bool here = mask.is_pore(x, y, z);
        if (x + 1 < d.nx && here != mask.is_pore(x + 1, y, z)) ++faces;
        if (y + 1 < d.ny && here != mask.is_pore(x, y + 1, z)) ++faces;
        if (z + 1 < d.nz && here != mask.is_pore(x, y, z + 1)) ++faces;
      }
    }
  }
  PoreStatistics s;
  const double voxels = static_cast<double>(d.voxels());
  s.porosity = static_cast<double>(mask.pore_count()) / voxels;
  s.specific_surface = static_cast<double>(faces) / voxels;
  if (s.specific_surface > 0) {
    s.hydraulic_diameter = 4.0 * s.porosity / s.specific_surface;
    const double open = std::max(s.porosity - percolation_porosity, 0.1 * s.porosity);
    s.kozeny_carman_k = open * open * open / (kozeny_constant * s.specific_surface * s.specific_surface);
  }
  return s;
}

}  // namespace rockperm
