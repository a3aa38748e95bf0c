#pragma once
// Population storage: what one slot of the population array holds. Every computation is in
// float; a storage type says how a slot is read into float and written back. The per-cell
// functions (lib/lattice/propagation.hpp, lib/physics/flow_sums.hpp) and the backends are
// written over it, the halo buffers and checkpoints hold slots as stored, and the byte model
// (lib/backend/byte_model.hpp) counts their bytes.
//
// Two storages:
//  - float32: the deviation f_i - w_i as a float (4 bytes);
//  - float16: the deviation times 2^14 as an IEEE binary16 (2 bytes). Deviations, not
//    populations, are stored, so the 11 significant bits resolve the flow itself (a population's
//    own size, w_i ~ 0.03-0.33, would take them otherwise). The range shift puts the normal
//    binary16 range (6.1e-5 .. 65504) at deviations of 3.7e-9 .. 4: the slowest creeping flows of
//    tight rock (velocities of 1e-8 and up, deviations of w_i * 3u) stay normal numbers with
//    full precision, and no stable state comes near the top (|f - w| < 1).
//    The time loop stores with stochastic rounding: up with the probability of the fraction of
//    a unit in the last place that was cut, from a hash of the slot and the step (the same bits
//    on the CPU and the GPU, and again after a resume). Rounding to nearest stalls the approach
//    to steady flow: near the end the change of a population per step is below half a unit in
//    its last place, so every step rounds it back, and the run "converges" short of the steady
//    state (k 0.25 % low on the bundled sample); stochastic rounding keeps the expected change
//    (Croci & Giles 2020 show the same for the heat equation in low precision). Conversions
//    outside the loop (the rest state, uploads) round to nearest even.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "lib/base/hd.hpp"
#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace rockperm {

enum class Storage { float32, float16 };

// One float16 slot (see above): the bits of binary16(deviation * 2^14).
struct Half {
  std::uint16_t bits;
};

template <class S>
struct StorageTraits;

// The random bits of a cell's stores: a 32-bit mix (the finalizer of MurmurHash3) of the cell's
// index and the step's seed, then next_noise for each pair of slots (its low 16 bits for one,
// its high 16 for the other; the normal-number rounding takes 13 of them): a hash per slot made
// the fp16 kernels compute-bound on the GPU.
ROCKPERM_HD inline std::uint32_t rounding_noise(std::uint64_t slot, std::uint32_t seed) {
  std::uint32_t h = static_cast<std::uint32_t>(slot) ^ static_cast<std::uint32_t>(slot >> 32) ^ seed;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

// xorshift32 (Marsaglia 2003): the next random word after `x` (never 0 after a non-zero one).
ROCKPERM_HD inline std::uint32_t next_noise(std::uint32_t x) {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

// The seed of a step's rounding.
inline std::uint32_t step_seed(std::int64_t step) {
  return rounding_noise(static_cast<std::uint64_t>(step) * 0x9E3779B97F4A7C15ull, 0x5BD1E995u);
}

template <>
struct StorageTraits<float> {
  static constexpr Storage kind = Storage::float32;
  static ROCKPERM_HD float load(float s) { return s; }
  static ROCKPERM_HD float store(float v) { return v; }
  static ROCKPERM_HD float store(float v, std::uint32_t /*noise*/) { return v; }
};

namespace half_detail {

inline constexpr float shift = 16384.0f;          // 2^14
inline constexpr float unshift = 1.0f / 16384.0f;  // exact

ROCKPERM_HD inline std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
ROCKPERM_HD inline float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// binary16 of `f`, rounded to nearest even; overflow gives infinity, NaN stays NaN.
ROCKPERM_HD inline std::uint16_t to_half(float f) {
  std::uint32_t x = bits_of(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7FFFFFFFu;
  std::uint32_t h;
  if (x >= 0x47800000u) {  // 65536 and above, infinity, NaN (65520 .. 65536 round up below)
    h = x > 0x7F800000u ? 0x7E00u : 0x7C00u;
  } else if (x < 0x38800000u) {  // below 2^-14: a subnormal half or zero
    // adding 0.5 (whose unit in the last place is 2^-24, the subnormal step) lets the float
    // adder round the value to the subnormal grid, to nearest even; the low bits are the result
    h = bits_of(float_of(x) + 0.5f) - 0x3F000000u;
  } else {
    const std::uint32_t odd = (x >> 13) & 1u;           // ties to even
    h = (x - 0x38000000u + 0x0FFFu + odd) >> 13;        // rebias the exponent, round the mantissa
  }
  return static_cast<std::uint16_t>(h | sign);
}

// binary16 of `f`, rounded up (in magnitude) with the probability of the cut fraction: `noise`
// holds uniform random bits. Branch-free (selects), so that the CPU's cell loops vectorize.
ROCKPERM_HD inline std::uint16_t to_half_stochastic(float f, std::uint32_t noise) {
  const std::uint32_t all = bits_of(f);
  const std::uint32_t sign = (all >> 16) & 0x8000u;
  const std::uint32_t x = all & 0x7FFFFFFFu;
#if defined(__CUDA_ARCH__)
  // the GPU: the common normal case alone (a warp rarely meets a subnormal, and then diverges briefly)
  if (x >= 0x38800000u && x < 0x47800000u) return static_cast<std::uint16_t>(((x - 0x38000000u + (noise & 0x1FFFu)) >> 13) | sign);
#endif
  // normal: rebias the exponent; the 13 cut bits against 13 random ones
  const std::uint32_t normal = (x - 0x38000000u + (noise & 0x1FFFu)) >> 13;
  // subnormal: whole units of 2^-24 and the fraction of one (exact: a power-of-two scale)
  const float units = float_of(x < 0x38800000u ? x : 0x38800000u) * 16777216.0f;
  const auto whole = static_cast<std::uint32_t>(static_cast<std::int32_t>(units));
  const float fraction = units - static_cast<float>(static_cast<std::int32_t>(whole));
  const float chance = static_cast<float>(static_cast<std::int32_t>(noise >> 8)) * 5.9604644775390625e-8f;
  const std::uint32_t subnormal = whole + (chance < fraction ? 1u : 0u);
  std::uint32_t h = x < 0x38800000u ? subnormal : normal;
  h = x >= 0x47800000u ? (x > 0x7F800000u ? 0x7E00u : 0x7C00u) : h;
  return static_cast<std::uint16_t>(h | sign);
}

// float of a binary16, branch-free: normal and subnormal halves are their bits moved into a
// float's place and scaled by 2^112 (exact); infinity and NaN keep their class.
ROCKPERM_HD inline float from_half(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t magnitude = h & 0x7FFFu;
  const float finite = float_of(magnitude << 13) * 5.192296858534828e33f;
  const std::uint32_t bits = magnitude >= 0x7C00u ? (0x7F800000u | (magnitude << 13)) : bits_of(finite);
  return float_of(bits | sign);
}

}  // namespace half_detail

template <>
struct StorageTraits<Half> {
  static constexpr Storage kind = Storage::float16;
  static ROCKPERM_HD float load(Half s) {
#if defined(__CUDA_ARCH__)
    return __half2float(__ushort_as_half(s.bits)) * half_detail::unshift;
#else
    return half_detail::from_half(s.bits) * half_detail::unshift;
#endif
  }
  static ROCKPERM_HD Half store(float v) {
#if defined(__CUDA_ARCH__)
    return Half{__half_as_ushort(__float2half_rn(v * half_detail::shift))};
#else
    return Half{half_detail::to_half(v * half_detail::shift)};
#endif
  }
  // stochastic rounding (the time loop): the same integer arithmetic on the host and the device
  static ROCKPERM_HD Half store(float v, std::uint32_t noise) {
    return Half{half_detail::to_half_stochastic(v * half_detail::shift, noise)};
  }
};

// The float32 storage's type: what buffers default to (halo sizes, tests).
using Population = float;

constexpr std::size_t storage_bytes(Storage s) { return s == Storage::float32 ? 4 : 2; }

// Calls fn(S{}) with the slot type of `s`: the one place a run-time storage picks a compiled one.
template <class Fn>
decltype(auto) with_storage(Storage s, Fn&& fn) {
  if (s == Storage::float16) return fn(Half{});
  return fn(float{});
}

const char* to_string(Storage s);       // "fp32", "fp16"
Storage parse_storage(const std::string& text);  // throws InputError naming the choices

}  // namespace rockperm
