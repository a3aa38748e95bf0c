#include <gtest/gtest.h>

#include <fstream>

#include "io/raw_reader.hpp"
#include "lib/error.hpp"

namespace rockperm::io {

namespace {
std::filesystem::path write_bytes(const std::string& name, std::size_t n) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream out(path, std::ios::binary);
  for (std::size_t i = 0; i < n; ++i) out.put(static_cast<char>(i % 7));
  return path;
}
}  // namespace

TEST(RawReader, ReadsXFastest) {
  const auto path = write_bytes("rockperm_raw_ok.raw", 4 * 3 * 2);
  const Volume v = read_raw_u8(path, Dims{4, 3, 2}, 3.5);
  EXPECT_EQ(v.voxel_size_um, 3.5);
  EXPECT_EQ(v.at(1, 0, 0), 1);
  EXPECT_EQ(v.at(0, 1, 0), 4);
  EXPECT_EQ(v.at(0, 0, 1), 12 % 7);
}

TEST(RawReader, SizeMismatchNamesFileAndDims) {
  const auto path = write_bytes("rockperm_raw_short.raw", 23);
  try {
    (void)read_raw_u8(path, Dims{4, 3, 2}, 1.0);
    FAIL() << "accepted a short file";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("rockperm_raw_short.raw"), std::string::npos);
    EXPECT_NE(msg.find("23 bytes"), std::string::npos);
    EXPECT_NE(msg.find("24"), std::string::npos);
  }
}

TEST(RawReader, MissingFileAndAbsurdDims) {
  EXPECT_THROW(read_raw_u8("/nonexistent/rock.raw", Dims{4, 4, 4}, 1.0), InputError);
  const auto path = write_bytes("rockperm_raw_any.raw", 8);
  EXPECT_THROW(read_raw_u8(path, Dims{0, 4, 4}, 1.0), InputError);
  EXPECT_THROW(read_raw_u8(path, Dims{70000, 4, 4}, 1.0), InputError);
}

}  // namespace rockperm::io
