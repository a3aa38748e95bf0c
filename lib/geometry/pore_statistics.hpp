#pragma once
// What the pore space says before any flow is computed: its specific surface, the hydraulic
// diameter of its pores and a Kozeny-Carman estimate of k. The solver uses them to choose its
// time scales (lib/solve/time_scales.hpp); the estimate is a guide for that, never a result.
#include <cstdint>

#include "lib/geometry/pore_mask.hpp"

namespace rockperm::geometry {

struct PoreStatistics {
  double porosity = 0;            // pore voxels / voxels
  double specific_surface = 0;    // pore-solid voxel faces per voxel (1 / voxel)
  double hydraulic_diameter = 0;  // 4 porosity / specific surface, voxels
  // (porosity - percolation_porosity)^3 / (kozeny_constant specific_surface^2), voxel^2
  double kozeny_carman_k = 0;
};

// Kozeny-Carman with the percolation threshold of Mavko & Nur (1997): near the porosity where
// the pore space stops connecting, k falls far faster than porosity^3 (a 10 % sphere pack:
// plain Kozeny-Carman 17 times too high; with the threshold within a factor 2). At most a tenth
// of the porosity is taken off.
inline constexpr double percolation_porosity = 0.05;

// Voxel faces count a staircase surface, about 1.5 times the area of the smooth surface it
// approximates, so the Carman constant 5 of smooth grains becomes 5 / 1.5^2 here (on sphere
// packs of 10 to 35 % porosity the estimate is then within a factor 2 of the computed k).
inline constexpr double kozeny_constant = 5.0 / 2.25;

// Over the whole mask; faces on its boundary are not counted.
PoreStatistics pore_statistics(const PoreMask& mask);
// The integers the statistics come from: of the first `planes` planes of a mask and the faces
// between them, and between the last and the plane after it where the mask holds one (a slab's
// plane above). Summed over the slabs of a volume they are the volume's, exactly.
struct PoreCounts {
  std::uint64_t voxels = 0, pore = 0, faces = 0;
};
PoreCounts pore_counts(const PoreMask& mask, std::int64_t planes);
PoreStatistics pore_statistics(const PoreCounts& counts);

}  // namespace rockperm::geometry
