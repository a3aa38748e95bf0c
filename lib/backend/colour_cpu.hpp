#pragma once
// The colour-gradient two-phase model's CPU loops (issue 69): OpenMP over the fluid cells of one
// lattice, calling the per-cell physics of lib/physics/colour.hpp. The reference the GPU kernels
// are to reproduce, as CpuBackend is for the single phase.
//
// Memory per fluid cell, float: populations 19 + 7 + 7 twice (the pull streaming reads one copy
// and writes the other: 264 B), the phase indicator (4 B) and the lattice's two neighbour tables
// (72 B): 340 B, against the single phase's 112 B (fused A-A, float).
#include <cstdint>
#include <span>
#include <vector>

#include "lib/base/host_array.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/physics/colour.hpp"

namespace rockperm::backend {

class ColourCpu {
 public:
  // `phi`: the phase indicator every cell of `lattice` starts from (fluid order, in [-1, 1]); the
  // mixture starts at rest (physics::colour::rest_state). The lattice must be built with its
  // negative table (SparseLattice::build with_negative) and outlive this object.
  ColourCpu(const lattice::SparseLattice& lattice, const physics::colour::ColourParams& params,
            std::span<const float> phi);

  void advance(std::int64_t steps);
  std::int64_t step() const { return step_; }
  const physics::colour::ColourParams& params() const { return params_; }

  // The cells' fields (fluid order): phase indicator, density deviation (pressure (1 + drho) / 3),
  // velocity (x, y, z of each cell in turn).
  struct Fields {
    std::vector<float> phi, drho, u;
  };
  Fields fields() const;

  // Sums over the cells: of the fraction of phase A, of each phase's colour density, and of each
  // phase's share of the velocity (the fraction times u: a phase's volume flux times the length).
  struct Sums {
    double cells = 0, fraction_a = 0, mass_a = 0, mass_b = 0;
    double flux_a[3] = {0, 0, 0}, flux_b[3] = {0, 0, 0};
  };
  Sums sums() const;

 private:
  std::uint32_t neighbour(std::uint32_t cell, int i) const;
  void compute_phi(std::vector<float>& phi) const;
  void gather(std::uint32_t cell, const std::vector<float>& phi, float (&f)[d3q19::q],
              float (&a)[physics::colour::q7], float (&b)[physics::colour::q7],
              float (&around)[d3q19::q]) const;

  const lattice::SparseLattice& lattice_;
  physics::colour::ColourParams params_;
  lattice::NeighbourTables own_tables_;
  const std::uint32_t* positive_ = nullptr;
  const std::uint32_t* negative_ = nullptr;
  std::uint32_t cells_ = 0;
  std::uint64_t stride_ = 0;
  std::vector<float> f_, f_next_, a_, a_next_, b_, b_next_, phi_;
  std::int64_t step_ = 0;
};

}  // namespace rockperm::backend
