#include "lib/lattice/line_tables.hpp"

#include <algorithm>

namespace rockperm::lattice {

namespace {

// The rank of line r for a cell whose neighbours along e_1..e_18 are t[1..18] (no_neighbour where
// absent), or false where none of the line's voxels next to the cell is one: the centre voxel's
// index, else the one after it (dx = +1: the centre is solid, so that one takes its place), else
// one past the one before it (dx = -1; past the last cell, the cell count, no rank can hold: the
// check in pack_line_tables then makes the cell an exception).
struct LineDirections {
  int centre[line_ranks], after[line_ranks], before[line_ranks];
  constexpr LineDirections() : centre{}, after{}, before{} {
    for (int r = 0; r < line_ranks; ++r) {
      centre[r] = line_centre(r), after[r] = line_direction(r, 1), before[r] = line_direction(r, -1);
    }
  }
};
constexpr LineDirections directions;

bool line_rank_value(int r, const std::uint32_t (&t)[d3q19::q], std::uint32_t cells, std::uint32_t& rank) {
  const int centre = directions.centre[r], after = directions.after[r], before = directions.before[r];
  if (t[centre] != no_neighbour) {
    rank = t[centre];
  } else if (after > 0 && t[after] != no_neighbour) {
    rank = t[after];
  } else if (before > 0 && t[before] != no_neighbour) {
    rank = t[before] + 1 == cells ? 0 : t[before] + 1;  // 0: not the neighbour's rank (see above)
  } else {
    return false;
  }
  return true;
}

// The neighbours of cell c along e_1..e_18 (t[0] unused) and their presence mask.
std::uint32_t neighbours_of(const TableWindow& w, std::uint64_t c, std::uint32_t (&t)[d3q19::q]) {
  std::uint32_t m = 0;
  t[0] = no_neighbour;
  const std::uint64_t at = c - w.first;
  for (int j = 1; j < d3q19::q; ++j) {
    t[j] = j <= d3q19::half ? w.positive[(j - 1) * w.stride + at] : w.negative[(j - 1 - d3q19::half) * w.stride + at];
    if (t[j] != no_neighbour) m |= 1u << (j - 1);
  }
  return m;
}

// Group g's masks, ranks and bases; its exceptions are counted (`exceptions`) and numbered in
// their masks, their indices stored later. False when a line's ranks do not group.
bool pack_group(const TableWindow& w, std::uint64_t stride, std::uint32_t cells,
                std::uint64_t g, LineTableData& out, std::uint32_t& exceptions) {
  const std::uint64_t first = g * group_cells;
  const std::uint64_t last = std::min<std::uint64_t>(first + group_cells, cells);
  std::uint32_t rank[group_cells][line_ranks];
  bool known[group_cells][line_ranks] = {};
  exceptions = 0;
  for (std::uint64_t c = first; c < last; ++c) {
    std::uint32_t t[d3q19::q];
    std::uint32_t m = neighbours_of(w, c, t);
    std::uint32_t* r = rank[c - first];
    for (int l = 0; l < line_ranks; ++l) known[c - first][l] = line_rank_value(l, t, cells, r[l]);
    bool exception = false;
    for (int j = 1; j < d3q19::q; ++j) {
      exception |= t[j] != no_neighbour && line_index(j, rank[c - first], m, static_cast<std::uint32_t>(c)) != t[j];
    }
    if (exception) {
      m |= line_exception | exceptions++ << line_ordinal_shift;
      std::fill(known[c - first], known[c - first] + line_ranks, false);
    }
    out.mask[c] = m;
  }
  std::vector<std::int64_t> offsets;
  offsets.reserve(group_cells);
  for (int l = 0; l < line_ranks; ++l) {
    offsets.clear();
    for (std::uint64_t c = first; c < last; ++c) {
      if (known[c - first][l]) offsets.push_back(grouped_offset(rank[c - first][l], static_cast<std::int64_t>(c)));
    }
    GroupBases bases;
    if (!group_bases(offsets, bases)) return false;
    std::int32_t* stored = &out.base[g * 4 * line_rank_rows + 2 * l];
    stored[0] = static_cast<std::int32_t>(bases.base[0]);
    stored[1] = static_cast<std::int32_t>(bases.base[1]);
    for (std::uint64_t c = first; c < first + group_cells; ++c) {
      const bool present = c < last && known[c - first][l];
      const std::int64_t offset = present ? grouped_offset(rank[c - first][l], static_cast<std::int64_t>(c)) : 0;
      out.ranks[(l / 2) * stride + c] |= grouped_bits(bases, offset, present) << (16 * (l & 1));
    }
  }
  return true;
}

}  // namespace

// Groups are independent but for the numbering of exceptions: a window's groups in parallel, then
// its exceptions' indices, numbered in cell order (the order of the groups' running sum of
// exceptions and of the ordinals within a group), so that each window's records follow the last
// window's and every window's tables are built once.
bool pack_line_tables(const std::function<TableWindow(std::uint64_t first, std::uint64_t end)>& window,
                      std::uint64_t stride, std::uint32_t cells, std::uint64_t chunk_cells, LineTableData& out) {
  if (!packable_size(cells) || stride % group_cells != 0) return false;
  const auto groups = static_cast<std::int64_t>(stride / group_cells);
  const std::int64_t chunk_groups = std::max<std::int64_t>(1, static_cast<std::int64_t>(chunk_cells / group_cells));
  out.mask.assign(stride, 0);
  out.ranks.assign(line_rank_rows * stride, 0);
  out.base.assign(groups * 4 * line_rank_rows, 0);
  out.exception_first.assign(groups, 0);
  out.exceptions.clear();
  std::uint64_t total = 0;  // exceptions of the windows before
  for (std::int64_t g0 = 0; g0 < groups; g0 += chunk_groups) {
    const std::int64_t g1 = std::min(groups, g0 + chunk_groups);
    const std::uint64_t first = std::min<std::uint64_t>(g0 * group_cells, cells);
    const std::uint64_t end = std::min<std::uint64_t>(g1 * group_cells, cells);
    // the padding cells past `cells` have no tables
    const TableWindow w = first < end ? window(first, end) : TableWindow{first, end, 0, nullptr, nullptr};
    bool grouped = true;
#pragma omp parallel for schedule(static) reduction(&& : grouped)
    for (std::int64_t g = g0; g < g1; ++g) grouped = pack_group(w, stride, cells, g, out, out.exception_first[g]) && grouped;
    if (!grouped) return false;
    for (std::int64_t g = g0; g < g1; ++g) {  // each group's count becomes its first exception's number
      const std::uint32_t count = out.exception_first[g];
      out.exception_first[g] = static_cast<std::uint32_t>(total);
      total += count;
    }
    if (total * 16 > cells) return false;  // also keeps the numbers in 32 bits
    out.exceptions.resize(total * line_exception_words, no_neighbour);
#pragma omp parallel for schedule(static)
    for (std::int64_t c = static_cast<std::int64_t>(first); c < static_cast<std::int64_t>(end); ++c) {
      const std::uint32_t m = out.mask[c];
      if (!(m & line_exception)) continue;
      const std::uint64_t number = out.exception_first[c / group_cells] + ((m >> line_ordinal_shift) & 31u);
      std::uint32_t t[d3q19::q];
      neighbours_of(w, c, t);
      std::copy(t + 1, t + d3q19::q, out.exceptions.begin() + number * line_exception_words);
      out.exceptions[number * line_exception_words + line_exception_cell] = static_cast<std::uint32_t>(c);
    }
  }
  return true;
}

bool pack_line_tables(const std::uint32_t* pos, const std::uint32_t* neg, std::uint64_t entries, std::uint64_t stride,
                      std::uint32_t cells, LineTableData& out) {
  if (entries != d3q19::half * stride) return false;
  const TableWindow whole{0, stride, stride, pos, neg};
  return pack_line_tables([&](std::uint64_t, std::uint64_t) { return whole; }, stride, cells, stride, out);
}

}  // namespace rockperm::lattice
