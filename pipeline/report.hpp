#pragma once
// report.json and report.csv of a sample's result (JSON through nlohmann/json).
#include <filesystem>
#include <string>

#include "pipeline/result.hpp"

namespace rockperm::pipeline {

// One line on how far k can be trusted, e.g. "k = 1466 ± 0.2 mD (converged); 7 % of the flow
// passes pores narrower than 3 voxels, where k is under-resolved".
std::string verdict(const SampleResult& result);

std::string to_json(const SampleResult& result);
std::string csv_header();
std::string to_csv_row(const SampleResult& result);

// Writes report.csv, report.html (pipeline/report_html.hpp) and report.json into `dir`, each
// atomically (temporary file + rename), report.json last.
void write_reports(const std::filesystem::path& dir, const SampleResult& result);

}  // namespace rockperm::pipeline
