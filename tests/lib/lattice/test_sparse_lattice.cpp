#include <gtest/gtest.h>

#include <algorithm>

#include "lib/physics/d3q19.hpp"
#include "lib/base/error.hpp"
#include "lib/backend/byte_model.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

TEST(SparseLattice, CellsAreInRasterOrderAndRoundTrip) {
  const geometry::Dims d{13, 7, 5};
  const geometry::PoreMask mask = testing::random_mask(d, 0.45, 17);
  const lattice::SparseLattice lat = lattice::SparseLattice::build(mask, {false, false, false});
  EXPECT_EQ(lat.fluid_count(), mask.pore_count());
  EXPECT_EQ(lat.stride() % 32, 0u);
  EXPECT_GE(lat.stride(), lat.fluid_count());
  std::uint64_t previous = 0;
  for (std::uint32_t c = 0; c < lat.fluid_count(); ++c) {
    const lattice::Coord& xyz = lat.coords()[c];
    EXPECT_TRUE(mask.is_pore(xyz.x, xyz.y, xyz.z));
    const std::uint64_t linear = d.linear(xyz.x, xyz.y, xyz.z);
    if (c > 0) {
      EXPECT_GT(linear, previous);
    }
    previous = linear;
    EXPECT_EQ(lat.index_of(xyz.x, xyz.y, xyz.z), c);
  }
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < d.nx; ++x)
        if (!mask.is_pore(x, y, z)) {
          EXPECT_EQ(lat.index_of(x, y, z), lattice::none);
        }
  EXPECT_EQ(lat.index_of(-1, 0, 0), lattice::none);
  EXPECT_EQ(lat.index_of(0, 0, d.nz), lattice::none);
}

TEST(SparseLattice, NeighbourTableMatchesCoordinatesWithPeriodicity) {
  const geometry::Dims d{6, 5, 4};
  for (const geometry::Periodicity per :
       {geometry::Periodicity{true, false, true}, geometry::Periodicity{false, true, false}})
    for (const geometry::EdgeContacts edges : {geometry::EdgeContacts::sealed, geometry::EdgeContacts::open})
      for (const bool negative : {true, false}) {
        const geometry::PoreMask mask = testing::random_mask(d, 0.7, 23);
        const lattice::SparseLattice lat = lattice::SparseLattice::build(mask, per, negative, false, edges);
        for (std::uint32_t c = 0; c < lat.fluid_count(); ++c) {
          for (int i = 1; i < d3q19::q; ++i) {
            const std::uint32_t expected = testing::expected_link(lat, c, i);
            EXPECT_EQ(lat.neighbour(c, i), expected) << "cell " << c << " direction " << i;
            if (!negative && i > 9) continue;
            const std::uint32_t table = i <= 9 ? lat.neighbours()[(i - 1) * lat.stride() + c]
                                               : lat.negative_neighbours()[(i - 10) * lat.stride() + c];
            EXPECT_EQ(table, expected);
          }
        }
      }
}

// Deferred tables (the GPU builds its own from the mask): the same cells, and make_tables() and
// neighbour() give the host form's tables, padding included.
TEST(SparseLattice, DeferredTablesAreTheHostOnes) {
  const geometry::Dims d{9, 7, 6};
  for (const geometry::Periodicity per :
       {geometry::Periodicity{true, false, true}, geometry::Periodicity{false, true, false}})
    for (const geometry::EdgeContacts edges : {geometry::EdgeContacts::sealed, geometry::EdgeContacts::open})
      for (const bool negative : {true, false}) {
        const geometry::PoreMask mask = testing::random_mask(d, 0.6, 5);
        const lattice::SparseLattice host = lattice::SparseLattice::build(mask, per, negative, false, edges);
        const lattice::SparseLattice deferred =
            lattice::SparseLattice::build(mask, per, negative, false, edges, lattice::LatticeTables::deferred);
        EXPECT_TRUE(host.has_tables());
        ASSERT_FALSE(deferred.has_tables());
        EXPECT_TRUE(deferred.neighbours().empty());
        EXPECT_EQ(deferred.has_negative(), negative);
        EXPECT_EQ(deferred.mask().pore, mask.pore);
        EXPECT_EQ(deferred.plane_offsets(), host.plane_offsets());
        ASSERT_EQ(deferred.fluid_count(), host.fluid_count());
        ASSERT_EQ(deferred.stride(), host.stride());
        for (std::uint32_t c = 0; c < host.fluid_count(); ++c) {
          EXPECT_EQ(deferred.coords()[c].x, host.coords()[c].x);
          EXPECT_EQ(deferred.coords()[c].y, host.coords()[c].y);
          EXPECT_EQ(deferred.coords()[c].z, host.coords()[c].z);
          for (int i = 0; i < d3q19::q; ++i) EXPECT_EQ(deferred.neighbour(c, i), host.neighbour(c, i));
        }
        const lattice::NeighbourTables t = deferred.make_tables();
        ASSERT_EQ(t.positive.size(), host.neighbours().size());
        EXPECT_TRUE(std::equal(t.positive.begin(), t.positive.end(), host.neighbours().begin()));
        ASSERT_EQ(t.negative.size(), host.negative_neighbours().size());
        EXPECT_TRUE(std::equal(t.negative.begin(), t.negative.end(), host.negative_neighbours().begin()));
        EXPECT_THROW(host.make_tables(), Error);
      }
}

TEST(SparseLattice, PaddingIsBelowOneStrideBlockPerCell) {
  const geometry::Dims d{32, 32, 32};
  const lattice::SparseLattice lat = lattice::SparseLattice::build(testing::random_mask(d, 0.3, 1), {true, true, true});
  EXPECT_GE(lat.padding(), 1.0);
  EXPECT_NEAR(lat.padding(), 1.0, 64.0 / lat.fluid_count());
  const backend::ByteModel two_pass{backend::Propagation::two_pass};
  EXPECT_DOUBLE_EQ(two_pass.dense_per_voxel(), 76.0);
  EXPECT_NEAR(two_pass.dense_per_voxel() * d.voxels() / (two_pass.memory_per_cell() * lat.fluid_count()),
              76.0 / (112.0 * 0.3), 0.1);
}

TEST(SparseLattice, EmptyPoreSpaceIsAnInputError) {
  const geometry::Dims d{4, 4, 4};
  const geometry::PoreMask mask = testing::mask_from(d, [](auto, auto, auto) { return false; });
  EXPECT_THROW(lattice::SparseLattice::build(mask, {true, true, true}), InputError);
}

}  // namespace rockperm
