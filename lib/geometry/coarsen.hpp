#pragma once
// A mask on a grid twice as coarse, for the resolution study (issue 36, part 2): the same sample
// seen at twice the voxel size.
#include "lib/geometry/pore_mask.hpp"

namespace rockperm::geometry {

// Each coarse voxel takes the code that most of its 2 x 2 x 2 fine voxels hold (majority rule).
// A tie (four and four, or two codes at 3-3 with solid 2) goes to the lower code on coarse voxels
// of even parity x + y + z and to the higher on odd ones, so that ties keep the porosity on
// average and no direction is favoured. An odd extent loses its last fine plane. Throws
// InputError where an extent is below 2 voxels.
// `first_z`: the coarse plane the first two of `fine` make (a slab of a larger volume, whose ties
// follow the whole's parity): the result is that of the whole's planes.
PoreMask coarsen_2x(const PoreMask& fine, std::int64_t first_z = 0);

}  // namespace rockperm::geometry
