#include "lib/percolation.hpp"

#include <vector>

#include "lib/d3q19.hpp"
#include "lib/error.hpp"

namespace rockperm {

namespace {

constexpr std::uint8_t pore_bit = 1, from_inlet = 2, from_outlet = 4;

// Breadth-first flood from every pore voxel of one face, marking `flag` in the mask bytes;
// the frontier vectors hold only the current front, so memory stays near one face.
void flood(PoreMask& mask, int axis, std::int64_t face, std::uint8_t flag, const Periodicity& periodic) {
  const Dims& d = mask.dims;
  std::uint8_t* m = mask.pore.data();
  std::vector<std::uint64_t> front, next;
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < d.nx; ++x) {
        const std::int64_t c[3] = {x, y, z};
        if (c[axis] != face) continue;
        const std::uint64_t v = d.linear(x, y, z);
        if ((m[v] & pore_bit) && !(m[v] & flag)) {
          m[v] |= flag;
          front.push_back(v);
        }
      }
  const std::uint64_t nxy = static_cast<std::uint64_t>(d.nx) * d.ny;
  while (!front.empty()) {
    next.clear();
    for (const std::uint64_t v : front) {
      const std::int64_t z = static_cast<std::int64_t>(v / nxy);
      const std::int64_t y = static_cast<std::int64_t>((v / d.nx) % d.ny);
      const std::int64_t x = static_cast<std::int64_t>(v % d.nx);
      for (int i = 1; i < lattice::q; ++i) {
        std::int64_t c[3] = {x + lattice::cx(i), y + lattice::cy(i), z + lattice::cz(i)};
        bool inside = true;
        for (int a = 0; a < 3; ++a) {
          if (c[a] >= 0 && c[a] < d[a]) continue;
          if (a != axis && periodic[a]) c[a] = (c[a] + d[a]) % d[a];
          else inside = false;
        }
        if (!inside) continue;
        const std::uint64_t w = d.linear(c[0], c[1], c[2]);
        if ((m[w] & pore_bit) && !(m[w] & flag)) {
          m[w] |= flag;
          next.push_back(w);
        }
      }
    }
    front.swap(next);
  }
}

}  // namespace

PercolationReport keep_percolating_pores(PoreMask& mask, int flow_axis, const Periodicity& periodic) {
  PercolationReport r;
  r.voxels = mask.dims.voxels();
  r.pore = mask.pore_count();
  flood(mask, flow_axis, 0, from_inlet, periodic);
  flood(mask, flow_axis, mask.dims[flow_axis] - 1, from_outlet, periodic);
  std::uint64_t kept = 0;
  const auto n = static_cast<std::int64_t>(mask.pore.size());
  std::uint8_t* m = mask.pore.data();
#pragma omp parallel for schedule(static) reduction(+ : kept)
  for (std::int64_t v = 0; v < n; ++v) {
    const bool keep = (m[v] & (from_inlet | from_outlet)) == (from_inlet | from_outlet);
    m[v] = keep ? 1 : 0;
    kept += keep;
  }
  r.connected = kept;
  if (kept == 0) {
    const char axis = "xyz"[flow_axis];
    throw InputError(std::string("the pore space does not percolate: no cluster of 18-connected pore voxels joins the "
                                 "inlet face (") + axis + " = 0) to the outlet face (" + axis + " = " +
                     std::to_string(mask.dims[flow_axis] - 1) + "), so k = 0 along " + axis +
                     "; check the segmentation, the pore labels and the flow axis");
  }
  return r;
}

}  // namespace rockperm
