#pragma once
// How the propagation reads the neighbour tables (lib/lattice/propagation.hpp): `at(slot, cell)`
// is the fluid index stored at table slot `slot` (= k * stride + cell), or propagation's none_index.
// The GPU's fused form reads GroupedPairTables (2.25 bytes per entry, below) where they fit the
// device, else LineTables (1.22, lib/lattice/line_tables.hpp), and where those do not hold the
// lattice PackedPairTables (3), else IndexTables (4).
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

#include "lib/base/host_array.hpp"

#include "lib/base/hd.hpp"
#include "lib/physics/d3q19.hpp"

namespace rockperm::lattice {

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

inline constexpr std::uint32_t no_neighbour = 0xFFFFFFFFu;  // an index table's "none" (propagation::none_index)
inline constexpr std::uint32_t packed_none = 0x800000u;    // -2^23 in 24 bits
inline constexpr std::int64_t packed_limit = 0x7FFFFF;   // the largest |offset|

// A neighbour as the fused odd step reads it: its fluid index, and whether there is one (no:
// the population bounces back). A flag beside the index, not a reserved index, so that the
// step tests each entry once.
struct Neighbour {
  std::uint32_t index;
  bool present;
};

// The fluid index `offset` cells from `cell`, where offsets are the shorter way round the array
// (|offset| <= cells / 2): cell + offset lies in [-cells / 2, 3 cells / 2), and one add of
// `cells` either way brings it back (cells < 2^31 - 2^23, so nothing overflows).
ROCKPERM_HD inline std::uint32_t wrap_offset(std::int32_t offset, std::uint32_t cell, std::uint32_t cells) {
  const auto n = static_cast<std::int32_t>(cells);
  std::int32_t t = static_cast<std::int32_t>(cell) + offset;
  t = t < 0 ? t + n : t;
  t = t >= n ? t - n : t;
  return static_cast<std::uint32_t>(t);
}

// The neighbour of a packed entry of `cell` whose 24 bits, sign-extended, are `offset`
// (not present where they mark none).
ROCKPERM_HD inline Neighbour unpack_neighbour(std::int32_t offset, std::uint32_t cell, std::uint32_t cells) {
  return {wrap_offset(offset, cell, cells), offset != -static_cast<std::int32_t>(packed_none)};
}

// The 24-bit entry of a packed table as a signed offset: bytes `b0` and `b1` of `low` and byte
// `b2` of `high`, sign-extended (on the GPU one byte permute, whose selector can replicate a
// byte's sign bit).
template <int b0, int b1, int b2>
ROCKPERM_HD inline std::int32_t packed_offset(std::uint32_t low, std::uint32_t high) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(low), "r"(high), "n"(b0 | b1 << 4 | (4 + b2) << 8 | (12 + b2) << 12));
  return static_cast<std::int32_t>(r);
#else
  const std::uint32_t bits = ((low >> (8 * b0)) & 0xFFu) | ((low >> (8 * b1)) & 0xFFu) << 8 | ((high >> (8 * b2)) & 0xFFu) << 16;
  return static_cast<std::int32_t>(bits << 8) >> 8;
#endif
}

// index-or-none form of a Neighbour (the swap, tests)
ROCKPERM_HD inline std::uint32_t index_or_none(Neighbour n) { return n.present ? n.index : no_neighbour; }

struct PackedTable {
  const std::uint16_t* low;  // bits 0..15 of the 24-bit offset
  const std::uint8_t* high;  // bits 16..23
  std::uint32_t cells;       // the lattice's fluid cells (the modulus)
  template <class Index>
  ROCKPERM_HD std::uint32_t at(Index slot, std::uint32_t cell) const {
#if defined(__CUDA_ARCH__)
    const std::uint32_t l = __ldg(low + slot), h = __ldg(high + slot);
#else
    const std::uint32_t l = low[slot], h = high[slot];
#endif
    return index_or_none(unpack_neighbour(packed_offset<0, 1, 0>(l, h), cell, cells));
  }
};

// What the propagation reads: at(k, slot, cell) the positive table (the swap), and for the fused
// form pair(k, slot, cell, ahead, behind) both tables of a direction; k = 0..8 is the direction
// (e_{k+1}) and slot = k * stride + cell.
//  - IndexTables: the lattice's own tables (the CPU; the GPU when they do not pack);
//  - PackedTables: the positive table packed (a two-pass lattice on the GPU);
//  - PackedPairTables: both packed and interleaved, a direction's two entries in one 32-bit
//    word (their low 16 bits) and one 16-bit word (their high 8 bits): two loads per direction
//    instead of four in the fused odd step, whose time goes to the latency of its loads.
struct IndexTables {
  IndexTable pos, neg;
  template <class Index>
  ROCKPERM_HD std::uint32_t at(int /*k*/, Index slot, std::uint32_t cell) const {
    return pos.at(slot, cell);
  }
  template <class Index>
  ROCKPERM_HD void pair(int /*k*/, Index slot, std::uint32_t cell, Neighbour& ahead, Neighbour& behind) const {
    const std::uint32_t a = pos.at(slot, cell), b = neg.at(slot, cell);
    ahead = {a, a != no_neighbour};
    behind = {b, b != no_neighbour};
  }
};

struct PackedTables {
  PackedTable pos;
  template <class Index>
  ROCKPERM_HD std::uint32_t at(int /*k*/, Index slot, std::uint32_t cell) const {
    return pos.at(slot, cell);
  }
};

struct PackedPairTables {
  const std::uint32_t* low;   // positive entry's bits 0..15 | negative entry's << 16
  const std::uint16_t* high;  // positive entry's bits 16..23 | negative entry's << 8
  std::uint32_t cells;
  template <class Index>
  ROCKPERM_HD void load(Index slot, std::uint32_t& low_bits, std::uint32_t& high_bits) const {
#if defined(__CUDA_ARCH__)
    low_bits = __ldg(low + slot);
    high_bits = __ldg(high + slot);
#else
    low_bits = low[slot];
    high_bits = high[slot];
#endif
  }
  template <class Index>
  ROCKPERM_HD std::uint32_t at(int /*k*/, Index slot, std::uint32_t cell) const {
    std::uint32_t l, h;
    load(slot, l, h);
    return index_or_none(unpack_neighbour(packed_offset<0, 1, 0>(l, h), cell, cells));
  }
  template <class Index>
  ROCKPERM_HD void pair(int /*k*/, Index slot, std::uint32_t cell, Neighbour& ahead, Neighbour& behind) const {
    std::uint32_t l, h;
    load(slot, l, h);
    ahead = unpack_neighbour(packed_offset<0, 1, 0>(l, h), cell, cells);
    behind = unpack_neighbour(packed_offset<2, 3, 1>(l, h), cell, cells);
  }
};

// GroupedPairTables: both tables at 2 bytes per entry (the fused form on the GPU, where the odd
// step is bound by the L2 traffic of its gathers, scatters and tables: 4-byte tables made it 5 %
// slower than 3-byte ones). The offsets of 32 consecutive cells (a warp) in one direction lie in
// at most two clusters (a periodic wrap is the second: the last row's +y neighbours are a plane
// back, the last plane's +z neighbours the whole array back), so each group keeps two 32-bit
// bases per direction and table, and each entry a bit that picks one and its offset from it as
// a 15-bit number (-2^14 marks none): 2 + 16/64 bytes per entry. Used when every group fits (pack_grouped_pair_tables), else PackedPairTables.
inline constexpr std::uint32_t group_cells = 32;
inline constexpr std::int32_t grouped_none = -0x4000;
inline constexpr std::int64_t grouped_span = 2 * 0x3FFF;  // the widest cluster of offsets

// The neighbour of a grouped entry: its 16 bits are the top half of `bits` (the others zero),
// bit 31 picks the base. Grouped offsets are the neighbour's index minus the cell's as they are
// (grouped_offset), not the shorter way round the array as the packed ones: a periodic wrap is
// a cluster of its own, and the step adds base and delta to the cell with nothing to wrap. (The
// wrap was 6 of the 12 instructions that decode an entry, a tenth of the fp16 odd step's.)
ROCKPERM_HD inline Neighbour grouped_neighbour(std::uint32_t bits, std::int32_t base0, std::int32_t base1,
                                               std::uint32_t cell) {
  const std::int32_t delta = static_cast<std::int32_t>(bits << 1) >> 17;
  const std::int32_t base = static_cast<std::int32_t>(bits) < 0 ? base1 : base0;
  return {cell + static_cast<std::uint32_t>(base + delta), delta != grouped_none};
}

struct GroupedPairTables {
  const std::uint32_t* delta;  // per slot: the positive entry's 16 bits | the negative entry's << 16
  const std::int32_t* base;    // per group and direction: the positive table's two bases, the negative's
  template <class Index>
  ROCKPERM_HD void load(int k, Index slot, std::uint32_t cell, std::uint32_t& d, std::int32_t (&b)[4]) const {
    const std::uint64_t at = 4 * ((cell / group_cells) * static_cast<std::uint64_t>(9) + k);
#if defined(__CUDA_ARCH__)
    d = __ldg(delta + slot);
    const int4 bases = __ldg(reinterpret_cast<const int4*>(base + at));  // one 16-byte word for the warp
    b[0] = bases.x, b[1] = bases.y, b[2] = bases.z, b[3] = bases.w;
#else
    d = delta[slot];
    for (int i = 0; i < 4; ++i) b[i] = base[at + i];
#endif
  }
  template <class Index>
  ROCKPERM_HD std::uint32_t at(int k, Index slot, std::uint32_t cell) const {
    std::uint32_t d;
    std::int32_t b[4];
    load(k, slot, cell, d, b);
    return index_or_none(grouped_neighbour(d << 16, b[0], b[1], cell));
  }
  template <class Index>
  ROCKPERM_HD void pair(int k, Index slot, std::uint32_t cell, Neighbour& ahead, Neighbour& behind) const {
    std::uint32_t d;
    std::int32_t b[4];
    load(k, slot, cell, d, b);
    ahead = grouped_neighbour(d << 16, b[0], b[1], cell);
    behind = grouped_neighbour(d & 0xFFFF0000u, b[2], b[3], cell);
  }
};

// The fused odd step's read of all 18 neighbours (lib/lattice/propagation.hpp): ahead[k] along
// e_{k+1}, behind[k] along -e_{k+1}; direction by direction for these tables (LineTables decode
// them together, lib/lattice/line_tables.hpp). True: the step steps the cell (LineTables leave
// their exceptions to a second pass).
template <class Tables, class Index>
ROCKPERM_HD inline bool read_pairs(const Tables& tables, Index stride, Index cell, Neighbour (&ahead)[d3q19::half],
                                   Neighbour (&behind)[d3q19::half]) {
ROCKPERM_UNROLL
  for (int k = 0; k < d3q19::half; ++k) {
    tables.pair(k, k * stride + cell, static_cast<std::uint32_t>(cell), ahead[k], behind[k]);
  }
  return true;
}

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

// The host side of a PackedPairTables: both tables (`entries` slots each) packed and interleaved
// in one pass; false, as pack_table, when an offset does not fit.
struct PackedPairData {
  std::vector<std::uint32_t> low;
  std::vector<std::uint16_t> high;
};
bool pack_pair_tables(const std::uint32_t* pos, const std::uint32_t* neg, std::uint64_t entries, std::uint64_t stride,
                      std::uint32_t cells, PackedPairData& out);

// The host side of a GroupedPairTables: both tables (`entries` = 9 * stride slots each, stride a
// multiple of group_cells) as deltas and bases; false when a group's offsets in one direction do
// not fall into two clusters of 15 bits (then the 3-byte tables serve).
struct GroupedPairData {
  HostArray<std::uint32_t> delta;  // 4 bytes a link of a 1000^3 rock: filled by threads, never zeroed first
  std::vector<std::int32_t> base;  // 36 per group: for each direction the positive table's 2, the negative's 2
};
bool pack_grouped_pair_tables(const std::uint32_t* pos, const std::uint32_t* neg, std::uint64_t entries,
                              std::uint64_t stride, std::uint32_t cells, GroupedPairData& out);

// The packers' pieces, shared with lib/lattice/line_tables.cpp:
//  - short_offset: from `cell` to `t` the shorter way round an array of n cells (a periodic wrap
//    becomes a short step: the packed tables);
//  - grouped_offset: from `cell` to `t` as they are (the grouped and line tables: see
//    grouped_neighbour);
//  - packable_size: whether a lattice of `cells` is small enough for offsets of 24 bits or less;
//  - group_bases: the two bases of one group's offsets in one direction (sorts `offsets`), false
//    when they do not fall into two clusters of 15 bits;
//  - grouped_bits: the 16 bits of an entry under those bases (grouped_none where not present).
struct GroupBases {
  std::int64_t base[2] = {0, 0};
  std::int64_t split = 0;  // offsets from here on take base[1]
};
std::int64_t short_offset(std::uint32_t t, std::int64_t cell, std::int64_t n);
ROCKPERM_HD inline std::int64_t grouped_offset(std::uint32_t t, std::int64_t cell) {
  return static_cast<std::int64_t>(t) - cell;
}
bool packable_size(std::uint32_t cells);
bool group_bases(std::vector<std::int64_t>& offsets, GroupBases& out);

// group_bases of `n` offsets sorted ascending (the host sorts a vector; the device's table
// builder ranks a warp's offsets): two clusters, the first from the smallest offset as far as one
// span reaches, the second the rest; each base half-way across its cluster.
ROCKPERM_HD inline bool group_bases_sorted(const std::int64_t* sorted, int n, GroupBases& out) {
  out = GroupBases{};
  if (n == 0) return true;
  int second = 0;  // the first offset past the first cluster (upper_bound)
  while (second < n && sorted[second] <= sorted[0] + grouped_span) ++second;
  if (second < n && sorted[n - 1] - sorted[second] > grouped_span) return false;
  out.split = second == n ? sorted[n - 1] + 1 : sorted[second];
  out.base[0] = sorted[0] + (sorted[second - 1] - sorted[0]) / 2;
  out.base[1] = second == n ? out.base[0] : sorted[second] + (sorted[n - 1] - sorted[second]) / 2;
  return true;
}

ROCKPERM_HD inline std::uint32_t grouped_bits(const GroupBases& bases, std::int64_t offset, bool present) {
  if (!present) return static_cast<std::uint32_t>(grouped_none) & 0x7FFFu;
  const int which = offset >= bases.split ? 1 : 0;
  return (static_cast<std::uint32_t>(offset - bases.base[which]) & 0x7FFFu) | static_cast<std::uint32_t>(which) << 15;
}

}  // namespace rockperm::lattice
