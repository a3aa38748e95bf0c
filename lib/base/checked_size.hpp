#pragma once
// Size arithmetic that can overflow (voxel counts, byte counts) goes through these.
#include <cstdint>
#include <limits>
#include <string>

#include "lib/base/error.hpp"

namespace rockperm {

inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const std::string& what) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
    throw InputError(what + " overflows 64 bits (" + std::to_string(a) + " x " + std::to_string(b) +
                     "); check the dimensions");
  }
  return a * b;
}

inline std::uint64_t round_up(std::uint64_t n, std::uint64_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

}  // namespace rockperm
