#pragma once
// Deterministic periodic packs of overlapping spheres: the bundled sample, the benchmark
// geometries and test cases. The same seed gives the same volume on every platform (the
// generator uses splitmix64 and integer-to-double conversion only, no std distributions).
#include <cstdint>

#include "lib/geometry/volume.hpp"

namespace rockperm::geometry {

struct SpherePackSpec {
  Dims dims{64, 64, 64};
  double porosity = 0.35;  // target pore fraction; spheres are added until it is reached
  double radius = 6.0;     // mean sphere radius, voxels
  double radius_spread = 0.25;  // radii uniform in radius * [1 - spread, 1 + spread]
  std::uint64_t seed = 2026;
  // > 1: the same spheres (chosen on the grid of `dims`) voxelized on a grid `scale` times
  // finer, dims * scale voxels, for resolution studies of one geometry
  double scale = 1.0;
};

inline constexpr std::uint8_t pack_pore_label = 0;
inline constexpr std::uint8_t pack_solid_label = 1;

// Labels: 0 pore, 1 solid; periodic along all three axes; voxel size 1 um.
Volume make_sphere_pack(const SpherePackSpec& spec);

}  // namespace rockperm::geometry
