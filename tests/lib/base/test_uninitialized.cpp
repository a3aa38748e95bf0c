// lib/base/uninitialized.hpp: a byte vector whose resize(n) touches no memory (the parallel loop
// that fills it is the first touch), while values asked for are set as in std::vector.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "lib/base/uninitialized.hpp"
#include "lib/geometry/pore_mask.hpp"

namespace rockperm {

namespace {
// resident bytes of this process now (/proc/self/statm's second field, in pages)
long resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return -1;
  long size = 0, resident = -1;
  if (std::fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  std::fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}
}  // namespace

TEST(UninitializedBytes, GrowingLeavesThePagesUntouched) {
  constexpr std::size_t size = std::size_t{256} << 20;
  const long before = resident_bytes();
  ASSERT_GE(before, 0) << "no /proc/self/statm";
  UninitializedBytes bytes;
  bytes.resize(size);
  const long grown = resident_bytes() - before;
  // a std::vector zero-fills them, and all 256 MiB become resident on the calling thread
  EXPECT_LT(grown, 32L << 20) << "resize touched " << (grown >> 20) << " MiB";
  ASSERT_EQ(bytes.size(), size);
  bytes[size - 1] = 5;  // and the bytes are there to write
  EXPECT_EQ(bytes[size - 1], 5);
}

TEST(UninitializedBytes, ValuesAskedForAreSetAndKeptAcrossResizes) {
  UninitializedBytes b(4, 7);
  EXPECT_EQ(std::vector<std::uint8_t>(b.begin(), b.end()), (std::vector<std::uint8_t>{7, 7, 7, 7}));
  b.resize(6, 0);
  EXPECT_EQ(std::vector<std::uint8_t>(b.begin(), b.end()), (std::vector<std::uint8_t>{7, 7, 7, 7, 0, 0}));
  b.resize(2);
  b.resize(3);  // the first two stay; the third is whatever was there
  EXPECT_EQ(b[0], 7);
  EXPECT_EQ(b[1], 7);
  // a library user's mask from a std::vector is the same codes
  const geometry::PoreMask m{geometry::Dims{2, 1, 1}, std::vector<std::uint8_t>{1, 0}};
  EXPECT_EQ(m.pore.size(), 2u);
  EXPECT_EQ(m.pore[0], 1);
  EXPECT_EQ(m.pore[1], 0);
}

}  // namespace rockperm
