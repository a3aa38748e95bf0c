#pragma once
#include <filesystem>

#include "lib/volume.hpp"

namespace rockperm::io {

// Reads a raw uint8 volume (x fastest, then y, then z, no header). Throws InputError naming
// the file when it is missing, unreadable, or its size does not match the dimensions.
Volume read_raw_u8(const std::filesystem::path& file, const Dims& dims, double voxel_size_um);

}  // namespace rockperm::io
