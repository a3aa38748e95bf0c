// LineTables (lib/lattice/line_tables.hpp): every neighbour of every cell reads back as the
// lattice's own tables hold it, and the fused odd step over them is the same step bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "lib/lattice/line_tables.hpp"
#include "lib/lattice/propagation.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

struct Packed {
  lattice::LineTableData data;
  lattice::LineTables tables(const lattice::SparseLattice& lat) const {
    return {data.mask.data(), data.ranks.data(), data.base.data(), data.exception_first.data(), data.exceptions.data(),
            lat.stride()};
  }
};

bool pack(const lattice::SparseLattice& lat, Packed& out) {
  return pack_line_tables(lat.neighbours().data(), lat.negative_neighbours().data(), lat.neighbours().size(),
                          lat.stride(), lat.fluid_count(), out.data);
}

// every neighbour of every cell, through pairs() and at(), against the lattice's tables
void expect_reads_back(const lattice::SparseLattice& lat, const lattice::LineTables& line) {
  const lattice::IndexTables plain{{lat.neighbours().data()}, {lat.negative_neighbours().data()}};
  std::uint64_t exception = 0;
  for (std::uint32_t cell = 0; cell < lat.fluid_count(); ++cell) {
    lattice::Neighbour ahead[d3q19::half], behind[d3q19::half];
    if (line.by_rule(cell)) {
      ASSERT_TRUE(line.pairs(cell, ahead, behind));
    } else {  // the next record, in cell order
      const lattice::LineException record{line.exceptions + exception++ * lattice::line_exception_words};
      ASSERT_EQ(record.record[lattice::line_exception_cell], cell);
      lattice::read_pairs(record, lat.stride(), std::uint64_t{cell}, ahead, behind);
    }
    for (int k = 0; k < d3q19::half; ++k) {
      const std::uint64_t slot = k * lat.stride() + cell;
      lattice::Neighbour a, b;
      plain.pair(k, slot, cell, a, b);
      ASSERT_EQ(lattice::index_or_none(ahead[k]), lattice::index_or_none(a)) << "cell " << cell << " along e_" << k + 1;
      ASSERT_EQ(lattice::index_or_none(behind[k]), lattice::index_or_none(b))
          << "cell " << cell << " along -e_" << k + 1;
      ASSERT_EQ(line.at(k, slot, cell), lattice::index_or_none(a)) << "cell " << cell << " along e_" << k + 1;
    }
  }
}

}  // namespace

TEST(LineTables, EveryNeighbourReadsBackOnOpenAndPeriodicLattices) {
  int lattice_count = 0;
  for (const double porosity : {0.25, 0.5, 0.9}) {
    for (const bool px : {false, true}) {
      for (const bool pyz : {false, true}) {
        for (const geometry::EdgeContacts edges : {geometry::EdgeContacts::open, geometry::EdgeContacts::sealed}) {
          const geometry::PoreMask mask =
              testing::random_mask(geometry::Dims{37, 13, 11}, porosity, 7 + lattice_count++);
          const lattice::SparseLattice lat = lattice::SparseLattice::build(mask, {px, pyz, pyz}, true, false, edges);
          Packed packed;
          ASSERT_TRUE(pack(lat, packed)) << "porosity " << porosity;
          expect_reads_back(lat, packed.tables(lat));
          // the x wrap breaks the line rule; on a lattice closed along x only a cell next to the
          // last one can be an exception (a rank one past it would be the cell count)
          if (px) {
            EXPECT_GT(packed.data.exception_count(), 0u);
          } else {
            for (std::uint32_t cell = 0; cell < lat.fluid_count(); ++cell) {
              if (!(packed.data.mask[cell] & lattice::line_exception)) continue;
              bool next_to_last = false;
              for (int k = 0; k < d3q19::half; ++k) {
                next_to_last |= lat.neighbours()[k * lat.stride() + cell] == lat.fluid_count() - 1 ||
                                lat.negative_neighbours()[k * lat.stride() + cell] == lat.fluid_count() - 1;
              }
              EXPECT_TRUE(next_to_last) << "cell " << cell;
            }
          }
          EXPECT_EQ(packed.data.ranks.size(), lattice::line_rank_rows * lat.stride());
        }
      }
    }
  }
}

// Packed from windows of a deferred lattice's tables (a few planes of full tables at a time, as
// the GPU backend packs a lattice too large for the host to hold its whole tables): the same
// line tables, entry for entry, as packed from the whole tables, whatever the window's size
// (windows of 32 cells to all of them; planes of a few cells, so that groups of 32 cells span
// several planes and windows start inside a plane), periodic or not, open or sealed edges.
TEST(LineTables, PackedFromWindowsOfDeferredTablesAsFromTheWholeTables) {
  int seed = 40;
  for (const geometry::Dims dims : {geometry::Dims{37, 13, 11}, geometry::Dims{5, 3, 60}, geometry::Dims{64, 2, 9}}) {
    for (const bool px : {false, true}) {
      for (const geometry::EdgeContacts edges : {geometry::EdgeContacts::open, geometry::EdgeContacts::sealed}) {
        const geometry::PoreMask mask = testing::random_mask(dims, 0.6, seed++);
        const geometry::Periodicity periodic{px, true, true};
        const lattice::SparseLattice whole = lattice::SparseLattice::build(mask, periodic, true, false, edges);
        const lattice::SparseLattice deferred =
            lattice::SparseLattice::build(mask, periodic, true, false, edges, lattice::LatticeTables::deferred);
        ASSERT_FALSE(deferred.has_tables());
        Packed expected;
        const bool packs = pack(whole, expected);
        for (const std::uint64_t window_cells : {std::uint64_t{32}, std::uint64_t{96}, std::uint64_t{1000}, std::uint64_t{1} << 20}) {
          lattice::NeighbourTables scratch;
          std::uint64_t windows = 0;
          lattice::LineTableData got;
          const bool packed = pack_line_tables(
              [&](std::uint64_t first, std::uint64_t end) {
                ++windows;
                const lattice::TableWindow w = deferred.table_window(first, end, scratch);
                EXPECT_LE(w.first, first);
                EXPECT_GE(w.end, end);
                return w;
              },
              deferred.stride(), deferred.fluid_count(), window_cells, got);
          const std::string where = dims.str() + (px ? " periodic x" : "") +
                                    (edges == geometry::EdgeContacts::sealed ? " sealed" : " open") + ", windows of " +
                                    std::to_string(window_cells);
          ASSERT_EQ(packed, packs) << where;
          if (!packs) continue;
          EXPECT_GE(windows, (deferred.fluid_count() + window_cells - 1) / window_cells) << where;
          EXPECT_EQ(got.mask, expected.data.mask) << where;
          EXPECT_EQ(got.ranks, expected.data.ranks) << where;
          EXPECT_EQ(got.base, expected.data.base) << where;
          EXPECT_EQ(got.exception_first, expected.data.exception_first) << where;
          EXPECT_EQ(got.exceptions, expected.data.exceptions) << where;
        }
      }
    }
  }
}

TEST(LineTables, ANarrowPeriodicLatticeHasTooManyExceptionsAndFallsBack) {
  // 4 voxels along x, periodic: every other cell of a line is at an end and wraps
  const geometry::PoreMask mask = testing::random_mask(geometry::Dims{4, 16, 16}, 0.8, 2);
  Packed packed;
  EXPECT_FALSE(pack(lattice::SparseLattice::build(mask, {true, true, true}, true), packed));
  EXPECT_TRUE(pack(lattice::SparseLattice::build(mask, {false, true, true}, true), packed));
}

TEST(LineTables, FusedOddStepEqualsTheIndexTablesStepBitwise) {
  const geometry::PoreMask mask = testing::random_mask(geometry::Dims{40, 12, 10}, 0.45, 11);
  const lattice::SparseLattice lat = lattice::SparseLattice::build(mask, {true, true, true}, true);
  Packed packed;
  ASSERT_TRUE(pack(lat, packed));
  const auto p = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 2, 1e-4);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1e-3f, 1e-3f);
  std::vector<float> a(d3q19::q * lat.stride(), 0.0f);
  for (float& v : a) v = dist(rng);
  std::vector<float> b = a;
  const lattice::IndexTables plain{{lat.neighbours().data()}, {lat.negative_neighbours().data()}};
  const lattice::LineTables line = packed.tables(lat);
  // as the GPU steps them: the cells the rule covers, then the exceptions from their records
  for (std::uint64_t cell = 0; cell < lat.fluid_count(); ++cell) {
    lattice::propagation::fused_odd_cell<float, std::uint64_t>(a.data(), lat.stride(), plain, cell, p);
    lattice::propagation::fused_odd_cell<float, std::uint64_t>(b.data(), lat.stride(), line, cell,
                                                               p);  // not exceptions
  }
  ASSERT_GT(packed.data.exception_count(), 0u);
  for (std::uint64_t e = 0; e < packed.data.exception_count(); ++e) {
    const lattice::LineException record{packed.data.exceptions.data() + e * lattice::line_exception_words};
    lattice::propagation::fused_odd_cell<float, std::uint64_t>(b.data(), lat.stride(), record,
                                                               record.record[lattice::line_exception_cell], p);
  }
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

}  // namespace rockperm
