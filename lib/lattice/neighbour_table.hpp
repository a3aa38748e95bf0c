#pragma once
// How the propagation reads a neighbour table (lib/lattice/propagation.hpp): `at(slot, cell)` is
// the fluid index stored at table slot `slot` (= k * stride + cell), or propagation's none_index.
//
//  - IndexTable: the lattice's own table, 4 bytes per entry (the CPU backend; any lattice).
//  - PackedTable: 3 bytes per entry, for the GPU, where the tables are a third of the fused
//    form's memory at fp16 (36 of 110 B per cell) and a third of its odd step's traffic. An
//    entry is the neighbour's index relative to the cell, modulo the cell count (so that a
//    periodic wrap, which jumps across the whole array, is a short step backwards), as a
//    signed 24-bit number split into a 16-bit plane and an 8-bit plane (two coalesced loads).
//    -2^23 marks "no neighbour". Neighbours lie within about one plane of fluid cells of each
//    other in the raster order, so a lattice packs when its planes hold fewer than ~8 million
//    fluid cells (a 2800^2 slice of pure pore); pack_table says when one does not.
#include <cstdint>
#include <vector>

#include "lib/base/hd.hpp"

namespace rockperm {

struct IndexTable {
  const std::uint32_t* index;
  template <class Index>
  ROCKPERM_HD std::uint32_t at(Index slot, std::uint32_t /*cell*/) const {
#if defined(__CUDA_ARCH__)
    return __ldg(index + slot);
#else
    return index[slot];
#endif
  }
};

inline constexpr std::uint32_t packed_none = 0x800000u;  // -2^23 in 24 bits
inline constexpr std::int64_t packed_limit = 0x7FFFFF;   // the largest |offset|

struct PackedTable {
  const std::uint16_t* low;  // bits 0..15 of the 24-bit offset
  const std::uint8_t* high;  // bits 16..23
  std::uint32_t cells;       // the lattice's fluid cells (the modulus)
  template <class Index>
  ROCKPERM_HD std::uint32_t at(Index slot, std::uint32_t cell) const {
#if defined(__CUDA_ARCH__)
    const std::uint32_t bits = (static_cast<std::uint32_t>(__ldg(high + slot)) << 16) | __ldg(low + slot);
#else
    const std::uint32_t bits = (static_cast<std::uint32_t>(high[slot]) << 16) | low[slot];
#endif
    // sign-extend the 24 bits; as an unsigned add, a negative offset wraps
    const auto offset = static_cast<std::int32_t>(bits << 8) >> 8;
    std::uint32_t t = cell + static_cast<std::uint32_t>(offset);
    // past either end of [0, cells): the periodic wrap (cells < 2^31, so the two cases are apart)
    if (t >= cells) t = offset < 0 ? t + cells : t - cells;
    return bits == packed_none ? 0xFFFFFFFFu : t;
  }
};

// The host side of a PackedTable.
struct PackedTableData {
  std::vector<std::uint16_t> low;
  std::vector<std::uint8_t> high;
};

// Packs `entries` slots of `table` (k * stride + cell; cells at and beyond `cells` in each
// row are padding and pack as none). Returns false, leaving `out` unspecified, when an offset
// does not fit in 24 bits or the lattice has 2^31 cells or more.
bool pack_table(const std::uint32_t* table, std::uint64_t entries, std::uint64_t stride, std::uint32_t cells,
                PackedTableData& out);

}  // namespace rockperm
