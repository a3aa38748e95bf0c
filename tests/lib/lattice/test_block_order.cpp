// The odd step's order of blocks (lib/lattice/block_order.hpp): every block of a range once, band
// by band, and cells a plane apart visited close together where the numbering puts them far apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "lib/lattice/block_order.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

constexpr std::uint32_t B = lattice::order_block_cells;

// the blocks of [begin, end) in the order visited: `order`, or numbering order where it is empty
std::vector<std::uint32_t> visited(const std::vector<std::uint32_t>& order, std::uint32_t begin, std::uint32_t end) {
  if (!order.empty()) return order;
  std::vector<std::uint32_t> all;
  for (std::uint32_t k = begin / B; k <= (end - 1) / B; ++k) all.push_back(k);
  return all;
}

// the mean distance, in blocks visited, between a cell's block and its +z neighbour's
double mean_plane_distance(const lattice::SparseLattice& lat, const std::vector<std::uint32_t>& order) {
  const auto blocks = visited(order, 0, lat.fluid_count());
  std::vector<std::uint32_t> position(blocks.size());
  for (std::uint32_t p = 0; p < blocks.size(); ++p) position[blocks[p]] = p;
  double sum = 0;
  std::uint64_t pairs = 0;
  const auto& c = lat.coords();
  for (std::uint32_t cell = 0; cell < lat.fluid_count(); ++cell) {
    if (c[cell].z + 1 >= lat.dims().nz) continue;
    const std::uint32_t up = lat.index_of(c[cell].x, c[cell].y, c[cell].z + 1);
    if (up == lattice::none) continue;
    sum += std::abs(static_cast<double>(position[up / B]) - position[cell / B]);
    ++pairs;
  }
  return sum / static_cast<double>(pairs);
}

}  // namespace

TEST(BlockOrder, EveryBlockOfARangeOnceBandByBandInNumberingOrderWithinABand) {
  const lattice::SparseLattice lat = lattice::SparseLattice::build(
      testing::random_mask(geometry::Dims{150, 120, 40}, 0.4, 3), {true, true, true}, true);
  const lattice::BlockBands bands = lattice::block_bands(lat, 1000);
  ASSERT_GT(bands.bands, 3u);
  EXPECT_EQ(bands.bands, (lat.dims().ny + bands.rows - 1) / bands.rows);
  const std::uint32_t n = lat.fluid_count();
  for (const auto& [begin, end] : {std::pair{0u, n}, std::pair{n / 3 + 7, 2 * n / 3 + 13}, std::pair{B + 1, 3 * B}}) {
    // (the last range lies in one band: numbering order, an empty order)
    const std::vector<std::uint32_t> order = lattice::block_order(bands, begin, end);
    EXPECT_EQ(order.empty(), begin == B + 1);
    std::vector<std::uint32_t> sorted = visited(order, begin, end);
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, visited({}, begin, end)) << begin << ".." << end;  // each block once
    for (std::size_t i = 1; i < order.size(); ++i) {
      const auto a = bands.band[order[i - 1]], b = bands.band[order[i]];
      EXPECT_TRUE(a < b || (a == b && order[i - 1] < order[i])) << i;
    }
  }
  // a block's band is its first cell's row's
  for (std::uint32_t k = 0; k < bands.band.size(); ++k) EXPECT_EQ(bands.band[k], lat.coords()[k * B].y / bands.rows);
}

TEST(BlockOrder, BandsBringCellsAPlaneApartCloser) {
  const lattice::SparseLattice lat = lattice::SparseLattice::build(
      testing::random_mask(geometry::Dims{400, 400, 12}, 0.3, 5), {true, true, true}, true);
  // a plane holds about 48,000 cells (188 blocks); a band about 2,400 (20 rows, 9.4 blocks)
  const lattice::BlockBands bands = lattice::block_bands(lat, 2400);
  ASSERT_GE(bands.rows, 18u);
  ASSERT_LE(bands.rows, 22u);
  const double numbered = mean_plane_distance(lat, {}),
               banded = mean_plane_distance(lat, lattice::block_order(bands, 0, lat.fluid_count()));
  testing::record("plane_distance_numbered_blocks", numbered);
  testing::record("plane_distance_banded_blocks", banded);
  EXPECT_GT(numbered, 150.0);
  EXPECT_LT(banded, 20.0);
}

TEST(BlockOrder, OneBandIsNumberingOrder) {
  const lattice::SparseLattice lat = lattice::SparseLattice::build(
      testing::random_mask(geometry::Dims{30, 20, 10}, 0.5, 7), {true, true, true}, true);
  for (const std::uint64_t cells : {std::uint64_t{0}, std::uint64_t{1} << 20}) {
    const lattice::BlockBands bands = lattice::block_bands(lat, cells);
    EXPECT_EQ(bands.bands, 1u) << cells;
    EXPECT_TRUE(lattice::block_order(bands, 0, lat.fluid_count()).empty()) << cells;
  }
  // a range within one band of a banded lattice: numbering order too
  const lattice::BlockBands bands = lattice::block_bands(lat, 100);
  ASSERT_GT(bands.bands, 1u);
  EXPECT_TRUE(lattice::block_order(bands, 0, 10).empty());
}

// Bands only where a plane's data is more than half the L2, each a quarter of the L2's worth.
TEST(BlockOrder, BandsWhereAPlaneOutgrowsHalfTheL2) {
  const lattice::SparseLattice lat = lattice::SparseLattice::build(
      testing::random_mask(geometry::Dims{100, 100, 10}, 0.3, 9), {true, true, true}, true);
  const double plane = lat.fluid_count() / 10.0;  // about 3,000 cells
  const double bytes = 60;                         // fp16 with line tables
  const auto l2_for = [&](double planes_per_l2) { return static_cast<std::uint64_t>(plane * bytes * planes_per_l2); };
  EXPECT_EQ(lattice::odd_band_cells(lat, bytes, l2_for(2.01)), 0u);  // a plane fits half the L2
  EXPECT_EQ(lattice::odd_band_cells(lat, bytes, l2_for(10)), 0u);
  const std::uint64_t l2 = l2_for(1.5), cells = lattice::odd_band_cells(lat, bytes, l2);
  EXPECT_EQ(cells, static_cast<std::uint64_t>(l2 / 4.0 / bytes));
  EXPECT_EQ(lattice::block_bands(lat, cells).bands, 3u);  // 37.5 % of a plane: rows of 37
  EXPECT_EQ(lattice::odd_band_cells(lat, 0, l2), 0u);
}

}  // namespace rockperm
