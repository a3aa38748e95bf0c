#pragma once
// The colour-gradient two-phase model's backends (issue 69): the CPU loops (colour_cpu.hpp) and
// the CUDA kernels (cuda/colour_gpu.hpp), both stepping lib/lattice/colour_propagation.hpp's
// per-cell passes over one lattice. What a caller asks of either.
//
// Memory per fluid cell, float: populations 19 + 7 + 7, twice (the pull streaming reads one copy
// and writes the other: 264 B), the phase indicator (4 B) and the lattice's two neighbour tables
// (72 B): 340 B, against the single phase's 112 B (fused A-A, float).
#include <cstdint>
#include <string>
#include <vector>

#include "lib/physics/colour.hpp"

namespace rockperm::backend {

class ColourBackend {
 public:
  virtual ~ColourBackend() = default;
  virtual std::string description() const = 0;

  virtual void advance(std::int64_t steps) = 0;
  std::int64_t step() const { return step_; }
  const physics::colour::ColourParams& params() const { return params_; }

  // The cells' fields (fluid order): phase indicator, the colours' densities, the mixture's density
  // deviation (pressure (1 + drho) / 3) and velocity (x, y, z of each cell in turn).
  struct Fields {
    std::vector<float> phi, na, nb, drho, u;
  };
  virtual Fields fields() = 0;

  // Sums over the cells: of the fraction of phase A, of each colour's density, and of each phase's
  // share of the velocity (its fraction times u: the phase's volume flux times the length).
  struct Sums {
    double cells = 0, fraction_a = 0, mass_a = 0, mass_b = 0;
    double flux_a[3] = {0, 0, 0}, flux_b[3] = {0, 0, 0};
  };
  Sums sums();

 protected:
  explicit ColourBackend(const physics::colour::ColourParams& params) : params_(params) {}
  physics::colour::ColourParams params_;
  std::int64_t step_ = 0;
};

}  // namespace rockperm::backend
