#pragma once
// report.json and report.csv of a sample's result (JSON through nlohmann/json).
#include <cstdint>
#include <filesystem>
#include <string>

#include "pipeline/result.hpp"

namespace rockperm::pipeline {

// One line on how far k can be trusted, e.g. "k = 1466 ± 0.2 mD (converged); 7 % of the flow
// passes pores narrower than 3 voxels, where k is under-resolved".
std::string verdict(const SampleResult& result);

// The input a result came from, as report.json's "input" block states it.
struct InputRecord {
  std::string path, format;
  std::uint64_t bytes = 0;
  std::string sha256, pore_labels, crop;
  bool percolation_filter = true;
};
InputRecord input_record(const SampleResult& result);

std::string to_json(const SampleResult& result);
std::string csv_header();
std::string to_csv_row(const SampleResult& result);

// Writes report.csv, report.html (pipeline/report_html.hpp) and report.json into `dir`, each
// atomically (temporary file + rename), report.json last.
void write_reports(const std::filesystem::path& dir, const SampleResult& result);

}  // namespace rockperm::pipeline
