#pragma once
// The colour-gradient two-phase model's backends (issue 69): the CPU loops (colour_cpu.hpp) and
// the CUDA kernels (cuda/colour_gpu.hpp), both stepping lib/lattice/colour_propagation.hpp's
// per-cell passes over one lattice. What a caller asks of either.
//
// Memory per fluid cell, float: the momentum's 19 populations twice (the collision pulls from one
// copy and writes the other: 152 B), the colours' 7 + 7 once (56 B), the phase indicator and the
// colours' densities (12 B) and the lattice's two neighbour tables (72 B): 292 B, against the
// single phase's 112 B (fused A-A, float).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/physics/colour.hpp"
#include "lib/physics/storage.hpp"

namespace rockperm::backend {

class ColourBackend {
 public:
  // Device (or host) bytes per fluid cell of a model in `storage`: the populations and the tables
  // above, each cell's plane (2 B, for the flow through the planes) and the moments fields() reads
  // back (24 B): 318 B in fp32, 242 B in fp16.
  static double bytes_per_cell(physics::Storage storage) {
    return 2.0 * 19.0 * static_cast<double>(physics::storage_bytes(storage)) + 56 + 12 + 72 + 2 + 24;
  }

  virtual ~ColourBackend() = default;
  virtual std::string description() const = 0;

  virtual void advance(std::int64_t steps) = 0;
  // Wetting by cell: the phase indicator each cell's walls show (fluid order, in [-1, 1]: cos of
  // the contact angle through phase A); empty: every wall shows params().wall_phi.
  virtual void set_wall_phi(std::span<const float> per_cell) = 0;
  std::int64_t step() const { return step_; }
  const physics::colour::ColourParams& params() const { return params_; }

  // The cells' fields (fluid order): phase indicator, the colours' densities, the mixture's density
  // deviation (pressure (1 + drho) / 3) and velocity (x, y, z of each cell in turn).
  struct Fields {
    std::vector<float> phi, na, nb, drho, u;
  };
  virtual Fields fields() = 0;

  // Sums over the cells (lib/lattice/colour_propagation.hpp, cell_sums: in fixed point, the same
  // whatever the order): of the fraction of phase A and of each colour's density; with
  // `plane_axis` (0-2) also each phase's flow, the colour it passes from every plane across the axis
  // to the next (the face between plane p and p + 1, the last wrapping to the first; cell_sums'
  // faces).
  struct Sums {
    double cells = 0, fraction_a = 0, mass_a = 0, mass_b = 0;
    std::vector<double> plane_a, plane_b;
    bool finite = true;  // every cell's values finite (those that are not are left out of the sums)
  };
  virtual Sums sums(int plane_axis = -1) = 0;

 protected:
  explicit ColourBackend(const physics::colour::ColourParams& params) : params_(params) {}
  // Sums from the fixed-point totals (cell_sums' order) and plane bins (per plane the four face
  // values of cell_sums, summed over its cells).
  static Sums from_fixed(double cells, const long long* totals, const std::vector<long long>& planes);
  physics::colour::ColourParams params_;
  std::int64_t step_ = 0;
};

}  // namespace rockperm::backend
