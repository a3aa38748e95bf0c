#pragma once
// The per-cell arithmetic of the pressure extrapolation (lib/solve/extrapolation.hpp), the one
// definition both backends call.
//
// On tight rock the last stretch of a run is a pressure diffusion along the sample: the density
// field relaxes as rho(t) = rho_inf + sum_j a_j exp(-t / T_j), and once one slow mode dominates,
// its changes over equal intervals shrink by one ratio r. With the density held at three times
// t0, t1 = t0 + D and t2 = t1 + D, d1 = rho(t1) - rho(t0) and d2 = rho(t2) - rho(t1), the
// remaining change is d2 r / (1 - r) (Aitken's extrapolation, per cell). The jump adds it to
// every cell as the equilibrium's density part, w_i delta to each population: mass is conserved
// (the d2 sum to zero, as the mass is conserved), the momentum and the staggered invariant of
// collision.hpp are untouched (w_i = w_-i), and the flux follows the new pressure within the
// time momentum takes to cross a pore. The steady state is the same fixed point of the same
// scheme; only the way to it is shorter.
#include <cmath>
#include <cstdint>

#include "lib/base/hd.hpp"
#include "lib/physics/d3q19.hpp"
#include "lib/physics/storage.hpp"

namespace rockperm::physics {

// The density deviation of one cell (natural order), summed in direction order.
template <class S>
ROCKPERM_HD inline float cell_density(const S* f, std::uint64_t stride, std::uint32_t cell) {
  float drho = 0.0f;
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) drho += StorageTraits<S>::load(f[i * stride + cell]);
  return drho;
}

// Adds `delta` to the density of one cell as the rest equilibrium's density part.
template <class S>
ROCKPERM_HD inline void shift_density(S* f, std::uint64_t stride, std::uint32_t cell, float delta) {
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) {
    S& s = f[i * stride + cell];
    s = StorageTraits<S>::store(StorageTraits<S>::load(s) + d3q19::weightf(i) * delta);
  }
}

// Adds `delta` to the density of one cell as the rest state's at the acceleration g (collision.hpp,
// rest_population): w_i delta (1 - 3 e_i.g / 2) to each population, the density with the momentum
// -delta g / 2 that the Guo rest state of the new density holds. A density change without that
// momentum moves the steady value of the staggered momentum (-sum (-1)^x rho g / 2) but not the
// staggered momentum itself, which no collision damps: a period-2 cycle of size g delta stays, and
// through the equilibrium's quadratic terms it moves the steady k by its square (a Darcy-scale
// start on a tight pack at tau 1: 4e-5; 2e-6 with it). The Darcy-scale start and corrections add
// their density this way (lib/solve/darcy_start.hpp).
template <class S>
ROCKPERM_HD inline void shift_density_at_rest(S* f, std::uint64_t stride, std::uint32_t cell, float delta, float gx, float gy,
                                              float gz) {
ROCKPERM_UNROLL
  for (int i = 0; i < d3q19::q; ++i) {
    S& s = f[i * stride + cell];
    const float w = d3q19::weightf(i) * delta;
    s = StorageTraits<S>::store(StorageTraits<S>::load(s) + (w - 1.5f * w * d3q19::dot(i, gx, gy, gz)));
  }
}

// One cell's held pair (held density, change before it) through the extrapolation's passes, the
// one definition the backends' loops and kernels call (rho: the cell's density now).
// A hold: change = rho - held (where `keep_change`), held = rho.
ROCKPERM_HD inline void hold_cell(float rho, float& held, float& change, bool keep_change) {
  if (keep_change) change = rho - held;
  held = rho;
}

// The largest change the cell shows: now against the last hold, and the one before it.
ROCKPERM_HD inline float cell_change_peak(float rho, float held, float change) {
  return fmaxf(fabsf(rho - held), fabsf(change));
}

// A jump: rho += factor (rho - held) as the equilibrium's density part, then change = rho - held
// and held = the new rho.
template <class S>
ROCKPERM_HD inline void extrapolate_cell(S* f, std::uint64_t stride, std::uint32_t cell, float& held, float& change,
                                         float factor) {
  const float rho = cell_density(f, stride, cell);
  const float d = rho - held, delta = factor * d;
  shift_density(f, stride, cell, delta);
  change = d;
  held = rho + delta;
}

// The same jump with the density added as the rest state's at the acceleration g (above).
template <class S>
ROCKPERM_HD inline void extrapolate_cell_at_rest(S* f, std::uint64_t stride, std::uint32_t cell, float& held, float& change,
                                                 float factor, float gx, float gy, float gz) {
  const float rho = cell_density(f, stride, cell);
  const float d = rho - held, delta = factor * d;
  shift_density_at_rest(f, stride, cell, delta, gx, gy, gz);
  change = d;
  held = rho + delta;
}

// The inner products of the two changes, in fixed point: each change rounded to an integer at
// `scale` (chosen from the largest change on any rank, so that |d scale| <= 2^15 and a sum over
// 2^33 cells stays in 64 bits), then multiplied exactly. Integer sums are the same in any order,
// on any number of threads, blocks or ranks, so the jump is too.
struct DensityProducts {
  long long d11 = 0, d21 = 0, d22 = 0;
  ROCKPERM_HD void add(const DensityProducts& o) {
    d11 += o.d11;
    d21 += o.d21;
    d22 += o.d22;
  }
};

inline constexpr float density_quantum_range = 32768.0f;  // 2^15

ROCKPERM_HD inline long long quantize_change(float d, float scale) { return llrintf(d * scale); }

ROCKPERM_HD inline DensityProducts cell_products(float d1, float d2, float scale) {
  const long long a = quantize_change(d1, scale), b = quantize_change(d2, scale);
  return DensityProducts{a * a, b * a, b * b};
}

// The scale for a largest change `peak`: a power of two, so that the rounding is the same
// wherever it runs; 0 when there is no change.
inline float products_scale(float peak) {
  if (!(peak > 0.0f) || !std::isfinite(peak)) return 0.0f;
  int e = 0;
  std::frexp(peak, &e);  // peak < 2^e
  return std::ldexp(1.0f, 15 - e);
}

}  // namespace rockperm::physics
