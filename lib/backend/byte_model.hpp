#pragma once
// Bytes each propagation moves per fluid-cell update in float (the roofline's numerator).
//   two-pass: collide reads and writes 19 floats (152 B); swap reads 9 neighbour indices
//             (36 B) and reads and writes 18 slots (144 B, an upper bound: bounce-back links
//             move nothing) = 332 B.
//   fused:    even step 152 B; odd step 152 B + 18 neighbour indices (72 B) = 224 B;
//             mean 188 B.
#include "lib/backend/backend.hpp"

namespace rockperm {

inline constexpr double bytes_per_update(Propagation p) { return p == Propagation::two_pass ? 332.0 : 188.0; }

}  // namespace rockperm
