#include "lib/geometry/volume.hpp"

#include "lib/base/checked_size.hpp"
#include "lib/base/error.hpp"

namespace rockperm::geometry {

std::uint64_t Dims::voxels() const {
  return checked_mul(checked_mul(static_cast<std::uint64_t>(nx), static_cast<std::uint64_t>(ny), "voxel count"),
                     static_cast<std::uint64_t>(nz), "voxel count");
}

std::string Dims::str() const {
  return std::to_string(nx) + " x " + std::to_string(ny) + " x " + std::to_string(nz);
}

void validate_dims(const Dims& dims, const std::string& what) {
  for (int a = 0; a < 3; ++a) {
    if (dims[a] < 1 || dims[a] > max_extent) {
      throw InputError(what + ": extent " + std::to_string(dims[a]) + " along " + "xyz"[a] +
                       " is outside 1.." + std::to_string(max_extent) + "; give three positive dimensions");
    }
  }
  (void)dims.voxels();
}

}  // namespace rockperm::geometry
