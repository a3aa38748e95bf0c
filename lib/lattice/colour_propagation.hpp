#pragma once
// The colour-gradient model's step per cell on the sparse lattice (issue 69), for both backends:
// the CPU loops (lib/backend/colour_cpu.cpp) and the CUDA kernels (cuda/colour_kernels.cu) call
// these, one thread or one loop iteration per fluid cell. A step is three passes over the cells:
//  1. phase: phi of every cell from its colours (the stencils of pass 2 read the neighbours');
//  2. collide: the cell's interface from phi around it, collision and recolouring in place;
//  3. stream: pull into the other copy of the populations; where the cell behind is a wall the
//     population is the cell's own opposite one (half-way bounce-back).
// Populations are structure of arrays, f[i * stride + cell] (19), a and b [k * stride + cell] (7).
#include <cstdint>

#include "lib/base/hd.hpp"
#include "lib/lattice/neighbour_table.hpp"
#include "lib/physics/colour.hpp"
#include "lib/physics/d3q19.hpp"

namespace rockperm::lattice::colour_step {

namespace colour = physics::colour;

// One copy of the populations and what the passes read beside it.
struct Cells {
  float* f = nullptr;
  float* a = nullptr;
  float* b = nullptr;
  float* phi = nullptr;                  // one per cell (pass 1 writes it)
  const std::uint32_t* positive = nullptr;  // the lattice's tables (SparseLattice::neighbours,
  const std::uint32_t* negative = nullptr;  // negative_neighbours)
  std::uint64_t stride = 0;
};

// The fluid index of cell + e_i, i in 1..18, or no_neighbour.
ROCKPERM_HD inline std::uint32_t neighbour(const Cells& c, std::uint64_t cell, int i) {
  return i <= d3q19::half ? c.positive[(i - 1) * c.stride + cell] : c.negative[(i - 1 - d3q19::half) * c.stride + cell];
}

ROCKPERM_HD inline void phase(const Cells& c, std::uint64_t cell) {
  float na = 0.0f, nb = 0.0f;
ROCKPERM_UNROLL
  for (int k = 0; k < colour::q7; ++k) {
    na += c.a[k * c.stride + cell];
    nb += c.b[k * c.stride + cell];
  }
  c.phi[cell] = na + nb > 0.0f ? (na - nb) / (na + nb) : 0.0f;
}

// The cell's populations and the interface seen from it (pass 1 done).
ROCKPERM_HD inline colour::Interface load(const Cells& c, std::uint64_t cell, const colour::ColourParams& p,
                                          float (&f)[d3q19::q], float (&a)[colour::q7], float (&b)[colour::q7]) {
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) f[i] = c.f[i * c.stride + cell];
ROCKPERM_UNROLL
  for (int k = 0; k < colour::q7; ++k) {
    a[k] = c.a[k * c.stride + cell];
    b[k] = c.b[k * c.stride + cell];
  }
  float around[d3q19::q];
  around[0] = c.phi[cell];
ROCKPERM_UNROLL
  for (int i = 1; i < d3q19::q; ++i) {
    const std::uint32_t t = neighbour(c, cell, i);
    around[i] = t == no_neighbour ? p.wall_phi : c.phi[t];
  }
  return colour::interface_at(around);
}

ROCKPERM_HD inline colour::ColourMoments moments(const Cells& c, std::uint64_t cell, const colour::ColourParams& p) {
  float f[d3q19::q], a[colour::q7], b[colour::q7];
  const colour::Interface in = load(c, cell, p, f, a, b);
  return colour::colour_moments(f, a, b, in, p);
}

ROCKPERM_HD inline void collide(const Cells& c, std::uint64_t cell, const colour::ColourParams& p) {
  float f[d3q19::q], a[colour::q7], b[colour::q7];
  const colour::Interface in = load(c, cell, p, f, a, b);
  colour::collide_colour(f, a, b, in, p);
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) c.f[i * c.stride + cell] = f[i];
ROCKPERM_UNROLL
  for (int k = 0; k < colour::q7; ++k) {
    c.a[k * c.stride + cell] = a[k];
    c.b[k * c.stride + cell] = b[k];
  }
}

// Pass 3: pull `from` (post-collision) into `to` (the same tables).
ROCKPERM_HD inline void stream(const Cells& from, const Cells& to, std::uint64_t cell) {
  const std::uint64_t s = from.stride;
  to.f[cell] = from.f[cell];
ROCKPERM_UNROLL
  for (int i = 1; i < d3q19::q; ++i) {
    const std::uint32_t behind = neighbour(from, cell, d3q19::opposite(i));
    to.f[i * s + cell] = behind == no_neighbour ? from.f[d3q19::opposite(i) * s + cell] : from.f[i * s + behind];
  }
  to.a[cell] = from.a[cell];
  to.b[cell] = from.b[cell];
ROCKPERM_UNROLL
  for (int k = 1; k < colour::q7; ++k) {
    const std::uint32_t behind = neighbour(from, cell, d3q19::opposite(colour::d3q19_direction(k)));
    const std::uint64_t slot = behind == no_neighbour ? colour::opposite7(k) * s + cell : k * s + behind;
    to.a[k * s + cell] = from.a[slot];
    to.b[k * s + cell] = from.b[slot];
  }
}

// The state a run starts from (physics::colour::rest_state) at phase indicator `phi`.
ROCKPERM_HD inline void start(const Cells& c, std::uint64_t cell, float phi, const colour::ColourParams& p) {
  float f[d3q19::q], a[colour::q7], b[colour::q7];
  colour::rest_state(phi, p, f, a, b);
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) c.f[i * c.stride + cell] = f[i];
ROCKPERM_UNROLL
  for (int k = 0; k < colour::q7; ++k) {
    c.a[k * c.stride + cell] = a[k];
    c.b[k * c.stride + cell] = b[k];
  }
}

}  // namespace rockperm::lattice::colour_step
