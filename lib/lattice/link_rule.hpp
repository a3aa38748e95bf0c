#pragma once
// The link rule of the sparse lattice, one definition for the host's table build
// (lib/lattice/sparse_lattice.cpp) and the device's (cuda/table_builder.cu): which fluid cell a
// D3Q19 link from a cell reaches, with the periodic wrap and the edge-contact convention
// (EdgeContacts in lib/lattice/sparse_lattice.hpp).
#include <cstdint>

#include "lib/base/hd.hpp"

namespace rockperm::lattice::link_rule {

inline constexpr std::uint32_t no_cell = 0xFFFFFFFFu;  // sparse_lattice.hpp's `none`

// Coordinate along one axis after a step of d, or -1 when it leaves a non-periodic axis.
ROCKPERM_HD inline std::int64_t step_axis(std::int64_t v, int d, std::int64_t n, bool periodic) {
  v += d;
  if (v >= 0 && v < n) return v;
  if (!periodic) return -1;
  return (v + n) % n;
}

// The fluid cell a link (cx, cy, cz) from a cell reaches, or no_cell; `at(dx, dy, dz)` gives the
// fluid index of the voxel one step away (each of dx, dy, dz in -1..1). A diagonal link is
// sealed when both voxels beside it (one step along each of its two axes) are solid and edge
// contacts are sealed.
#if defined(__CUDACC__)
#pragma nv_exec_check_disable  // `at` is a host lambda on the host, a device functor on the device
#endif
template <class At>
ROCKPERM_HD inline std::uint32_t link_target(const At& at, int cx, int cy, int cz, bool sealed_edges) {
  const std::uint32_t target = at(cx, cy, cz);
  if (target == no_cell || !sealed_edges || cx * cx + cy * cy + cz * cz != 2) return target;
  const std::uint32_t first = cx ? at(cx, 0, 0) : at(0, cy, 0);
  const std::uint32_t second = cz ? at(0, 0, cz) : at(0, cy, 0);
  return first == no_cell && second == no_cell ? no_cell : target;
}

}  // namespace rockperm::lattice::link_rule
