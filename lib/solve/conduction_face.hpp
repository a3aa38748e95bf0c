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

}  // namespace rockperm::solve::conduction

namespace rockperm::solve {

// Where the sample's conductivity is read (see conduction.hpp): the dissipation over the whole
// period, or the current over the mean field between two interior slabs along `axis`.
struct ConductionReadingSlabs {
  enum class Kind { energy, interior } kind = Kind::energy;
  std::int64_t in = 0, out = 0, window = 1;  // interior: the slabs [in, in + window), [out, out + window)
  double length = 1;                          // between them
  int axis = 0;
};

}  // namespace rockperm::solve
