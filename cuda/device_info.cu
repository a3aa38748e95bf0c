#include <cuda_runtime.h>

#include "cuda/device_info.hpp"

#include <string>

#include "cuda/cuda_check.hpp"
#include "lib/base/error.hpp"

namespace rockperm::cuda {

DeviceList list_devices() {
  DeviceList out;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    out.reason = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return out;
  }
  if (count == 0) out.reason = "the CUDA driver reports no device";
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    DeviceInfo info;
    info.index = d;
    info.name = prop.name;
    info.major = prop.major;
    info.minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.memory_bytes = prop.totalGlobalMem;
    info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    static const char* hex = "0123456789abcdef";
    info.uuid = "GPU-";
    for (int b = 0; b < 16; ++b) {
      if (b == 4 || b == 6 || b == 8 || b == 10) info.uuid += '-';
      const auto byte = static_cast<unsigned char>(prop.uuid.bytes[b]);
      info.uuid += hex[byte >> 4];
      info.uuid += hex[byte & 15];
    }
    int clock_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, d);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, d);
    info.peak_bandwidth_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) * 1e-9;
    out.devices.push_back(info);
  }
  return out;
}

DeviceInfo select_device(int device) {
  const DeviceList list = list_devices();
  if (device < 0 || device >= static_cast<int>(list.devices.size())) {
    throw InputError("CUDA device " + std::to_string(device) + " does not exist (" +
                     std::to_string(list.devices.size()) + " usable" +
                     (list.reason.empty() ? std::string() : ": " + list.reason) + ")");
  }
  ROCKPERM_CUDA_CHECK(cudaSetDevice(device));
  return list.devices[device];
}

}  // namespace rockperm::cuda
