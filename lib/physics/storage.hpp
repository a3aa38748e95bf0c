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
//    a unit in the last place that was cut, from a hash of the cell and the step (the same bits
//    on the CPU and the GPU, and again after a resume). Rounding to nearest stalls the approach
//    to steady flow: near the end the change of a population per step is below half a unit in
//    its last place, so every step rounds it back, and the run "converges" short of the steady
//    state (k 0.25 % low on the bundled sample); stochastic rounding keeps the expected change
//    (Croci & Giles 2020 show the same for the heat equation in low precision). Conversions
//    outside the loop (the rest state, uploads) round to nearest even.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/base/hd.hpp"
#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace rockperm::physics {

enum class Storage { float32, float16 };

// One float16 slot (see above): the bits of binary16(deviation * 2^14).
struct Half {
  std::uint16_t bits;
};

template <class S>
struct StorageTraits;

// The random bits of a cell's stores: a 32-bit mix (the finalizer of MurmurHash3) of the cell's
// index and the step's seed, once per cell; slot i takes slot_noise(mix, i), the mix times an odd
// constant of its own (one multiply: a bijection of the 32-bit words, so its top bits, which the
// rounding uses, are as uniform as the mix). A hash per slot, and later an xorshift step per
// pair of slots, made the fp16 kernels compute-bound on the GPU.
ROCKPERM_HD inline std::uint32_t rounding_noise(std::uint64_t slot, std::uint32_t seed) {
  std::uint32_t h = static_cast<std::uint32_t>(slot) ^ static_cast<std::uint32_t>(slot >> 32) ^ seed;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

// The odd multiplier of slot i: the mix of i + 1, made odd (constants once the loops unroll).
ROCKPERM_HD constexpr std::uint32_t slot_multiplier(int i) {
  std::uint32_t h = static_cast<std::uint32_t>(i + 1) * 0x9E3779B9u;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h | 1u;
}
ROCKPERM_HD inline std::uint32_t slot_noise(std::uint32_t cell_noise, int i) { return cell_noise * slot_multiplier(i); }

// The seed of a step's rounding.
inline std::uint32_t step_seed(std::int64_t step) {
  return rounding_noise(static_cast<std::uint64_t>(step) * 0x9E3779B97F4A7C15ull, 0x5BD1E995u);
}

template <>
struct StorageTraits<float> {
  static constexpr Storage kind = Storage::float32;
  // The time loop collides the values as held (load_held, store_held): what a unit of them is
  // worth is `unit` (physics::collide folds it into its constants).
  static constexpr float unit = 1.0f;
  static ROCKPERM_HD float load(float s) { return s; }
  static ROCKPERM_HD float store(float v) { return v; }
  static ROCKPERM_HD float load_held(float s) { return s; }
  static ROCKPERM_HD float store_held(float v, std::uint32_t /*noise*/) { return v; }
  static ROCKPERM_HD bool beyond_held(float /*v*/) { return false; }  // a float holds infinity and NaN as they are
  static ROCKPERM_HD float poisoned(bool /*beyond*/, float s) { return s; }  // never beyond
};

namespace half_detail {

inline constexpr float shift = 16384.0f;          // 2^14
inline constexpr float unshift = 1.0f / 16384.0f;  // exact

// (bit casts without memcpy, whose calls inside the selects below kept the CPU loops scalar)
ROCKPERM_HD inline std::uint32_t bits_of(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  return __builtin_bit_cast(std::uint32_t, f);
#endif
}
ROCKPERM_HD inline float float_of(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  return __builtin_bit_cast(float, u);
#endif
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

// binary16 of the float with bits `t`, rounded toward zero (what the GPU's cvt.rz does: a finite
// value beyond the largest half gives the largest half, infinity stays infinity, NaN gives NaN).
// (Signed 32-bit compares and selects throughout: the magnitude is below 2^31, and in this form
// the CPU's cell loops vectorize, which they do not with unsigned compares.)
ROCKPERM_HD inline std::uint16_t to_half_toward_zero(std::uint32_t t) {
  const std::int32_t sign = static_cast<std::int32_t>((t >> 16) & 0x8000u);
  const auto x = static_cast<std::int32_t>(t & 0x7FFFFFFFu);
  const std::int32_t normal = (x - 0x38000000) >> 13;  // rebias the exponent, cut the mantissa
  // below 2^-14: whole units of 2^-24 (exact: a power-of-two scale, then truncation)
  const std::int32_t subnormal = static_cast<std::int32_t>(float_of(static_cast<std::uint32_t>(x < 0x38800000 ? x : 0)) * 16777216.0f);
  std::int32_t h = x < 0x38800000 ? subnormal : normal;
  h = x >= 0x47800000 ? (x > 0x7F800000 ? 0x7FFF : x == 0x7F800000 ? 0x7C00 : 0x7BFF) : h;
  return static_cast<std::uint16_t>(h | sign);
}

// binary16 of `f`, rounded up (in magnitude) with the probability of the cut fraction: 13 random
// bits of `noise` (its top ones) are added below the cut, then the value is rounded toward zero
// (on the GPU: an add and the hardware's conversion; the same bits in software on the CPU). A
// value below 2^-14 (a subnormal half) is first lifted by 2^-14 into [2^-14, 2^-13), where the
// halves are 2^-24 apart as the subnormals are, rounded there, and lowered again (0x0400 off its
// bits), so that it is rounded without bias too. Meant for |f| <= 65504 (the largest half): the
// time loop marks a cell that leaves that range (StorageTraits<Half>::beyond).
ROCKPERM_HD inline std::uint16_t to_half_stochastic(float f, std::uint32_t noise) {
  const std::uint32_t all = bits_of(f);
  const bool small = static_cast<std::int32_t>(all & 0x7FFFFFFFu) < 0x38800000;
  const float lifted = f + float_of((all & 0x80000000u) | 0x38800000u);  // f + copysign(2^-14, f)
  const std::uint32_t t = (small ? bits_of(lifted) : all) + (noise >> 19);
#if defined(__CUDA_ARCH__)
  const std::uint16_t h = __half_as_ushort(__float2half_rz(float_of(t)));
#else
  const std::uint16_t h = to_half_toward_zero(t);
#endif
  return static_cast<std::uint16_t>(small ? h - 0x0400u : h);
}

// float of a binary16, branch-free: normal and subnormal halves are their bits moved into a
// float's place and scaled by 2^112 (exact); infinity and NaN keep their class.
ROCKPERM_HD inline float from_half(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t magnitude = h & 0x7FFFu;
  const float finite = float_of(magnitude << 13) * 5.192296858534828e33f;
  const std::uint32_t bits =
      static_cast<std::int32_t>(magnitude) >= 0x7C00 ? (0x7F800000u | (magnitude << 13)) : bits_of(finite);
  return float_of(bits | sign);
}

}  // namespace half_detail

template <>
struct StorageTraits<Half> {
  static constexpr Storage kind = Storage::float16;
  // held: the deviation times 2^14, as the half holds it (see StorageTraits<float>::unit)
  static constexpr float unit = half_detail::unshift;
  static ROCKPERM_HD float load_held(Half s) {
#if defined(__CUDA_ARCH__)
    return __half2float(__ushort_as_half(s.bits));
#else
    return half_detail::from_half(s.bits);
#endif
  }
  static ROCKPERM_HD float load(Half s) { return load_held(s) * half_detail::unshift; }
  static ROCKPERM_HD Half store(float v) {
#if defined(__CUDA_ARCH__)
    return Half{__half_as_ushort(__float2half_rn(v * half_detail::shift))};
#else
    return Half{half_detail::to_half(v * half_detail::shift)};
#endif
  }
  // stochastic rounding of a held value (the time loop): the same bits on the host and the device
  static ROCKPERM_HD Half store_held(float x, std::uint32_t noise) {
#if defined(__CUDA_ARCH__)
    // half_detail::to_half_stochastic(x, noise): the lift, the noise and the hardware's conversion
    const bool small = fabsf(x) < 0x1p-14f;
    const float lift = __uint_as_float((__float_as_uint(x) & 0x80000000u) | (small ? 0x38800000u : 0u));
    const float y = x + lift;  // x itself where not small (lift is a zero of x's sign)
    const std::uint16_t h = __half_as_ushort(__float2half_rz(__uint_as_float(__float_as_uint(y) + (noise >> 19))));
    return Half{static_cast<std::uint16_t>(small ? h - 0x0400u : h)};
#else
    return Half{half_detail::to_half_stochastic(x, noise)};
#endif
  }
  // Whether a held value is beyond the stored range (|x| > 65504, infinity, NaN). A diverging run
  // gets there; the time loop then stores NaN (poisoned) in the cell's rest slot, so that the monitor's
  // sums turn NaN and report the divergence (rounding toward zero would otherwise hold the
  // populations at the largest half, and stochastic noise could turn a NaN into a number).
  static ROCKPERM_HD bool beyond_held(float x) { return !(fabsf(x) <= 65504.0f); }  // NaN too
  // `s`, or NaN where `beyond` (a select on the bits, which the CPU's cell loops vectorize)
  static ROCKPERM_HD Half poisoned(bool beyond, Half s) { return Half{static_cast<std::uint16_t>(beyond ? 0x7E00u : s.bits)}; }
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

}  // namespace rockperm::physics
