// lib/base/system.hpp: the one UTC timestamp, host name and whole-stream read.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <ctime>
#include <regex>
#include <sstream>

#include "lib/base/system.hpp"

namespace rockperm {

TEST(System, UtcTimestampIsIso8601ToTheSecondAndNow) {
  const std::time_t before = std::time(nullptr);
  const std::string t = utc_timestamp();
  EXPECT_TRUE(std::regex_match(t, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)"))) << t;
  std::tm parts{};
  gmtime_r(&before, &parts);
  EXPECT_EQ(std::stoi(t.substr(0, 4)), parts.tm_year + 1900);
}

TEST(System, HostNameIsTheSystemsAndAStreamIsReadWhole) {
  EXPECT_FALSE(host_name().empty());
  std::istringstream in(std::string("a\0b\nc", 5));
  in.get();  // what is left is read, as it is (a NUL too)
  EXPECT_EQ(read_all_text(in), std::string("\0b\nc", 4));
}

TEST(System, AFileDescriptorIsClosedByItsOwnerOnEveryPath) {
  int raw = -1;
  {
    FileDescriptor fd(::open("/dev/null", O_RDONLY));
    ASSERT_TRUE(fd.valid());
    raw = fd.get();
    FileDescriptor moved(std::move(fd));
    EXPECT_FALSE(fd.valid());
    EXPECT_EQ(moved.get(), raw);
    EXPECT_NE(::fcntl(raw, F_GETFD), -1);
  }
  EXPECT_EQ(::fcntl(raw, F_GETFD), -1) << "still open after its owner went";
  try {
    FileDescriptor fd(::open("/dev/null", O_RDONLY));
    raw = fd.get();
    throw 1;
  } catch (int) {
  }
  EXPECT_EQ(::fcntl(raw, F_GETFD), -1) << "still open after an exception";
  FileDescriptor fd(::open("/dev/null", O_RDONLY));
  EXPECT_TRUE(fd.close());
  EXPECT_FALSE(fd.valid());
  EXPECT_TRUE(fd.close());  // closing twice is no error
}

}  // namespace rockperm
