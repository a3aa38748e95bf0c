#pragma once
// A halo list (population offsets slot * stride + cell, lib/parallel/partition.hpp) as the GPU
// reads it: 4-byte cell indices, in runs of one slot each with the slot given once per run. A
// pack or unpack reads one index per slot it moves, half the bytes of an offset (in fp16 an
// offset was four times the slot). Measured gain small: the packs wait on their loads' latency
// more than on bytes (the measurement: git log -p docs/PERFORMANCE.md, "The decomposed step on one device").
#include <cstdint>
#include <vector>

#include "lib/base/hd.hpp"

namespace rockperm::parallel {

struct HaloRows {
  // the slots that cross a z cut in one direction (cz = +1, or -1)
  static constexpr int max_runs = 5;
  int runs = 0;
  std::uint32_t entries = 0;          // end[runs - 1], kept apart so that a kernel reads it by a constant index
  std::uint32_t end[max_runs] = {};   // run r holds the entries [end[r - 1], end[r])
  std::uint32_t slot[max_runs] = {};  // and their slot
  ROCKPERM_HD std::uint32_t count() const { return entries; }
  // the population offset of entry k, whose cell is `cell` (unrolled: no indexing by a
  // variable into the kernel's parameters)
  ROCKPERM_HD std::uint64_t offset(std::uint32_t k, std::uint32_t cell, std::uint64_t stride) const {
    std::uint32_t s = slot[0];
    ROCKPERM_UNROLL
    for (int r = 1; r < max_runs; ++r) s = r < runs && k >= end[r - 1] ? slot[r] : s;
    return s * stride + cell;
  }
};

// `offsets` as cells and runs; false when it is not made of at most max_runs runs of one slot
// each (build_halo_lists lists slot by slot), or a cell does not fit 32 bits.
inline bool split_halo_list(const std::vector<std::uint64_t>& offsets, std::uint64_t stride,
                            std::vector<std::uint32_t>& cells, HaloRows& rows) {
  rows = HaloRows{};
  cells.clear();
  cells.reserve(offsets.size());
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    const std::uint64_t slot = offsets[k] / stride, cell = offsets[k] % stride;
    if (cell > 0xFFFFFFFFull) return false;
    if (rows.runs == 0 || slot != rows.slot[rows.runs - 1]) {
      if (rows.runs == HaloRows::max_runs) return false;
      rows.slot[rows.runs++] = static_cast<std::uint32_t>(slot);
    }
    rows.end[rows.runs - 1] = rows.entries = static_cast<std::uint32_t>(k + 1);
    cells.push_back(static_cast<std::uint32_t>(cell));
  }
  return true;
}

}  // namespace rockperm::parallel
