#include <gtest/gtest.h>

#include "lib/parallel/device_assignment.hpp"
#include "lib/parallel/halo_rows.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/base/error.hpp"
#include "lib/parallel/partition.hpp"
#include "lib/parallel/plan.hpp"

namespace rockperm {

TEST(Partition, BalancesFluidNotThickness) {
  // porosity rising along z: equal thickness would give the last rank most of the cells
  std::vector<std::uint64_t> planes;
  for (int z = 0; z < 100; ++z) planes.push_back(10 + 2 * z);
  const auto slabs = parallel::partition_slabs(planes, 4);
  ASSERT_EQ(slabs.size(), 4u);
  std::uint64_t total = 0;
  for (auto p : planes) total += p;
  EXPECT_EQ(slabs.front().z_begin, 0);
  EXPECT_EQ(slabs.back().z_end, 100);
  for (std::size_t r = 0; r < slabs.size(); ++r) {
    if (r > 0) {
      EXPECT_EQ(slabs[r].z_begin, slabs[r - 1].z_end);
    }
    EXPECT_GE(slabs[r].z_end - slabs[r].z_begin, 1);
    EXPECT_NEAR(static_cast<double>(slabs[r].fluid), total / 4.0, 210.0);  // within one plane
  }
  EXPECT_GT(slabs[0].z_end - slabs[0].z_begin, slabs[3].z_end - slabs[3].z_begin);
}

TEST(Partition, EveryRankGetsAPlaneEvenWhenEmpty) {
  const std::vector<std::uint64_t> planes = {0, 0, 100, 0, 0};
  const auto slabs = parallel::partition_slabs(planes, 5);
  for (int r = 0; r < 5; ++r) EXPECT_EQ(slabs[r].z_end - slabs[r].z_begin, 1);
  EXPECT_THROW(parallel::partition_slabs(planes, 6), InputError);
}

TEST(Partition, DomainsWrapOnlyWhenPeriodic) {
  const auto slabs = parallel::partition_slabs({5, 5, 5, 5}, 2);
  const parallel::SlabDomain a = parallel::slab_domain(slabs, 0, 4, true);
  EXPECT_EQ(a.lower, 1);
  EXPECT_EQ(a.upper, 1);
  EXPECT_EQ(a.planes, (std::vector<std::int64_t>{3, 0, 1, 2}));
  const parallel::SlabDomain b = parallel::slab_domain(slabs, 0, 4, false);
  EXPECT_EQ(b.lower, -1);
  EXPECT_EQ(b.planes, (std::vector<std::int64_t>{0, 1, 2}));
}

// The halo lists go slot by slot, so that the GPU keeps 4-byte cells and at most 5 runs
// (HaloRows) and a pack's warps read whole rows; the offsets come back entry for entry.
TEST(Partition, HaloListsSplitIntoCellsAndRunsOfOneSlot) {
  const geometry::Dims dims{7, 6, 8};
  geometry::PoreMask mask{dims, std::vector<std::uint8_t>(dims.voxels())};
  for (std::int64_t v = 0; v < dims.voxels(); ++v) mask.pore[v] = (v * 2654435761u >> 5) % 10 < 7;
  const auto slabs = parallel::partition_slabs(parallel::plane_fluid_counts(mask), 2);
  const parallel::SlabDomain domain = parallel::slab_domain(slabs, 1, dims.nz, true);
  const geometry::Periodicity periodic{true, true, true};
  const lattice::SparseLattice local =
      parallel::build_slab_lattice(parallel::extract_planes(mask, domain.planes), domain, periodic, true);
  const auto lists = parallel::build_halo_lists(local, domain);
  ASSERT_EQ(lists.size(), 4u);
  for (const auto& list : lists) {
    ASSERT_FALSE(list.empty());
    std::vector<std::uint32_t> cells;
    parallel::HaloRows rows;
    ASSERT_TRUE(parallel::split_halo_list(list, local.stride(), cells, rows));
    EXPECT_EQ(rows.runs, parallel::HaloRows::max_runs);  // every crossing slot has a fluid target somewhere here
    ASSERT_EQ(rows.count(), list.size());
    for (std::uint32_t k = 0; k < list.size(); ++k) {
      ASSERT_EQ(rows.offset(k, cells[k], local.stride()), list[k]) << "entry " << k;
      if (k > 0 && list[k] / local.stride() == list[k - 1] / local.stride()) EXPECT_GT(cells[k], cells[k - 1]);
    }
    for (int r = 0; r < rows.runs; ++r) EXPECT_EQ(std::abs(d3q19::cz(static_cast<int>(rows.slot[r]))), 1);
  }
  // cell by cell (two slots interleaved) is more runs than a cut has slots
  std::vector<std::uint64_t> interleaved;
  for (std::uint64_t c = 0; c < 4; ++c) {
    for (const std::uint64_t s : {5u, 14u}) interleaved.push_back(s * local.stride() + c);
  }
  std::vector<std::uint32_t> cells;
  parallel::HaloRows rows;
  EXPECT_FALSE(parallel::split_halo_list(interleaved, local.stride(), cells, rows));
}

TEST(Plan, MemoryAndRanksNeeded) {
  const std::vector<std::uint64_t> planes(100, 1000000);  // 1e8 cells
  EXPECT_DOUBLE_EQ(backend::ByteModel{backend::Propagation::two_pass}.memory_per_cell(), 112.0);
  EXPECT_DOUBLE_EQ(backend::ByteModel{backend::Propagation::fused}.memory_per_cell(), 148.0);
  // 1e8 cells x 112 B = 11.2 GB: 1 GPU of 16 GiB, 3 of 5 GiB (each rank adds two ghost planes)
  EXPECT_EQ(parallel::ranks_needed(planes, 16.0 * 1073741824.0, backend::Propagation::two_pass), 1);
  EXPECT_EQ(parallel::ranks_needed(planes, 5.0 * 1073741824.0, backend::Propagation::two_pass), 3);
  EXPECT_EQ(parallel::ranks_needed(planes, 1e6, backend::Propagation::two_pass), 0);
}

TEST(Plan, GpuTablesPackUnlessTwoNeighbouringPlanesHoldTooManyCells) {
  EXPECT_EQ(parallel::gpu_index_bytes(std::vector<std::uint64_t>(512, 78643)), 3.0);  // a 512^3 pack at 30 %
  // 2 x 4.2 M: beyond the 24-bit offsets (also across the periodic wrap from the last plane to the first)
  EXPECT_EQ(parallel::gpu_index_bytes({4200000, 10, 4200000}), 4.0);
  EXPECT_EQ(parallel::gpu_index_bytes({4200000, 10, 10, 4200000}), 4.0);
  EXPECT_EQ(parallel::gpu_index_bytes({4200000, 10, 10, 10}), 3.0);
  // the fused form: its line tables, 22 bytes per cell
  EXPECT_DOUBLE_EQ(parallel::gpu_index_bytes(std::vector<std::uint64_t>(512, 78643), backend::Propagation::fused),
                   22.0 / 18);
  EXPECT_EQ(parallel::gpu_index_bytes({4200000, 10, 4200000}, backend::Propagation::fused), 4.0);
  const std::vector<std::uint64_t> planes(64, 1000);
  EXPECT_DOUBLE_EQ(
      parallel::plan_memory(planes, 1, backend::Propagation::fused, physics::Storage::float16, 3.0)[0].bytes,
      64000 * 92.0);
}

TEST(DeviceAssignment, CountsEarlierRanksOnTheSameHost) {
  EXPECT_EQ(parallel::assign_devices({"a", "a", "b", "a", "b", "c"}), (std::vector<int>{0, 1, 0, 2, 1, 0}));
  EXPECT_EQ(parallel::assign_devices({}), std::vector<int>{});
}

TEST(DeviceAssignment, OverSubscriptionNamesTheHost) {
  const std::vector<std::string> hosts = {"gpu1", "gpu1", "gpu2", "gpu2", "gpu2"};
  const auto numbers = parallel::assign_devices(hosts);
  EXPECT_NO_THROW(parallel::check_device_counts(hosts, numbers, {2, 2, 3, 3, 3}));
  try {
    parallel::check_device_counts(hosts, numbers, {2, 2, 2, 2, 2});
    FAIL() << "accepted three ranks on a host with two GPUs";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gpu2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3 ranks"), std::string::npos) << e.what();
  }
}

}  // namespace rockperm
