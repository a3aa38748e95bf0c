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
