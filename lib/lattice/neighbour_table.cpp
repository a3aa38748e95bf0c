#include "lib/lattice/neighbour_table.hpp"

#include "lib/lattice/propagation.hpp"

namespace rockperm {

bool pack_table(const std::uint32_t* table, std::uint64_t entries, std::uint64_t stride, std::uint32_t cells,
                PackedTableData& out) {
  if (cells >= 0x80000000u - packed_limit) return false;
  out.low.assign(entries, 0);
  out.high.assign(entries, 0);
  const auto n = static_cast<std::int64_t>(cells);
  for (std::uint64_t slot = 0; slot < entries; ++slot) {
    const auto cell = static_cast<std::int64_t>(slot % stride);
    const std::uint32_t t = table[slot];
    std::uint32_t bits = packed_none;
    if (cell < n && t != propagation::none_index) {
      std::int64_t offset = static_cast<std::int64_t>(t) - cell;
      // the shorter way round the array: a periodic wrap becomes a short step
      if (offset > n / 2) offset -= n;
      if (offset < -(n / 2)) offset += n;
      if (offset > packed_limit || offset < -packed_limit) return false;
      bits = static_cast<std::uint32_t>(offset) & 0xFFFFFFu;
    }
    out.low[slot] = static_cast<std::uint16_t>(bits & 0xFFFFu);
    out.high[slot] = static_cast<std::uint8_t>(bits >> 16);
  }
  return true;
}

PackedPairData interleave(const PackedTableData& pos, const PackedTableData& neg) {
  PackedPairData out;
  out.low.resize(pos.low.size());
  out.high.resize(pos.high.size());
  for (std::size_t k = 0; k < pos.low.size(); ++k) {
    out.low[k] = pos.low[k] | static_cast<std::uint32_t>(neg.low[k]) << 16;
    out.high[k] = static_cast<std::uint16_t>(pos.high[k] | neg.high[k] << 8);
  }
  return out;
}

}  // namespace rockperm
