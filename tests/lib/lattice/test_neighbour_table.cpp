#include <gtest/gtest.h>

#include <vector>

#include "lib/lattice/neighbour_table.hpp"
#include "lib/lattice/propagation.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {
// every slot of a packed table reads back the lattice's own entry
void expect_packs_exactly(const HostArray<std::uint32_t>& table, const SparseLattice& lat) {
  PackedTableData data;
  ASSERT_TRUE(pack_table(table.data(), table.size(), lat.stride(), lat.fluid_count(), data));
  const PackedTable packed{data.low.data(), data.high.data(), lat.fluid_count()};
  const IndexTable plain{table.data()};
  for (std::uint64_t slot = 0; slot < table.size(); ++slot) {
    const auto cell = static_cast<std::uint32_t>(slot % lat.stride());
    if (cell >= lat.fluid_count()) {
      EXPECT_EQ(packed.at(slot, cell), propagation::none_index);  // padding
    } else {
      ASSERT_EQ(packed.at(slot, cell), plain.at(slot, cell)) << "slot " << slot;
    }
  }
}
}  // namespace

TEST(NeighbourTable, PackedTablesReadBackEveryEntryIncludingPeriodicWraps) {
  const PoreMask mask = testing::random_mask(Dims{17, 11, 9}, 0.55, 3);
  for (const bool periodic : {false, true}) {
    const SparseLattice lat = SparseLattice::build(mask, {periodic, periodic, periodic}, true);
    expect_packs_exactly(lat.neighbours(), lat);
    expect_packs_exactly(lat.negative_neighbours(), lat);
  }
}

TEST(NeighbourTable, InterleavedPairsReadBackBothTables) {
  const PoreMask mask = testing::random_mask(Dims{13, 9, 11}, 0.6, 8);
  const SparseLattice lat = SparseLattice::build(mask, {true, false, true}, true);
  PackedPairData pair;
  ASSERT_TRUE(pack_pair_tables(lat.neighbours().data(), lat.negative_neighbours().data(), lat.neighbours().size(),
                               lat.stride(), lat.fluid_count(), pair));
  const PackedPairTables packed{pair.low.data(), pair.high.data(), lat.fluid_count()};
  const IndexTables plain{{lat.neighbours().data()}, {lat.negative_neighbours().data()}};
  for (std::uint64_t slot = 0; slot < lat.neighbours().size(); ++slot) {
    const auto cell = static_cast<std::uint32_t>(slot % lat.stride());
    if (cell >= lat.fluid_count()) continue;
    Neighbour a, b, x, y;
    packed.pair(slot, cell, a, b);
    plain.pair(slot, cell, x, y);
    ASSERT_EQ(index_or_none(a), index_or_none(x)) << "slot " << slot;
    ASSERT_EQ(index_or_none(b), index_or_none(y)) << "slot " << slot;
    ASSERT_EQ(a.present, x.present);
    ASSERT_EQ(packed.at(slot, cell), index_or_none(x));
  }
}

TEST(NeighbourTable, AnOffsetBeyond24BitsDoesNotPack) {
  // a neighbour 2^23 cells ahead, half-way round an array of 2^24 cells: no short way round
  const std::uint64_t stride = 1u << 24;
  std::vector<std::uint32_t> table = {1u << 23, propagation::none_index};
  PackedTableData data;
  EXPECT_FALSE(pack_table(table.data(), table.size(), stride, 1u << 24, data));
  // one cell nearer packs, and the far end of a periodic wrap is a short step back
  table[0] = (1u << 23) - 1;
  EXPECT_TRUE(pack_table(table.data(), table.size(), stride, 1u << 24, data));
  table = {(1u << 24) - 1};
  ASSERT_TRUE(pack_table(table.data(), table.size(), stride, 1u << 24, data));
  EXPECT_EQ((PackedTable{data.low.data(), data.high.data(), 1u << 24}.at(0u, 0u)), (1u << 24) - 1);
}

}  // namespace rockperm
