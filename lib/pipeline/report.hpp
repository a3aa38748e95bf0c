#pragma once
// report.json and report.csv of a sample's result (JSON through nlohmann/json).
#include <filesystem>
#include <string>

#include "lib/pipeline/result.hpp"

namespace rockperm::pipeline {

std::string to_json(const SampleResult& result);
std::string csv_header();
std::string to_csv_row(const SampleResult& result);

// Writes report.json and report.csv into `dir`, each atomically (temporary file + rename).
void write_reports(const std::filesystem::path& dir, const SampleResult& result);

}  // namespace rockperm::pipeline
