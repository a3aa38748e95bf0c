#pragma once
// The relative permeability points made so far, kept in the run directory (relperm_points.json)
// while the points run, so that a resume after a stop keeps those made before it and makes only the
// rest (pipeline/two_phase.cpp). Each point is made from k's converged state and the curve alone,
// so a kept point is the point a run without the stop makes, to the bit (JSON holds a double's
// every digit).
#include <filesystem>
#include <vector>

#include "pipeline/result.hpp"

namespace rockperm::pipeline {

inline constexpr const char* relperm_store_name = "relperm_points.json";

// The points kept in `file`; none where it is missing or cannot be read as points (they are then
// made again).
std::vector<RelPermPoint> load_relperm_points(const std::filesystem::path& file);
// Writes `points` into `file` whole or not at all (io/atomic_file.hpp). Throws where it cannot.
void save_relperm_points(const std::filesystem::path& file, const std::vector<RelPermPoint>& points);

}  // namespace rockperm::pipeline
