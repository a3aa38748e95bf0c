#pragma once
// A segmented micro-CT volume: one uint8 label per voxel, x fastest, z slowest, and the voxel
// size. This is what every reader in io/ produces and what lib/geometry consumes.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace rockperm::geometry {

struct Dims {
  std::int64_t nx = 0, ny = 0, nz = 0;

  std::uint64_t voxels() const;  // checked product
  std::int64_t operator[](int axis) const { return axis == 0 ? nx : (axis == 1 ? ny : nz); }
  std::uint64_t linear(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return (static_cast<std::uint64_t>(z) * static_cast<std::uint64_t>(ny) + static_cast<std::uint64_t>(y)) *
               static_cast<std::uint64_t>(nx) +
           static_cast<std::uint64_t>(x);
  }
  std::string str() const;
  bool operator==(const Dims&) const = default;
};

// Largest extent accepted along one axis; coordinates are stored as uint16.
inline constexpr std::int64_t max_extent = 65535;

// Throws InputError naming `what` when an extent is not in 1..max_extent.
void validate_dims(const Dims& dims, const std::string& what);

struct Volume {
  Dims dims;
  double voxel_size_um = 1.0;
  std::vector<std::uint8_t> labels;  // dims.voxels() entries

  std::uint8_t at(std::int64_t x, std::int64_t y, std::int64_t z) const { return labels[dims.linear(x, y, z)]; }
};

}  // namespace rockperm::geometry
