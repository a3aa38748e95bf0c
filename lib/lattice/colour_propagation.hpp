#pragma once
// The colour-gradient model's step per cell on the sparse lattice (issue 69), for both backends:
// the CPU loops (lib/backend/colour_cpu.cpp) and the CUDA kernels (cuda/colour_kernels.cu) call
// these, one thread or one loop iteration per fluid cell.
//
// What is stored between steps: the populations after collision and recolouring, not yet
// streamed. A step is two passes over the cells, each streaming by pull as it reads (where the cell
// behind is a wall the population is the cell's own opposite one: half-way bounce-back):
//  1. phase: pull the cell's colours and store their densities nA, nB and phi (the stencils of
//     pass 2 read the neighbours' phi);
//  2. collide: pull the cell's f from one copy, collide it from phi around the cell and write it
//     into the other copy; recolour from nA, nB and write the colours in place (pass 1 read them
//     all before, and pass 2 reads no colour).
// Per cell step in float: pass 1 reads 14 colours, 6 neighbour indices and writes 3 values (92 B);
// pass 2 reads 19 populations, 18 indices, phi, nA, nB and writes 19 + 14 (292 B): 384 B, against
// 736 B for a phase pass, a collision in place and a streaming pass over all 33 populations. The
// two passes' arithmetic is that three-pass step's to the bit: only when the populations are
// stored moves (run_start stores the start so that the first pull finds it).
// Populations are structure of arrays, f[i * stride + cell] (19), a and b [k * stride + cell] (7).
// The momentum's populations are stored as lib/physics/storage.hpp says (S: float, or Half, the
// deviation in binary16, rounded stochastically as the single phase's): 38 B less each way, 308 B
// a step. The colours stay float: they are the phases' densities themselves (1/8 each), not a
// deviation, and binary16's 11 bits would smear the interface.
#include <cmath>
#include <cstdint>

#include "lib/base/hd.hpp"
#include "lib/lattice/neighbour_table.hpp"
#include "lib/physics/colour.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/physics/storage.hpp"

namespace rockperm::lattice::colour_step {

namespace colour = physics::colour;

// The stored populations and what the passes write beside them.
template <class S = float>
struct Cells {
  S* f = nullptr;          // the copy pass 2 pulls from (pass 2 writes the other)
  float* a = nullptr;      // the colours (one copy)
  float* b = nullptr;
  float* phi = nullptr;    // pass 1's, one per cell
  float* na = nullptr;
  float* nb = nullptr;
  // per cell, the phase indicator its walls show the stencils (wetting by solid label); null: every
  // wall shows ColourParams::wall_phi
  const float* wall_phi = nullptr;
  const std::uint32_t* positive = nullptr;  // the lattice's tables (SparseLattice::neighbours,
  const std::uint32_t* negative = nullptr;  // negative_neighbours)
  std::uint64_t stride = 0;
  // the global index of local cell 0 (Z-slab ranks: the first owned cell's less owned_begin), which
  // keys a cell's stochastic rounding: the same draws on any number of ranks
  std::uint32_t cell_offset = 0;
};

// The fluid index of cell + e_i, i in 1..18, or no_neighbour.
template <class S>
ROCKPERM_HD inline std::uint32_t neighbour(const Cells<S>& c, std::uint64_t cell, int i) {
  return i <= d3q19::half ? c.positive[(i - 1) * c.stride + cell] : c.negative[(i - 1 - d3q19::half) * c.stride + cell];
}

// All 18 neighbours of the cell (around[0] unused), read once for the stencils and the pull.
template <class S>
ROCKPERM_HD inline void neighbours(const Cells<S>& c, std::uint64_t cell, std::uint32_t (&around)[d3q19::q]) {
  around[0] = static_cast<std::uint32_t>(cell);
ROCKPERM_UNROLL
  for (int i = 1; i < d3q19::q; ++i) around[i] = neighbour(c, cell, i);
}

// Where the population i that streams into `cell` is stored: at the cell behind, or, where that is
// a wall, the cell's own opposite one (bounce-back). Every slot is the source of exactly one
// (cell, i): streaming is a permutation, which run_start inverts.
ROCKPERM_HD inline std::uint64_t source(std::uint32_t behind, std::uint64_t cell, int slot, int opposite_slot,
                                        std::uint64_t stride) {
  return behind == no_neighbour ? opposite_slot * stride + cell : slot * stride + behind;
}

// The cell's colours after streaming.
template <class S>
ROCKPERM_HD inline void pull_colours(const Cells<S>& c, std::uint64_t cell, float (&a)[colour::q7], float (&b)[colour::q7]) {
  a[0] = c.a[cell];
  b[0] = c.b[cell];
ROCKPERM_UNROLL
  for (int k = 1; k < colour::q7; ++k) {
    const std::uint32_t behind = neighbour(c, cell, d3q19::opposite(colour::d3q19_direction(k)));
    const std::uint64_t from = source(behind, cell, k, colour::opposite7(k), c.stride);
    a[k] = c.a[from];
    b[k] = c.b[from];
  }
}

// The cell's f after streaming (`around` from neighbours()), as float deviations.
template <class S>
ROCKPERM_HD inline void pull_f(const Cells<S>& c, std::uint64_t cell, const std::uint32_t (&around)[d3q19::q],
                               float (&f)[d3q19::q]) {
  using T = physics::StorageTraits<S>;
  f[0] = T::load(c.f[cell]);
ROCKPERM_UNROLL
  for (int i = 1; i < d3q19::q; ++i) {
    f[i] = T::load(c.f[source(around[d3q19::opposite(i)], cell, i, d3q19::opposite(i), c.stride)]);
  }
}

// Pass 1.
template <class S>
ROCKPERM_HD inline void phase(const Cells<S>& c, std::uint64_t cell) {
  float a[colour::q7], b[colour::q7], na, nb;
  pull_colours(c, cell, a, b);
  colour::colour_densities(a, b, na, nb);
  c.na[cell] = na;
  c.nb[cell] = nb;
  c.phi[cell] = na + nb > 0.0f ? (na - nb) / (na + nb) : 0.0f;
}

// The cell's streamed f and the interface seen from it (pass 1 done).
template <class S>
ROCKPERM_HD inline colour::Interface load(const Cells<S>& c, std::uint64_t cell, const colour::ColourParams& p,
                                          float (&f)[d3q19::q]) {
  std::uint32_t around[d3q19::q];
  neighbours(c, cell, around);
  pull_f(c, cell, around, f);
  float phi[d3q19::q];
  phi[0] = c.phi[cell];
  const float wall = c.wall_phi ? c.wall_phi[cell] : p.wall_phi;
ROCKPERM_UNROLL
  for (int i = 1; i < d3q19::q; ++i) phi[i] = around[i] == no_neighbour ? wall : c.phi[around[i]];
  if (p.geometric_wetting) {
    std::uint32_t walls = 0;
ROCKPERM_UNROLL
    for (int i = 1; i < d3q19::q; ++i) walls |= around[i] == no_neighbour ? 1u << i : 0u;
    if (walls != 0) colour::geometric_wall_phi(phi, walls, wall);
  }
  return colour::interface_at(phi);
}

// The cell's moments after streaming (pass 1 done).
template <class S>
ROCKPERM_HD inline colour::ColourMoments moments(const Cells<S>& c, std::uint64_t cell, const colour::ColourParams& p) {
  float f[d3q19::q];
  const colour::Interface in = load(c, cell, p, f);
  return colour::colour_moments(f, c.na[cell], c.nb[cell], in, p);
}

// Pass 2: f pulled from c.f, collided into `f_out`; the colours recoloured in place. `seed`: the
// step's (physics::step_seed) for a storage that rounds stochastically.
template <class S>
ROCKPERM_HD inline void collide(const Cells<S>& c, S* f_out, std::uint64_t cell, const colour::ColourParams& p,
                                std::uint32_t seed) {
  using T = physics::StorageTraits<S>;
  float f[d3q19::q], a[colour::q7], b[colour::q7];
  const colour::Interface in = load(c, cell, p, f);
  colour::collide_colour(f, c.na[cell], c.nb[cell], in, p, a, b);
  // a value the storage cannot hold poisons the cell's rest slot (NaN), as in the single phase, so
  // that the sums see the divergence
  const std::uint32_t noise = physics::rounding_noise(static_cast<std::uint32_t>(cell) + c.cell_offset, seed);
  bool beyond = false;
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) {
    f[i] *= 1.0f / T::unit;  // exact: a power of two
    beyond |= T::beyond_held(f[i]);
  }
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) {
    f_out[i * c.stride + cell] = T::poisoned(i == 0 && beyond, T::store_held(f[i], physics::slot_noise(noise, i)));
  }
ROCKPERM_UNROLL
  for (int k = 0; k < colour::q7; ++k) {
    c.a[k * c.stride + cell] = a[k];
    c.b[k * c.stride + cell] = b[k];
  }
}

// A reservoir's source (the displacement, pipeline/colour_displacement.cpp): the colours the cell
// sends, as collided and recoloured, all given to phase A (`to_a`) or all to phase B, each
// direction's total kept: the mixture's mass and flow are untouched, only which phase it is. Run on
// the source cells after the collide pass.
ROCKPERM_HD inline void feed(float* a, float* b, std::uint64_t stride, std::uint64_t cell, bool to_a) {
ROCKPERM_UNROLL
  for (int k = 0; k < colour::q7; ++k) {
    const float total = a[k * stride + cell] + b[k * stride + cell];
    a[k * stride + cell] = to_a ? total : 0.0f;
    b[k * stride + cell] = to_a ? 0.0f : total;
  }
}

// What a check sums over the cells, per cell (pass 1 done): the fraction of phase A and the colours'
// densities, in fixed point: rounded to multiples of 2^-32 and summed as 64-bit integers, so that a
// sum does not depend on the order of its cells (threads, blocks) and the CPU and the GPU sum alike
// (a billion cells at |u| = 1 stays below 2^62).
inline constexpr double sum_scale = 4294967296.0;  // 2^32
// fraction_a, na, nb, and a count of cells whose values are not finite
inline constexpr int sum_count = 4;
// With `faces` (`axis` 0-2): each phase's flow, what the cell's recolouring sends each way along
// the axis, A's + and -, then B's, in the same fixed point. The colours a plane passes to the next
// are its cells' + populations less the next plane's cells' - ones: conserved, the same through
// every plane of a steady state, where the fraction times u is not (a flow across a diffuse
// interface that stays in place moves its colours by the segregation), nor the colours' first
// moment (it counts populations that bounce back at walls, where a wetting wall's segregation
// pushes colour).
// `speed`: the mixture's speed |u| at the cell in the same fixed point (0 where not finite), whose
// largest over the cells a check reports (a largest, unlike a sum, is the same in any order).
template <class S>
ROCKPERM_HD inline void cell_sums(const Cells<S>& c, std::uint64_t cell, const colour::ColourParams& p,
                                  long long (&out)[sum_count], unsigned long long& speed, int axis = -1,
                                  long long* faces = nullptr) {
  float f[d3q19::q];
  const colour::Interface in = load(c, cell, p, f);
  const colour::ColourMoments m = colour::colour_moments(f, c.na[cell], c.nb[cell], in, p);
  const float total = m.na + m.nb;
  const float apart = total > 0.0f ? p.beta * m.na * m.nb / total : 0.0f;
  const double v[sum_count - 1] = {colour::fraction_a(m.phi), m.na, m.nb};
  // false for NaN and infinities
  bool finite = fabs(m.u[0]) < 1e6 && fabs(m.u[1]) < 1e6 && fabs(m.u[2]) < 1e6 && fabs(apart) < 1e6;
ROCKPERM_UNROLL
  for (int k = 0; k < sum_count - 1; ++k) finite = finite && fabs(v[k]) < 1e6;
ROCKPERM_UNROLL
  for (int k = 0; k < sum_count - 1; ++k) out[k] = finite ? llrint(v[k] * sum_scale) : 0;
  out[sum_count - 1] = finite ? 0 : 1;
  speed = finite ? static_cast<unsigned long long>(
                       llrint(sqrt(double(m.u[0]) * m.u[0] + double(m.u[1]) * m.u[1] + double(m.u[2]) * m.u[2]) * sum_scale))
                 : 0ull;
  if (faces) {
    // the recoloured populations along +-axis (collide_colour): w (n (1 +- 4 u) +- apart n_axis)
    const float w = colour::weight7(1), u = m.u[axis], seg = apart * in.normal[axis];
    const float sent[4] = {w * (m.na * (1.0f + 4.0f * u) + seg), w * (m.na * (1.0f - 4.0f * u) - seg),
                           w * (m.nb * (1.0f + 4.0f * u) - seg), w * (m.nb * (1.0f - 4.0f * u) + seg)};
    // a population against a wall bounces back into its cell: it crosses no face
    const bool open[2] = {neighbour(c, cell, colour::d3q19_direction(1 + axis)) != no_neighbour,
                          neighbour(c, cell, colour::d3q19_direction(4 + axis)) != no_neighbour};
ROCKPERM_UNROLL
    for (int k = 0; k < 4; ++k) faces[k] = finite && open[k % 2] ? llrint(double(sent[k]) * sum_scale) : 0;
  }
}

// The state a run starts from (physics::colour::rest_state) at phase indicator `phi`, stored where
// the first step's pull finds it (streaming inverted): the first step collides this state itself.
template <class S>
ROCKPERM_HD inline void start(const Cells<S>& c, std::uint64_t cell, float phi, const colour::ColourParams& p) {
  using T = physics::StorageTraits<S>;
  float f[d3q19::q], a[colour::q7], b[colour::q7];
  colour::rest_state(phi, p, f, a, b);
  std::uint32_t around[d3q19::q];
  neighbours(c, cell, around);
  c.f[cell] = T::store(f[0]);
ROCKPERM_UNROLL
  for (int i = 1; i < d3q19::q; ++i) {
    c.f[source(around[d3q19::opposite(i)], cell, i, d3q19::opposite(i), c.stride)] = T::store(f[i]);
  }
  c.a[cell] = a[0];
  c.b[cell] = b[0];
ROCKPERM_UNROLL
  for (int k = 1; k < colour::q7; ++k) {
    const int i = colour::d3q19_direction(k);
    const std::uint64_t to = source(around[d3q19::opposite(i)], cell, k, colour::opposite7(k), c.stride);
    c.a[to] = a[k];
    c.b[to] = b[k];
  }
}

// Z-slab ranks (lib/solve/colour_slabs.hpp): what crosses a cut between planes. A slot holds the
// population moving along its direction, so the slots that move along +z (`dir` +1) or -z (-1)
// are those a neighbour's ghost copy of the plane must hold for its pulls: 5 of the momentum's 19,
// 1 of each colour's 7.
inline constexpr int halo_f_slots = 5;
ROCKPERM_HD inline int halo_f_slot(int dir, int n) {  // n in 0..4
  int found = 0;
  for (int i = 1; i < d3q19::q; ++i) {
    if (d3q19::cz(i) == dir && found++ == n) return i;
  }
  return -1;
}
ROCKPERM_HD inline int halo_colour_slot(int dir) {
  for (int k = 1; k < colour::q7; ++k) {
    if (d3q19::cz(colour::d3q19_direction(k)) == dir) return k;
  }
  return -1;
}

}  // namespace rockperm::lattice::colour_step
