// The split of a run's cells among GPUs and the host's cores (lib/parallel/work_split.hpp), and
// slabs cut to given shares (lib/parallel/partition.hpp).
#include <gtest/gtest.h>

#include <numeric>

#include "lib/base/error.hpp"
#include "lib/parallel/device_assignment.hpp"
#include "lib/parallel/partition.hpp"
#include "lib/parallel/work_split.hpp"

namespace rockperm {

namespace {
parallel::RankResources gpu(double speed, double memory = 80e9) { return {false, speed, memory, 148.0}; }
parallel::RankResources host(double speed, double memory = 500e9) { return {true, speed, memory, 148.0}; }
double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }
}  // namespace

TEST(WorkSplit, GpusAloneOrOffGiveEqualSlabs) {
  EXPECT_EQ(parallel::split_work({gpu(15e9), gpu(15e9)}, 1e8, parallel::HostShare{}).shares,
            (std::vector<double>{0.5, 0.5}));
  const parallel::WorkSplit off =
      parallel::split_work({gpu(15e9), host(0.5e9)}, 1e8, parallel::parse_host_share("off"));
  EXPECT_EQ(off.shares, (std::vector<double>{0.5, 0.5}));
}

TEST(WorkSplit, AutoFollowsTheSpeedsWhereEverythingFits) {
  const parallel::WorkSplit s = parallel::split_work({gpu(15e9), gpu(15e9), host(1.5e9)}, 1e8, parallel::HostShare{});
  ASSERT_EQ(s.shares.size(), 3u);
  EXPECT_NEAR(s.shares[0], 15.0 / 31.5, 1e-12);
  EXPECT_NEAR(s.shares[2], 1.5 / 31.5, 1e-12);
  EXPECT_NEAR(sum(s.shares), 1.0, 1e-12);
  EXPECT_FALSE(s.by_memory);
  EXPECT_NE(s.note.find("speeds"), std::string::npos);
  EXPECT_NE(s.note.find("add nothing here"), std::string::npos);
}

TEST(WorkSplit, AutoFillsTheGpusAndGivesTheHostTheRestWhereMemoryDecides) {
  // 600 M cells of 148 B (89 GB) on one 80 GB GPU: it holds 0.95 * 80e9 / 148 cells, the host the rest
  const double cells = 600e6, gpu_cells = 0.95 * 80e9 / 148.0;
  const parallel::WorkSplit s = parallel::split_work({gpu(15e9), host(0.5e9)}, cells, parallel::HostShare{});
  EXPECT_TRUE(s.by_memory);
  EXPECT_NEAR(s.shares[0] * cells, gpu_cells, 1.0);
  EXPECT_NEAR(s.shares[1], 1.0 - gpu_cells / cells, 1e-12);
  EXPECT_NE(s.note.find("memory"), std::string::npos);
  // nor the host either: what to do
  try {
    (void)split_work({gpu(15e9), host(0.5e9, 10e9)}, cells, parallel::HostShare{});
    FAIL() << "no capacity error";
  } catch (const CapacityError& e) {
    EXPECT_NE(std::string(e.what()).find("more GPUs"), std::string::npos) << e.what();
  }
}

TEST(WorkSplit, AFixedShareIsTheHostsAndIsCheckedAgainstMemory) {
  const parallel::WorkSplit s =
      parallel::split_work({gpu(15e9), gpu(15e9), host(0.5e9)}, 1e8, parallel::parse_host_share("0.2"));
  EXPECT_NEAR(s.shares[2], 0.2, 1e-12);
  EXPECT_NEAR(s.shares[0], 0.4, 1e-12);
  EXPECT_THROW((void)split_work({gpu(15e9), host(0.5e9, 1e9)}, 1e8, parallel::parse_host_share("0.5")), InputError);
  for (const char* bad : {"0", "1", "-0.1", "half", ""})
    EXPECT_THROW((void)parallel::parse_host_share(bad), InputError) << bad;
  EXPECT_EQ(parallel::parse_host_share("auto").str(), "auto");
  EXPECT_EQ(parallel::parse_host_share("0.25").str(), "0.25");
}

TEST(WorkSplit, SlabsCutToSharesAndEqualSharesCutAsBefore) {
  const std::vector<std::uint64_t> planes(40, 100);
  const auto equal = parallel::partition_slabs(planes, 4);
  const auto shared = parallel::partition_slabs(planes, std::vector<double>{0.25, 0.25, 0.25, 0.25});
  ASSERT_EQ(equal.size(), shared.size());
  for (std::size_t r = 0; r < equal.size(); ++r) {
    EXPECT_EQ(equal[r].z_begin, shared[r].z_begin);
    EXPECT_EQ(equal[r].z_end, shared[r].z_end);
  }
  const auto uneven = parallel::partition_slabs(planes, std::vector<double>{0.45, 0.45, 0.1});
  EXPECT_EQ(uneven[0].z_end, 18);
  EXPECT_EQ(uneven[1].z_end, 36);
  EXPECT_EQ(uneven[2].fluid, 400u);
  // a tiny share still gets a plane
  const auto tiny = parallel::partition_slabs(planes, std::vector<double>{0.999, 0.001});
  EXPECT_EQ(tiny[1].z_end - tiny[1].z_begin, 1);
}

TEST(WorkSplit, OneRankBeyondAHostsGpusMayTakeItsCores) {
  const std::vector<std::string> hosts{"a", "a", "a", "b", "b"};
  const std::vector<int> numbers = parallel::assign_devices(hosts);
  EXPECT_THROW(parallel::check_device_counts(hosts, numbers, {2, 2, 2, 1, 1}), InputError);
  EXPECT_NO_THROW(parallel::check_device_counts(hosts, numbers, {2, 2, 2, 1, 1}, true));  // ranks 2 and 4 on the cores
  EXPECT_THROW(parallel::check_device_counts(hosts, numbers, {1, 1, 1, 1, 1}, true), InputError);  // two beyond on a
}

}  // namespace rockperm
