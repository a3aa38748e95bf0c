#pragma once
// The swap propagation of the core paper, per cell, for both backends.
//
// Populations live in one SoA array f[i * stride + cell]. All three steps are "collide at
// 19 addresses": read population i from addr[i], collide, and write the post-collision
// population i to addr[opposite(i)]. They differ only in the addresses:
//  - collide (two-pass step 1, and the even step of the fused A-A form): the cell's own
//    slots, so the result is stored reversed (slot -i <- f*_i);
//  - fused odd step: population i comes from slot -i of cell - e_i (where the collide step
//    left f*_i of that cell), population -i from slot i of cell + e_i; a solid neighbour
//    turns the address back to the cell's own reversed slot, which is half-way bounce-back.
//    Each cell reads and writes the same 19 slots, so cells never race.
// The swap (two-pass step 2) exchanges slot -i of a cell with slot i of its neighbour
// along e_i; every slot takes part in one exchange, so all exchanges are independent.
#include <cstdint>

#include "lib/physics/collision.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/base/hd.hpp"
#include "lib/lattice/line_tables.hpp"
#include "lib/lattice/neighbour_table.hpp"
#include "lib/physics/storage.hpp"

namespace rockperm::lattice::propagation {

inline constexpr std::uint32_t none_index = no_neighbour;

// Offsets into f are computed in Index: the CUDA launchers use 32-bit offsets whenever
// 19 * stride fits (up to about 226 million fluid cells), which saves a register per address
// and 64-bit multiplies; the CPU and larger lattices use 64 bits.
using WideIndex = std::uint64_t;

// Every function is written over the storage type S of the slots (lib/physics/storage.hpp):
// populations are loaded into float as the slots hold them, collided in those units
// (StorageTraits::unit) and stored back (16-bit storage rounds stochastically, seeded by the cell
// and p.seed); the swap moves slots as they are.
// Grey, drag: a cell of a grey phase and its drag (physics::collide).
template <class S, class Index, bool Grey = false>
ROCKPERM_HD inline void collide_at(S* f, const Index (&addr)[d3q19::q], const physics::CollisionParams& p,
                                   float drag = 0.0f) {
  using T = physics::StorageTraits<S>;
  float v[d3q19::q];
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) v[i] = T::load_held(f[addr[i]]);
  physics::collide<Grey>(v, p, T::unit, drag);
  // addr[0]: the cell itself; its global index keys the noise (CollisionParams::cell_offset)
  const std::uint32_t noise = physics::rounding_noise(static_cast<std::uint32_t>(addr[0]) + p.cell_offset, p.seed);
  // A cell with a value its storage cannot hold (StorageTraits::beyond_held) gets poison in its rest
  // slot (opposite(0) = 0): a select, not a branch, so that the CPU loop over cells vectorizes.
  bool beyond = false;
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) beyond |= T::beyond_held(v[i]);
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) {
    f[addr[d3q19::opposite(i)]] = T::poisoned(i == 0 && beyond, T::store_held(v[i], physics::slot_noise(noise, i)));
  }
}

// Two-pass step 1, and the even step of the fused form: collide in place, store reversed.
// (Written with direct addresses rather than through collide_at, so that the compiler sees
// unit-stride loads and vectorizes the CPU loop over cells.)
template <class S, class Index, bool Grey = false>
ROCKPERM_HD inline void collide_cell(S* f, Index stride, Index cell, const physics::CollisionParams& p,
                                     float drag = 0.0f) {
  using T = physics::StorageTraits<S>;
  float v[d3q19::q];
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) v[i] = T::load_held(f[i * stride + cell]);
  physics::collide<Grey>(v, p, T::unit, drag);
  const std::uint32_t noise = physics::rounding_noise(static_cast<std::uint32_t>(cell) + p.cell_offset, p.seed);
  bool beyond = false;  // as in collide_at: poison in the rest slot, by a select
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) beyond |= T::beyond_held(v[i]);
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) {
    f[d3q19::opposite(i) * stride + cell] =
        T::poisoned(i == 0 && beyond, T::store_held(v[i], physics::slot_noise(noise, i)));
  }
}

// Two-pass step 2: the 9 exchanges owned by `cell` (its positive directions). All 18 loads
// are issued before any store: every slot takes part in exactly one exchange, so nothing
// aliases, but the compiler cannot know that; exchanging pair by pair serializes 9 memory
// round trips per thread (the GPU swap ran at 65 % of copy bandwidth that way).
// Tables: how the neighbour tables are read (lib/lattice/neighbour_table.hpp).
template <class S, class Index, class Tables>
ROCKPERM_HD inline void swap_cell(S* f, Index stride, const Tables& neighbours, Index cell) {
  std::uint32_t t[d3q19::half];
  S mine[d3q19::half], theirs[d3q19::half];
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::half; ++i) t[i] = neighbours.at(i, i * stride + cell, static_cast<std::uint32_t>(cell));
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::half; ++i) {
    if (t[i] == none_index) continue;
    mine[i] = f[(i + 1 + d3q19::half) * stride + cell];
    theirs[i] = f[(i + 1) * stride + t[i]];
  }
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::half; ++i) {
    if (t[i] == none_index) continue;
    f[(i + 1 + d3q19::half) * stride + cell] = theirs[i];
    f[(i + 1) * stride + t[i]] = mine[i];
  }
}

// Fused A-A odd step: gather from the neighbours' swapped slots, collide, scatter back.
template <class S, class Index, class Tables, bool Grey = false>
ROCKPERM_HD inline void fused_odd_cell(S* f, Index stride, const Tables& tables, Index cell,
                                       const physics::CollisionParams& p, float drag = 0.0f) {
  Neighbour ahead[d3q19::half], behind[d3q19::half];
  if (!read_pairs(tables, stride, cell, ahead, behind)) return;  // a cell of a second pass (LineTables)
  Index addr[d3q19::q];
  addr[0] = cell;
ROCKPERM_UNROLL
  for (int i = 1; i <= d3q19::half; ++i) {
    const Neighbour& b = behind[i - 1];
    const Neighbour& a = ahead[i - 1];
    addr[i] = b.present ? (i + d3q19::half) * stride + b.index : i * stride + cell;
    addr[i + d3q19::half] = a.present ? i * stride + a.index : (i + d3q19::half) * stride + cell;
  }
  collide_at<S, Index, Grey>(f, addr, p, drag);
}

// A lattice with grey cells: every cell takes the grey collision with its phase's drag
// (CollisionParams::phases; 0 for an open cell, the same physics as the open collision to float
// rounding). One path for all cells, so that a warp of open and grey cells does not run both
// (with the open path beside it, a 20 %-grey pack ran 25 % slower in fp32 and 37 % in fp16 on an
// H200, docs/PERFORMANCE.md).
template <class S, class Index>
ROCKPERM_HD inline void collide_cell_by_phase(S* f, Index stride, Index cell, const physics::CollisionParams& p) {
  collide_cell<S, Index, true>(f, stride, cell, p, p.drag[p.phases[cell]]);
}
template <class S, class Index, class Tables>
ROCKPERM_HD inline void fused_odd_cell_by_phase(S* f, Index stride, const Tables& tables, Index cell,
                                                const physics::CollisionParams& p) {
  fused_odd_cell<S, Index, Tables, true>(f, stride, tables, cell, p, p.drag[p.phases[cell]]);
}

}  // namespace rockperm::lattice::propagation
