#include <gtest/gtest.h>

#include <vector>

#include "lib/lattice/neighbour_table.hpp"
#include "lib/lattice/propagation.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {
// every slot of a packed table reads back the lattice's own entry
void expect_packs_exactly(const HostArray<std::uint32_t>& table, const lattice::SparseLattice& lat) {
  lattice::PackedTableData data;
  ASSERT_TRUE(lattice::pack_table(table.data(), table.size(), lat.stride(), lat.fluid_count(), data));
  const lattice::PackedTable packed{data.low.data(), data.high.data(), lat.fluid_count()};
  const lattice::IndexTable plain{table.data()};
  for (std::uint64_t slot = 0; slot < table.size(); ++slot) {
    const auto cell = static_cast<std::uint32_t>(slot % lat.stride());
    if (cell >= lat.fluid_count()) {
      EXPECT_EQ(packed.at(slot, cell), lattice::propagation::none_index);  // padding
    } else {
      ASSERT_EQ(packed.at(slot, cell), plain.at(slot, cell)) << "slot " << slot;
    }
  }
}
}  // namespace

TEST(NeighbourTable, PackedTablesReadBackEveryEntryIncludingPeriodicWraps) {
  const geometry::PoreMask mask = testing::random_mask(geometry::Dims{17, 11, 9}, 0.55, 3);
  for (const bool periodic : {false, true}) {
    const lattice::SparseLattice lat = lattice::SparseLattice::build(mask, {periodic, periodic, periodic}, true);
    expect_packs_exactly(lat.neighbours(), lat);
    expect_packs_exactly(lat.negative_neighbours(), lat);
  }
}

TEST(NeighbourTable, InterleavedPairsReadBackBothTables) {
  const geometry::PoreMask mask = testing::random_mask(geometry::Dims{13, 9, 11}, 0.6, 8);
  const lattice::SparseLattice lat = lattice::SparseLattice::build(mask, {true, false, true}, true);
  lattice::PackedPairData pair;
  ASSERT_TRUE(lattice::pack_pair_tables(lat.neighbours().data(), lat.negative_neighbours().data(),
                                        lat.neighbours().size(), lat.stride(), lat.fluid_count(), pair));
  const lattice::PackedPairTables packed{pair.low.data(), pair.high.data(), lat.fluid_count()};
  const lattice::IndexTables plain{{lat.neighbours().data()}, {lat.negative_neighbours().data()}};
  for (std::uint64_t slot = 0; slot < lat.neighbours().size(); ++slot) {
    const auto cell = static_cast<std::uint32_t>(slot % lat.stride());
    if (cell >= lat.fluid_count()) continue;
    lattice::Neighbour a, b, x, y;
    const int k = static_cast<int>(slot / lat.stride());
    packed.pair(k, slot, cell, a, b);
    plain.pair(k, slot, cell, x, y);
    ASSERT_EQ(lattice::index_or_none(a), lattice::index_or_none(x)) << "slot " << slot;
    ASSERT_EQ(lattice::index_or_none(b), lattice::index_or_none(y)) << "slot " << slot;
    ASSERT_EQ(a.present, x.present);
    ASSERT_EQ(packed.at(k, slot, cell), lattice::index_or_none(x));
  }
}

TEST(NeighbourTable, GroupedPairsReadBackBothTablesIncludingPeriodicWraps) {
  for (const bool periodic : {false, true}) {
    const geometry::PoreMask mask = testing::random_mask(geometry::Dims{19, 13, 11}, 0.5, 4);
    const lattice::SparseLattice lat = lattice::SparseLattice::build(mask, {periodic, true, periodic}, true);
    lattice::GroupedPairData data;
    ASSERT_TRUE(lattice::pack_grouped_pair_tables(lat.neighbours().data(), lat.negative_neighbours().data(),
                                         lat.neighbours().size(), lat.stride(), lat.fluid_count(), data));
    EXPECT_EQ(data.base.size(), lat.stride() / lattice::group_cells * 36);
    const lattice::GroupedPairTables grouped{data.delta.data(), data.base.data()};
    const lattice::IndexTables plain{{lat.neighbours().data()}, {lat.negative_neighbours().data()}};
    for (std::uint64_t slot = 0; slot < lat.neighbours().size(); ++slot) {
      const auto cell = static_cast<std::uint32_t>(slot % lat.stride());
      if (cell >= lat.fluid_count()) continue;
      const int k = static_cast<int>(slot / lat.stride());
      lattice::Neighbour a, b, x, y;
      grouped.pair(k, slot, cell, a, b);
      plain.pair(k, slot, cell, x, y);
      ASSERT_EQ(lattice::index_or_none(a), lattice::index_or_none(x)) << "slot " << slot;
      ASSERT_EQ(lattice::index_or_none(b), lattice::index_or_none(y)) << "slot " << slot;
      ASSERT_EQ(grouped.at(k, slot, cell), lattice::index_or_none(x));
    }
  }
}

TEST(NeighbourTable, AGroupsOffsetsMayFormTwoClustersButNotThree) {
  // one direction, 64 cells (two groups) of a long array; in the second group one neighbour
  // 70000 cells further than the others (a second cluster, as a periodic wrap makes), then
  // another 70000 beyond that (a third: no two 15-bit clusters reach all three)
  const std::uint32_t cells = 1000000;
  const std::uint64_t stride = 64;
  std::vector<std::uint32_t> pos(9 * stride, lattice::propagation::none_index),
      neg(9 * stride, lattice::propagation::none_index);
  for (std::uint32_t c = 0; c < stride; ++c) pos[c] = c + 10, neg[c] = c + 500000;  // neg: half-way round
  lattice::GroupedPairData data;
  const auto grouped = [&] { return lattice::GroupedPairTables{data.delta.data(), data.base.data()}; };
  ASSERT_TRUE(lattice::pack_grouped_pair_tables(pos.data(), neg.data(), pos.size(), stride, cells, data));
  EXPECT_EQ(grouped().at(0, 40u, 40u), 50u);
  pos[40] = 40 + 70000;
  ASSERT_TRUE(lattice::pack_grouped_pair_tables(pos.data(), neg.data(), pos.size(), stride, cells, data));
  lattice::Neighbour a, b;
  for (std::uint32_t c : {33u, 40u, 63u}) {
    grouped().pair(0, c, c, a, b);
    EXPECT_EQ(a.index, pos[c]);
    EXPECT_EQ(b.index, neg[c]);
    EXPECT_TRUE(a.present && b.present);
  }
  pos[41] = 41 + 140000;
  EXPECT_FALSE(lattice::pack_grouped_pair_tables(pos.data(), neg.data(), pos.size(), stride, cells, data));
}

TEST(NeighbourTable, AnOffsetBeyond24BitsDoesNotPack) {
  // a neighbour 2^23 cells ahead, half-way round an array of 2^24 cells: no short way round
  const std::uint64_t stride = 1u << 24;
  std::vector<std::uint32_t> table = {1u << 23, lattice::propagation::none_index};
  lattice::PackedTableData data;
  EXPECT_FALSE(lattice::pack_table(table.data(), table.size(), stride, 1u << 24, data));
  // one cell nearer packs, and the far end of a periodic wrap is a short step back
  table[0] = (1u << 23) - 1;
  EXPECT_TRUE(lattice::pack_table(table.data(), table.size(), stride, 1u << 24, data));
  table = {(1u << 24) - 1};
  ASSERT_TRUE(lattice::pack_table(table.data(), table.size(), stride, 1u << 24, data));
  EXPECT_EQ((lattice::PackedTable{data.low.data(), data.high.data(), 1u << 24}.at(0u, 0u)), (1u << 24) - 1);
}

}  // namespace rockperm
