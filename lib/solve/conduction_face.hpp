#pragma once
// The faces of the conduction solve (lib/solve/conduction.hpp), for the host's engine and the
// GPU's kernels alike: which D3Q19 direction each face of a cell is, and the conductance of a
// face between two cells.
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
