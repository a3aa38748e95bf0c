#pragma once
// What the conduction solve's host engine and the GPU's kernels share (lib/solve/conduction.hpp):
// which D3Q19 direction each face of a cell is, the conductance of a face between two cells, and
// where the sample's conductivity is read. Plain definitions: nvcc compiles this header too.
#include <cstdint>

#include "lib/base/hd.hpp"
#include "lib/physics/d3q19.hpp"

namespace rockperm::solve::conduction {

constexpr int faces = 6;
// face f of a cell: along axis f / 2, ahead (+1) for even f, behind (-1) for odd; its D3Q19 direction
constexpr int face_direction[faces] = {1, 1 + d3q19::half, 2, 2 + d3q19::half, 3, 3 + d3q19::half};
constexpr std::uint32_t none = 0xffffffffu;  // lattice::none

// The stencils: a cell's 6 faces (`faces` links: l = 2 axis ahead, 2 axis + 1 behind), or the
// flow's 18 D3Q19 links (`links` = 18: l = q - 1 for direction q, ahead for q <= 9, l + 9 its
// opposite). Each link conducts its weight times the cells' face_conductance: 1 on faces, 6 w_q
// on the 18 links (1/3 along an axis, 1/6 along an edge), so that both are -div(sigma grad) in the
// continuum (sum over q of 6 w_q e_q e_q = 2 I) and a uniform medium conducts 1 either way.
constexpr int links18 = 18;
constexpr int max_links = links18;
ROCKPERM_HD constexpr int link_direction(int links, int l) {
  return links == faces ? (l / 2 + 1 + (l % 2 == 1 ? d3q19::half : 0)) : l + 1;
}
ROCKPERM_HD constexpr bool link_ahead(int links, int l) { return link_direction(links, l) <= d3q19::half; }
ROCKPERM_HD constexpr int link_opposite(int links, int l) {
  return links == faces ? (l % 2 == 0 ? l + 1 : l - 1) : (l < d3q19::half ? l + d3q19::half : l - d3q19::half);
}
// the link's component along `axis` (-1, 0 or 1)
ROCKPERM_HD constexpr int link_component(int links, int l, int axis) { return d3q19::c(link_direction(links, l), axis); }
ROCKPERM_HD constexpr double link_weight(int links, int l) {
  return links == faces ? 1.0 : 6.0 * d3q19::weight(link_direction(links, l));
}

// The conductance of the face between cells of conductivity a and b: the harmonic mean (layers
// in series add their resistances exactly).
ROCKPERM_HD inline double face_conductance(double a, double b) { return a == b ? a : 2.0 * a * b / (a + b); }

// The sample's share of the dissipation on the face ahead of a cell of plane t (`along`: the face
// along the axis, to plane t + 1; else a face across it), for a sample of the planes (in, out)
// between buffers of brine: 1 inside, 0 outside, and on a face between a brine cell and a sample
// cell of conductivity s the sample's half cell's part of their series resistance,
// (1 / 2s) / (1 / 2 + 1 / 2s) = 1 / (1 + s) = 1 - g / 2 with g = 2s / (1 + s) the face's conductance.
ROCKPERM_HD inline double sample_share(std::int64_t t, bool along, double g, std::int64_t in, std::int64_t out) {
  const bool here = t > in && t < out;
  if (!along) return here ? 1.0 : 0.0;
  const bool ahead = t + 1 > in && t + 1 < out;
  if (here && ahead) return 1.0;
  return here != ahead ? 1.0 - 0.5 * g : 0.0;
}

// The reading's sums over the link l of a cell of plane t along the axis (x its value, xj the
// neighbour's, g the link's conductance, `unit` the cells' face_conductance, e = the link's
// component along the axis): the dissipation g drop^2, the current g drop e along the axis, and
// the sample's share of the dissipation (a link behind, e = -1, is the one ahead of plane t - 1).
// drop = V_c - V_j with V = x - the coordinate along the axis.
ROCKPERM_HD inline void add_link_reading(double x, double xj, double g, double unit, int e, std::int64_t t, bool sample,
                                         std::int64_t in, std::int64_t out, double* acc) {
  const double drop = x - xj + (e == 1 ? 1.0 : (e == -1 ? -1.0 : 0.0));
  acc[0] += g * drop * drop;
  if (e == 1) acc[1] += g * drop;
  if (e == -1) acc[1] -= g * drop;
  if (sample) acc[2] += sample_share(e == -1 ? t - 1 : t, e != 0, unit, in, out) * g * drop * drop;
}

}  // namespace rockperm::solve::conduction

namespace rockperm::solve {

// Where the sample's conductivity is read (see conduction.hpp): the dissipation over the whole
// period, or over the sample's own faces between the buffer planes `in` and `out` (its planes
// in + 1 .. out - 1) along `axis`.
struct ConductionReadingSlabs {
  enum class Kind { energy, sample } kind = Kind::energy;
  std::int64_t in = 0, out = 0;  // sample: the buffer planes just outside its faces
  double sample_voxels = 0;      // sample: its voxels, conducting or not
  int axis = 0;
};

}  // namespace rockperm::solve
