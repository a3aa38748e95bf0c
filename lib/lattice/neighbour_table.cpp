#include "lib/lattice/neighbour_table.hpp"

#include <algorithm>

#include "lib/lattice/propagation.hpp"
#include "lib/physics/d3q19.hpp"

namespace rockperm::lattice {

namespace {

// The 24 bits of the entry `t` of `cell` (none for padding or no neighbour), or false when its
// offset does not fit.
bool pack_entry(std::uint32_t t, std::int64_t cell, std::int64_t n, std::uint32_t& bits) {
  bits = packed_none;
  if (cell >= n || t == propagation::none_index) return true;
  const std::int64_t offset = short_offset(t, cell, n);
  if (offset > packed_limit || offset < -packed_limit) return false;
  bits = static_cast<std::uint32_t>(offset) & 0xFFFFFFu;
  return true;
}

}  // namespace

std::int64_t short_offset(std::uint32_t t, std::int64_t cell, std::int64_t n) {
  std::int64_t offset = static_cast<std::int64_t>(t) - cell;
  if (offset > n / 2) offset -= n;
  if (offset < -(n / 2)) offset += n;
  return offset;
}

bool packable_size(std::uint32_t cells) { return cells < 0x80000000u - packed_limit; }

bool pack_table(const std::uint32_t* table, std::uint64_t entries, std::uint64_t stride, std::uint32_t cells,
                PackedTableData& out) {
  if (!packable_size(cells)) return false;
  out.low.assign(entries, 0);
  out.high.assign(entries, 0);
  for (std::uint64_t slot = 0; slot < entries; ++slot) {
    std::uint32_t bits;
    if (!pack_entry(table[slot], static_cast<std::int64_t>(slot % stride), cells, bits)) return false;
    out.low[slot] = static_cast<std::uint16_t>(bits & 0xFFFFu);
    out.high[slot] = static_cast<std::uint8_t>(bits >> 16);
  }
  return true;
}

bool pack_pair_tables(const std::uint32_t* pos, const std::uint32_t* neg, std::uint64_t entries, std::uint64_t stride,
                      std::uint32_t cells, PackedPairData& out) {
  if (!packable_size(cells)) return false;
  out.low.assign(entries, 0);
  out.high.assign(entries, 0);
  for (std::uint64_t slot = 0; slot < entries; ++slot) {
    const auto cell = static_cast<std::int64_t>(slot % stride);
    std::uint32_t p, q;
    if (!pack_entry(pos[slot], cell, cells, p) || !pack_entry(neg[slot], cell, cells, q)) return false;
    out.low[slot] = (p & 0xFFFFu) | (q & 0xFFFFu) << 16;
    out.high[slot] = static_cast<std::uint16_t>((p >> 16) | (q >> 16) << 8);
  }
  return true;
}

bool group_bases(std::vector<std::int64_t>& offsets, GroupBases& out) {
  std::sort(offsets.begin(), offsets.end());
  return group_bases_sorted(offsets.data(), static_cast<int>(offsets.size()), out);
}

bool pack_grouped_pair_tables(const std::uint32_t* pos, const std::uint32_t* neg, std::uint64_t entries,
                              std::uint64_t stride, std::uint32_t cells, GroupedPairData& out) {
  if (!packable_size(cells) || stride % group_cells != 0 || entries != d3q19::half * stride) return false;
  const std::uint64_t groups = stride / group_cells;
  // every entry is written by the thread of its group (below): the table is neither zeroed nor
  // faulted in by one thread first (5.5 GB for a 768^3 pack)
  out.delta = HostArray<std::uint32_t>(entries);
  out.base.assign(groups * 4 * d3q19::half, 0);
  const std::uint32_t* tables[2] = {pos, neg};
  bool grouped = true;
  // the groups are independent: in parallel (a 512^3 box took 15 s in one thread)
#pragma omp parallel for schedule(static) reduction(&& : grouped)
  for (std::int64_t g = 0; g < static_cast<std::int64_t>(groups); ++g) {
    std::vector<std::int64_t> offsets;
    offsets.reserve(group_cells);
    const std::int64_t first = static_cast<std::int64_t>(g * group_cells);
    const std::int64_t last = std::min<std::int64_t>(first + group_cells, cells);
    for (int k = 0; k < d3q19::half; ++k) {
      for (int side = 0; side < 2; ++side) {
        const std::uint32_t* table = tables[side] + k * stride;
        offsets.clear();
        for (std::int64_t c = first; c < last; ++c) {
          if (table[c] != propagation::none_index) offsets.push_back(grouped_offset(table[c], c));
        }
        GroupBases bases;
        const bool fits = group_bases(offsets, bases);
        grouped = grouped && fits;
        if (fits) {
          std::int32_t* stored = &out.base[(g * d3q19::half + k) * 4 + 2 * side];
          stored[0] = static_cast<std::int32_t>(bases.base[0]);
          stored[1] = static_cast<std::int32_t>(bases.base[1]);
        }
        for (std::int64_t c = first; c < first + static_cast<std::int64_t>(group_cells); ++c) {
          const bool present = fits && c < last && table[c] != propagation::none_index;
          const std::uint32_t bits = fits ? grouped_bits(bases, present ? grouped_offset(table[c], c) : 0, present) : 0;
          std::uint32_t& entry = out.delta[k * stride + c];
          entry = (side == 0 ? 0u : entry) | bits << (16 * side);  // side 0 writes the entry first
        }
      }
    }
  }
  return grouped;
}

}  // namespace rockperm::lattice
