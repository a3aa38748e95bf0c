// The fp16 store of the time loop gives the same bits on the GPU (an add and the hardware's
// round-toward-zero conversion) as the CPU's software conversion, for every value it can hold:
// the property that makes a run's fp16 populations independent of the backend's rounding code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "lib/physics/storage.hpp"
#include "tests/test_support.hpp"

namespace rockperm {

namespace {

__global__ void round_kernel(const float* v, const std::uint32_t* noise, std::uint16_t* out, std::uint32_t n) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n)
    out[k] = physics::StorageTraits<physics::Half>::store_held(v[k] * physics::half_detail::shift, noise[k]).bits;
}

float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

TEST(HalfRounding, GpuStoresTheBitsOfTheCpu) {
  ROCKPERM_SKIP_WITHOUT_BACKEND();
  std::mt19937 rng(5);
  std::vector<float> v;
  // every half exactly (before the range shift), and just above and below each
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = physics::half_detail::from_half(static_cast<std::uint16_t>(h)) * physics::half_detail::unshift;
    for (const float g : {f, std::nextafter(f, 1e30f), std::nextafter(f, -1e30f)}) {
      if (!physics::StorageTraits<physics::Half>::beyond_held(g * physics::half_detail::shift)) v.push_back(g);
    }
  }
  // values across the stored range (|v| <= 65504 / 2^14; beyond it the time loop marks the cell
  // instead), subnormal floats, the edges
  std::uniform_int_distribution<std::uint32_t> any;
  while (v.size() < (1u << 20) + 0x30000u) {
    const float f = float_of(any(rng));
    if (std::abs(f) <= 3.998046875f) v.push_back(f);
  }
  for (int e = -150; e <= 1; ++e) v.push_back(std::ldexp(1.37f, e));
  v.insert(v.end(), {0.0f, -0.0f, 3.998046875f, -3.998046875f, 3.99f, std::numeric_limits<float>::denorm_min()});
  const auto n = static_cast<std::uint32_t>(v.size());
  std::vector<std::uint32_t> noise(n);
  for (auto& x : noise) x = any(rng);

  cuda::DeviceBuffer<float> d_v(n);
  cuda::DeviceBuffer<std::uint32_t> d_noise(n);
  cuda::DeviceBuffer<std::uint16_t> d_out(n);
  d_v.upload(v.data(), n);
  d_noise.upload(noise.data(), n);
  round_kernel<<<(n + 255) / 256, 256>>>(d_v.data(), d_noise.data(), d_out.data(), n);
  ROCKPERM_CUDA_CHECK_LAST();
  std::vector<std::uint16_t> gpu(n);
  d_out.download(gpu);

  for (std::uint32_t k = 0; k < n; ++k) {
    ASSERT_FALSE(physics::StorageTraits<physics::Half>::beyond_held(v[k] * physics::half_detail::shift));
    const std::uint16_t cpu =
        physics::StorageTraits<physics::Half>::store_held(v[k] * physics::half_detail::shift, noise[k]).bits;
    ASSERT_EQ(gpu[k], cpu) << std::hexfloat << "value " << v[k] << " noise " << std::hex << noise[k];
  }
}

}  // namespace rockperm
