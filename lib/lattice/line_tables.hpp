#pragma once
// LineTables: the fused form's two neighbour tables in 22 bytes per fluid cell (1.22 per entry),
// for the GPU's odd step (lib/lattice/propagation.hpp) where the grouped tables (40.5 bytes per
// cell, built on the device) do not fit it (cuda/cuda_backend.hpp, TableForm). Per step they were
// 1.5-5 % faster than the grouped ones on an H200's packs, but slower in a tight pack's run, and
// the host packs them (docs/PERFORMANCE.md, "What was tried").
//
// Cells are numbered in raster order, x fastest, fluid cells only. So along an x-line two fluid
// voxels side by side have consecutive indices, and the 18 neighbours of a cell need only:
//  - its presence mask: bit j - 1 says whether the neighbour along e_j (j = 1..18) is a fluid
//    cell the populations stream to (lib/physics/d3q19.hpp numbering);
//  - for each of the 8 lines next to the cell's own (the voxel offsets d = (dy, dz) != 0), a rank
//    R_d: the index the voxel (x, y + dy, z + dz) has, or would have, among the fluid cells: the
//    neighbours (x + dx, y + dy, z + dz) are then R_d - 1 (dx = -1), R_d (dx = 0) and R_d + 1 or R_d
//    (dx = +1, as the voxel at dx = 0 is fluid or not);
//  - the neighbours along x itself, cell - 1 and cell + 1.
// The ranks are stored as the grouped tables store entries (2 bytes: a 15-bit offset from one of
// two bases per 32 cells, lib/lattice/neighbour_table.hpp), two lines' in one 32-bit word.
// A cell where this does not hold (a periodic wrap along x joins a line's two ends; the last
// cell of the array) is an exception: its 18 indices are stored whole, in cell order, found
// through its group's first exception and its ordinal in the group (the mask's bits 18..22).
// The odd step leaves exception cells to a second, small pass over the exception list
// (LineException): a test for them inside the step cost it 4 % (fp16) to 7 % (fp32) on an H200
// even where no cell was one, as the loads after the test waited for it. pack_line_tables checks
// every neighbour of every cell, so any lattice packs exactly, and gives up (the grouped tables
// serve) when exceptions are many.
#include <cstdint>
#include <functional>
#include <vector>

#include "lib/base/hd.hpp"
#include "lib/lattice/neighbour_table.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/physics/d3q19.hpp"

namespace rockperm::lattice {

inline constexpr int line_ranks = 8;                    // lines next to a cell's own in D3Q19
inline constexpr int line_rank_rows = line_ranks / 2;   // two 16-bit ranks per 32-bit word
inline constexpr int line_exception_words = 20;         // 18 indices, the cell, one unused
inline constexpr int line_exception_cell = 18;          // the word of the exception's cell
inline constexpr std::uint32_t line_exception = 1u << 23;  // the mask bit of an exception cell
inline constexpr int line_ordinal_shift = 18;           // its ordinal in its group: 5 bits from here
// Bytes per fluid cell, both tables: the mask, the rank words, the bases (without exceptions).
inline constexpr double line_table_bytes = 4.0 + 4.0 * line_rank_rows + 4.0 * 4 * line_rank_rows / group_cells;
static_assert(line_table_bytes == 22.0);

// The rank of the line at voxel offset (dy, dz): lines d and -d share a word (low, high half).
ROCKPERM_HD constexpr int line_rank(int dy, int dz) {
  return dy == 1 && dz == 0     ? 0
         : dy == -1 && dz == 0  ? 1
         : dy == 0 && dz == 1   ? 2
         : dy == 0 && dz == -1  ? 3
         : dy == 1 && dz == 1   ? 4
         : dy == -1 && dz == -1 ? 5
         : dy == 1 && dz == -1  ? 6
         : dy == -1 && dz == 1  ? 7
                                : -1;
}
// The line of direction j's neighbour (-1: the cell's own line, j = 1 and 10).
ROCKPERM_HD constexpr int line_rank_of(int j) { return line_rank(d3q19::cy(j), d3q19::cz(j)); }
// The direction to the voxel at dx = `dx` of line `rank`, or -1 (the diagonal lines have one).
ROCKPERM_HD constexpr int line_direction(int rank, int dx) {
  for (int j = 1; j < d3q19::q; ++j) {
    if (d3q19::cx(j) == dx && line_rank_of(j) == rank) return j;
  }
  return -1;
}
// The direction to the voxel at dx = 0 of line `rank` (a lookup: the host's packer calls it per entry).
ROCKPERM_HD constexpr int line_centre(int rank) {
  constexpr std::int8_t v[line_ranks] = {2, 11, 3, 12, 8, 17, 9, 18};
  return v[rank];
}
static_assert([] {
  for (int r = 0; r < line_ranks; ++r) {
    if (line_centre(r) != line_direction(r, 0)) return false;
  }
  return true;
}());

// The index of direction j's neighbour under the rule above (meaningful where bit j - 1 of
// `mask` is set and the cell is no exception).
ROCKPERM_HD inline std::uint32_t line_index(int j, const std::uint32_t (&rank)[line_ranks], std::uint32_t mask,
                                            std::uint32_t cell) {
  const int r = line_rank_of(j), dx = d3q19::cx(j);
  if (r < 0) return cell + dx;
  if (dx == 1) return rank[r] + ((mask >> (line_centre(r) - 1)) & 1u);
  return rank[r] + dx;
}

struct LineTables {
  const std::uint32_t* mask;             // per cell: presence bits, exception flag and ordinal
  const std::uint32_t* ranks;            // line_rank_rows rows of `stride` words: ranks 2w | 2w + 1 << 16
  const std::int32_t* base;              // per group: for each row the low rank's two bases, the high one's
  const std::uint32_t* exception_first;  // per group: its first exception's number
  const std::uint32_t* exceptions;       // per exception: its 18 indices (none where absent), its cell, 1 unused
  std::uint64_t stride;

  template <class T>
  static ROCKPERM_HD T read(const T* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
  }
  // the indices of an exception cell whose group's first exception is `first`
  ROCKPERM_HD const std::uint32_t* exception_of(std::uint32_t m, std::uint32_t first) const {
    const std::uint32_t number = first + ((m >> line_ordinal_shift) & 31u);
    return exceptions + static_cast<std::uint64_t>(number) * line_exception_words;
  }
  // the rank of line r of `cell` from its row word and the group's bases
  ROCKPERM_HD std::uint32_t rank_of(int r, std::uint32_t word, const std::int32_t* bases, std::uint32_t cell) const {
    const std::uint32_t bits = (r & 1) ? word & 0xFFFF0000u : word << 16;
    return grouped_neighbour(bits, bases[2 * (r & 1)], bases[2 * (r & 1) + 1], cell).index;
  }

  // Whether the rule gives the cell's neighbours (not an exception).
  ROCKPERM_HD bool by_rule(std::uint32_t cell) const { return !(read(mask + cell) & line_exception); }
  // All 18 neighbours of a cell by_rule: ahead[k] along e_{k+1}, behind[k] along -e_{k+1}; false
  // (the neighbours meaningless) for an exception.
  template <class Index>
  ROCKPERM_HD bool pairs(Index cell_index, Neighbour (&ahead)[d3q19::half], Neighbour (&behind)[d3q19::half]) const {
    const auto cell = static_cast<std::uint32_t>(cell_index);
    const auto rows = static_cast<Index>(stride);
    const std::uint32_t m = read(mask + cell_index);
    std::uint32_t word[line_rank_rows];
    std::int32_t b[4 * line_rank_rows];
    const std::uint64_t group = (cell / group_cells) * static_cast<std::uint64_t>(4 * line_rank_rows);
ROCKPERM_UNROLL
    for (int w = 0; w < line_rank_rows; ++w) {
      word[w] = read(ranks + w * rows + cell_index);
#if defined(__CUDA_ARCH__)
      const int4 v = __ldg(reinterpret_cast<const int4*>(base + group) + w);  // one 16-byte word for the warp
      b[4 * w] = v.x, b[4 * w + 1] = v.y, b[4 * w + 2] = v.z, b[4 * w + 3] = v.w;
#else
      for (int i = 0; i < 4; ++i) b[4 * w + i] = base[group + 4 * w + i];
#endif
    }
    std::uint32_t rank[line_ranks];
ROCKPERM_UNROLL
    for (int r = 0; r < line_ranks; ++r) rank[r] = rank_of(r, word[r / 2], b + 4 * (r / 2), cell);
    std::uint32_t index[d3q19::q];
ROCKPERM_UNROLL
    for (int j = 1; j < d3q19::q; ++j) index[j] = line_index(j, rank, m, cell);
ROCKPERM_UNROLL
    for (int k = 0; k < d3q19::half; ++k) {
      ahead[k] = {index[k + 1], ((m >> k) & 1u) != 0};
      behind[k] = {index[k + 1 + d3q19::half], ((m >> (k + d3q19::half)) & 1u) != 0};
    }
    return !(m & line_exception);
  }

  // The neighbour along e_{k+1} (the swap of a two-pass step run on a fused lattice, tests).
  template <class Index>
  ROCKPERM_HD std::uint32_t at(int k, Index /*slot*/, std::uint32_t cell) const {
    const int j = k + 1;
    const std::uint32_t m = read(mask + cell);
    if (!((m >> k) & 1u)) return no_neighbour;
    if (m & line_exception) return read(exception_of(m, read(exception_first + cell / group_cells)) + k);
    std::uint32_t rank[line_ranks] = {};
    const int r = line_rank_of(j);
    if (r >= 0) {
      const std::int32_t* bases = base + (cell / group_cells) * static_cast<std::uint64_t>(4 * line_rank_rows) + 4 * (r / 2);
      const std::int32_t b[4] = {read(bases), read(bases + 1), read(bases + 2), read(bases + 3)};
      rank[r] = rank_of(r, read(ranks + (r / 2) * stride + cell), b, cell);
    }
    return line_index(j, rank, m, cell);
  }
};

// The neighbours of one exception cell, from its record (the odd step's second pass).
struct LineException {
  const std::uint32_t* record;  // line_exception_words: the 18 indices, the cell
  template <class Index>
  ROCKPERM_HD void pair(int k, Index /*slot*/, std::uint32_t /*cell*/, Neighbour& ahead, Neighbour& behind) const {
    const std::uint32_t a = LineTables::read(record + k), b = LineTables::read(record + k + d3q19::half);
    ahead = {a, a != no_neighbour};
    behind = {b, b != no_neighbour};
  }
};

// The fused odd step's read of all 18 neighbours (propagation.hpp): one decode for LineTables;
// false for an exception, which the step leaves to its second pass. (The mask is tested after
// every table load is issued: a test before them made the step wait one load longer.)
template <class Index>
ROCKPERM_HD inline bool read_pairs(const LineTables& tables, Index /*stride*/, Index cell,
                                   Neighbour (&ahead)[d3q19::half], Neighbour (&behind)[d3q19::half]) {
  return tables.pairs(cell, ahead, behind);
}

// The host side of a LineTables.
struct LineTableData {
  std::vector<std::uint32_t> mask;             // stride
  std::vector<std::uint32_t> ranks;            // line_rank_rows * stride
  std::vector<std::int32_t> base;              // 4 * line_rank_rows per group
  std::vector<std::uint32_t> exception_first;  // per group
  std::vector<std::uint32_t> exceptions;       // line_exception_words per exception
  std::uint64_t exception_count() const { return exceptions.size() / line_exception_words; }
};

// Packs the fused lattice's tables (`entries` = 9 * stride slots each, stride a multiple of
// group_cells) into `out`; false (leaving `out` unspecified) when a line's ranks in a group do not
// fall into two 15-bit clusters, or more than one cell in 16 is an exception (a lattice a few
// voxels wide, periodic along x): then the grouped tables serve.
bool pack_line_tables(const std::uint32_t* pos, const std::uint32_t* neg, std::uint64_t entries, std::uint64_t stride,
                      std::uint32_t cells, LineTableData& out);

// The same packing, the full tables made a window of about `chunk_cells` cells at a time by
// `window(first, end)` (valid until its next call): the host then holds 72 B per cell of a window
// instead of the whole lattice's (97 GB for 1.35 G cells). The same result as the whole tables'.
bool pack_line_tables(const std::function<TableWindow(std::uint64_t first, std::uint64_t end)>& window,
                      std::uint64_t stride, std::uint32_t cells, std::uint64_t chunk_cells, LineTableData& out);

}  // namespace rockperm::lattice
