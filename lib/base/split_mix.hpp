#pragma once
// SplitMix64 (Steele, Lea & Flood 2014): a 64-bit counter whose every output is a full mix of its
// state, for draws that must be the same on any machine (sphere packs, the two-phase flow's random
// start). Seeding it with `seed + i * 0x9E3779B97F4A7C15` gives item i a draw of its own.
#include <cstdint>

namespace rockperm {

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // in [0, 1)
};

}  // namespace rockperm
