#include "lib/lattice/neighbour_table.hpp"

#include "lib/lattice/propagation.hpp"

namespace rockperm {

namespace {

// The 24 bits of the entry `t` of `cell` (none for padding or no neighbour), or false when its
// offset does not fit.
bool pack_entry(std::uint32_t t, std::int64_t cell, std::int64_t n, std::uint32_t& bits) {
  bits = packed_none;
  if (cell >= n || t == propagation::none_index) return true;
  std::int64_t offset = static_cast<std::int64_t>(t) - cell;
  // the shorter way round the array: a periodic wrap becomes a short step
  if (offset > n / 2) offset -= n;
  if (offset < -(n / 2)) offset += n;
  if (offset > packed_limit || offset < -packed_limit) return false;
  bits = static_cast<std::uint32_t>(offset) & 0xFFFFFFu;
  return true;
}

bool packable_size(std::uint32_t cells) { return cells < 0x80000000u - packed_limit; }

}  // namespace

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

}  // namespace rockperm
