#pragma once
// What CUDA devices this process can use. Plain C++ header: host code includes it without nvcc.
#include <cstddef>
#include <string>
#include <vector>

namespace rockperm::cuda {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int major = 0, minor = 0;
  int multiprocessors = 0;
  std::size_t memory_bytes = 0;
  std::size_t l2_bytes = 0;
  double peak_bandwidth_gbs = 0;  // from the memory clock and bus width, read + write
  std::string uuid;               // "GPU-" and 32 hex digits, as nvidia-smi prints it
};

struct DeviceList {
  std::vector<DeviceInfo> devices;
  std::string reason;  // why the list is empty (no driver, no device), else empty
};

// Never throws: a machine without a driver or a device yields an empty list and the reason.
DeviceList list_devices();

// Makes `device` this thread's current device and returns it; InputError where it does not exist
// (naming how many are usable, and why none where none is).
DeviceInfo select_device(int device);

}  // namespace rockperm::cuda
