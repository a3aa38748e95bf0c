#include <gtest/gtest.h>

#include "cuda/device_info.hpp"

namespace rockperm::cuda {

TEST(DeviceInfo, ListsDevicesOrSaysWhyNot) {
  const DeviceList list = list_devices();
  if (list.devices.empty()) {
    EXPECT_FALSE(list.reason.empty());
    GTEST_SKIP() << "no CUDA device: " << list.reason;
  }
  for (const auto& d : list.devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.major, 7);
    EXPECT_GT(d.multiprocessors, 0);
    EXPECT_GT(d.memory_bytes, std::size_t{1} << 30);
  }
}

}  // namespace rockperm::cuda
