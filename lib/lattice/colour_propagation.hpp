#pragma once
// The colour-gradient model's step per cell on the sparse lattice (issue 69), for both backends:
// the CPU loops (lib/backend/colour_cpu.cpp) and the CUDA kernels (cuda/colour_kernels.cu) call
// these, one thread or one loop iteration per fluid cell. A step is three passes over the cells:
//  1. phase: phi of every cell from its colours (the stencils of pass 2 read the neighbours');
//  2. collide: the cell's interface from phi around it, collision and recolouring in place;
//  3. stream: pull into the other copy of the populations; where the cell behind is a wall the
//     population is the cell's own opposite one (half-way bounce-back).
// Populations are structure of arrays, f[i * stride + cell] (19), a and b [k * stride + cell] (7).
#include <cmath>
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

// Stores a cell's populations (the inverse of load's first half).
ROCKPERM_HD inline void store(const Cells& c, std::uint64_t cell, const float (&f)[d3q19::q],
                              const float (&a)[colour::q7], const float (&b)[colour::q7]) {
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) c.f[i * c.stride + cell] = f[i];
ROCKPERM_UNROLL
  for (int k = 0; k < colour::q7; ++k) {
    c.a[k * c.stride + cell] = a[k];
    c.b[k * c.stride + cell] = b[k];
  }
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
  store(c, cell, f, a, b);
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

// What a check sums over the cells, per cell (pass 1 done): the fraction of phase A, the colours'
// densities, and each colour's flux (x, y, z): the first moment of its D3Q7 populations after the
// recolouring, what streaming carries to the neighbours, n u plus the segregation along the normal
// (physics::colour::collide_colour). A phase's flow rate through a plane is its colour's flux: it is
// conserved through every plane of a steady state, where the fraction times u is not (a flow
// across a diffuse interface that stays in place moves its colours by the segregation).
// In fixed point: rounded to multiples of 2^-32 and summed as 64-bit integers, so that a sum does
// not depend on the order of its cells (threads, blocks) and the CPU and the GPU sum alike (a
// billion cells at |u| = 1 stays below 2^62).
inline constexpr double sum_scale = 4294967296.0;  // 2^32
// fraction_a, na, nb, flux_a[3], flux_b[3], and a count of cells whose values are not finite
inline constexpr int sum_count = 10;
// `faces` (where `axis` is 0-2): what the cell sends each way along the axis, A's + and -, then
// B's, in the same fixed point: the colours a plane passes to the next are its cells' + populations
// less the next plane's cells' - ones, the same through every plane of a steady state.
ROCKPERM_HD inline void cell_sums(const Cells& c, std::uint64_t cell, const colour::ColourParams& p,
                                  long long (&out)[sum_count], int axis = -1, long long* faces = nullptr) {
  float f[d3q19::q], a[colour::q7], b[colour::q7];
  const colour::Interface in = load(c, cell, p, f, a, b);
  const colour::ColourMoments m = colour::colour_moments(f, a, b, in, p);
  const float total = m.na + m.nb;
  const float apart = total > 0.0f ? 0.25f * p.beta * m.na * m.nb / total : 0.0f;  // D3Q7: sum w e e = 1/4
  double v[sum_count - 1] = {colour::fraction_a(m.phi), m.na, m.nb};
ROCKPERM_UNROLL
  for (int k = 0; k < 3; ++k) {
    v[3 + k] = m.na * m.u[k] + apart * in.normal[k];
    v[6 + k] = m.nb * m.u[k] - apart * in.normal[k];
  }
  bool finite = true;
ROCKPERM_UNROLL
  for (int k = 0; k < sum_count - 1; ++k) finite = finite && fabs(v[k]) < 1e6;  // false for NaN and infinities
ROCKPERM_UNROLL
  for (int k = 0; k < sum_count - 1; ++k) out[k] = finite ? llrint(v[k] * sum_scale) : 0;
  out[sum_count - 1] = finite ? 0 : 1;
  if (faces) {
    // the recoloured populations along +-axis (collide_colour): w (n (1 +- 4 u) +- 4 apart n_axis)
    const float w = colour::weight7(1), u = m.u[axis], seg = 4.0f * apart * in.normal[axis];
    const float sent[4] = {w * (m.na * (1.0f + 4.0f * u) + seg), w * (m.na * (1.0f - 4.0f * u) - seg),
                           w * (m.nb * (1.0f + 4.0f * u) - seg), w * (m.nb * (1.0f - 4.0f * u) + seg)};
    // a population against a wall bounces back into its cell: it crosses no face
    const bool open[2] = {neighbour(c, cell, colour::d3q19_direction(1 + axis)) != no_neighbour,
                          neighbour(c, cell, colour::d3q19_direction(4 + axis)) != no_neighbour};
ROCKPERM_UNROLL
    for (int k = 0; k < 4; ++k) faces[k] = finite && open[k % 2] ? llrint(double(sent[k]) * sum_scale) : 0;
  }
}

// The state a run starts from (physics::colour::rest_state) at phase indicator `phi`.
ROCKPERM_HD inline void start(const Cells& c, std::uint64_t cell, float phi, const colour::ColourParams& p) {
  float f[d3q19::q], a[colour::q7], b[colour::q7];
  colour::rest_state(phi, p, f, a, b);
  store(c, cell, f, a, b);
}

}  // namespace rockperm::lattice::colour_step
