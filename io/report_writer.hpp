#pragma once
// report.json and report.csv of a run.
#include <filesystem>
#include <string>

#include "lib/config.hpp"
#include "lib/geometry/percolation.hpp"
#include "lib/physics/permeability.hpp"
#include "lib/solve/solver.hpp"

namespace rockperm::io {

struct RunReport {
  std::string sample;        // input file name
  std::string backend;       // backend description
  config::RunConfig config;
  std::uint64_t voxels = 0;
  std::uint64_t fluid_cells = 0;
  double bytes_per_cell = 0;
  double setup_seconds = 0;  // read + lattice build
  PercolationReport percolation;
  double drive_ratio = 1.0;  // (body force + pressure gradient inside the sample) / body force
  double drive_ratio_end_planes = 1.0;  // the same from the end planes (entrance and exit losses included)
  std::int64_t pressure_margin = 0;     // planes left out at each face where the gradient is read
  SolverResult result;
  std::string warnings;      // one per line
};

std::string to_json(const RunReport& report);
std::string csv_header();
std::string to_csv_row(const RunReport& report);

// Writes report.json, report.csv and config.ini into the run directory, each atomically.
void write_run_reports(const std::filesystem::path& dir, const RunReport& report);

}  // namespace rockperm::io
