#include "lib/geometry/coarsen.hpp"

#include <array>

#include "lib/base/error.hpp"

namespace rockperm::geometry {

PoreMask coarsen_2x(const PoreMask& fine, std::int64_t first_z) {
  const Dims& f = fine.dims;
  if (f.nx < 2 || f.ny < 2 || f.nz < 2) {
    throw InputError("a sample of " + f.str() + " voxels has no coarser grid: every extent must be at least 2");
  }
  PoreMask coarse;
  coarse.dims = Dims{f.nx / 2, f.ny / 2, f.nz / 2};
  const Dims& c = coarse.dims;
  coarse.pore.resize(c.voxels());
#pragma omp parallel for schedule(static)
  for (std::int64_t z = 0; z < c.nz; ++z) {
    for (std::int64_t y = 0; y < c.ny; ++y) {
      for (std::int64_t x = 0; x < c.nx; ++x) {
        std::array<std::uint8_t, 8> codes{};
        int n = 0;
        for (int dz = 0; dz < 2; ++dz)
          for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) codes[n++] = fine.pore[f.linear(2 * x + dx, 2 * y + dy, 2 * z + dz)];
        // the most frequent code; among equals the lowest (even parity) or the highest (odd)
        const bool odd = ((x + y + z + first_z) & 1) != 0;
        std::uint8_t best = codes[0];
        int best_count = 0;
        for (int i = 0; i < 8; ++i) {
          int count = 0;
          for (int j = 0; j < 8; ++j) count += codes[j] == codes[i];
          if (count > best_count || (count == best_count && (odd ? codes[i] > best : codes[i] < best))) {
            best = codes[i];
            best_count = count;
          }
        }
        coarse.pore[c.linear(x, y, z)] = best;
      }
    }
  }
  return coarse;
}

}  // namespace rockperm::geometry
