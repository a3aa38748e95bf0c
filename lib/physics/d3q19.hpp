#pragma once
// D3Q19 lattice in the index convention of DESIGN.md: 0 is rest, 1..9 the positive half,
// opposite(i) = i + 9 for i in 1..9. Tests rely on this numbering; never reorder it.
#include <cstdint>

#include "lib/base/hd.hpp"

namespace rockperm::physics::d3q19 {

inline constexpr int q = 19;
inline constexpr int half = 9;  // directions 1..9; their opposites are 10..18
inline constexpr double cs2 = 1.0 / 3.0;

ROCKPERM_HD constexpr int opposite(int i) { return i == 0 ? 0 : (i <= half ? i + half : i - half); }

ROCKPERM_HD constexpr int cx(int i) {
  constexpr int8_t v[q] = {0, 1, 0, 0, 1, 1, 1, 1, 0, 0, -1, 0, 0, -1, -1, -1, -1, 0, 0};
  return v[i];
}
ROCKPERM_HD constexpr int cy(int i) {
  constexpr int8_t v[q] = {0, 0, 1, 0, 1, -1, 0, 0, 1, 1, 0, -1, 0, -1, 1, 0, 0, -1, -1};
  return v[i];
}
ROCKPERM_HD constexpr int cz(int i) {
  constexpr int8_t v[q] = {0, 0, 0, 1, 0, 0, 1, -1, 1, -1, 0, 0, -1, 0, 0, -1, 1, -1, 1};
  return v[i];
}
ROCKPERM_HD constexpr int c(int i, int axis) { return axis == 0 ? cx(i) : (axis == 1 ? cy(i) : cz(i)); }

ROCKPERM_HD constexpr double weight(int i) {
  const int n = cx(i) * cx(i) + cy(i) * cy(i) + cz(i) * cz(i);
  return n == 0 ? 1.0 / 3.0 : (n == 1 ? 1.0 / 18.0 : 1.0 / 36.0);
}
ROCKPERM_HD constexpr float weightf(int i) { return static_cast<float>(weight(i)); }

// e_i . (x, y, z) with no arithmetic for the zero components: a zero term is -0.0f, which an add
// leaves out (x + -0 is x for every x, so compilers drop it; 0.0f * x + ... they may not). The
// same value as cx * x + cy * y + cz * z wherever that is not a signed zero; it saves 4 of 6
// multiply-adds per direction pair in the collision.
ROCKPERM_HD constexpr float dot(int i, float x, float y, float z) {
  const auto term = [](int c, float v) { return c == 1 ? v : (c == -1 ? -v : -0.0f); };
  return term(cx(i), x) + term(cy(i), y) + term(cz(i), z);
}

}  // namespace rockperm::physics::d3q19

namespace rockperm {
// the lattice's directions, weights and sound speed, used by every layer as d3q19::q, d3q19::cx(i), ...
namespace d3q19 = physics::d3q19;
}  // namespace rockperm
