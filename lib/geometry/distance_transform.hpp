#pragma once
// Exact Euclidean distance transform (Felzenszwalb & Huttenlocher 2012: the lower envelope of
// parabolas, one pass per axis) and what the trust report reads from it: how wide the pores
// are where the fluid flows.
#include <cstdint>
#include <functional>
#include <vector>

#include "lib/base/host_array.hpp"
#include "lib/geometry/pore_mask.hpp"

namespace rockperm::geometry {

// Distance from every voxel centre to the nearest voxel with seed[v] != 0 (voxel units; a large
// number where there is no seed). Outside the volume there are no seeds.
std::vector<float> distance_to(const Dims& dims, const std::vector<std::uint8_t>& seed);

// Squared distances from every voxel centre to the nearest seed, exact where they are at most
// radius^2 and above radius^2 elsewhere (255 where no seed lies within `radius` along every
// axis), for radius <= 11. One byte a voxel, and each pass a sliding minimum over 2 radius + 1
// neighbours on whole rows and planes: for the small distances the pore analysis asks about,
// several times faster than the exact transform and a quarter of its memory. Exact because the
// nearest seed of a voxel at distance D <= radius lies within radius along each axis.
HostArray<std::uint8_t> squared_distance_within(const Dims& dims, const std::uint8_t* seed, int radius);

// The local width of the pore space at every pore voxel, in classes: the diameter of the
// largest ball inside the pores that covers the voxel (the "local thickness" of Hildebrand &
// Ruegsegger 1997) is below 3, 5 or 10 voxels, or at least 10. A ball of diameter 2h - 1 fits
// around a pore voxel y when its distance to the solid is at least h, and covers the voxels
// within h - 1/2 of y; a voxel x is covered by such a ball iff its distance to the set of those
// centres is at most h - 1/2 (a ball of a larger radius that covers x contains a smaller one
// that does, centred nearer x). Solid voxels get no_width_class.
inline constexpr std::uint8_t width_classes = 4;
inline constexpr double width_class_limits[width_classes - 1] = {3, 5, 10};  // voxels
inline constexpr std::uint8_t no_width_class = 255;
HostArray<std::uint8_t> pore_width_classes(const PoreMask& mask);
// How far the class of a voxel looks: it depends on the mask within this many voxels of it along
// each axis (a bounded transform to the solid, then one to the ball centres, radius 6 each), so a
// slab with this many planes beyond its own on each side gets its planes' classes exactly.
inline constexpr int width_class_reach = 12;
// The same classes a chunk of planes at a time, each chunk analysed with the planes within reach
// of it: a few bytes per voxel of a chunk instead of per voxel of the mask. `each(z0, z1,
// classes)` gets the classes of planes [z0, z1) (x fastest), chunk after chunk, for the planes
// [z_begin, z_end) of the mask. `chunk`: planes per chunk (width_chunk_planes: about half a
// billion voxels, at least 4 reaches).
void pore_width_classes_by_chunks(
    const PoreMask& mask, std::int64_t z_begin, std::int64_t z_end, std::int64_t chunk,
    const std::function<void(std::int64_t, std::int64_t, const std::uint8_t*)>& each);
std::int64_t width_chunk_planes(const Dims& dims);  // uninitialised memory, filled by threads

}  // namespace rockperm::geometry
