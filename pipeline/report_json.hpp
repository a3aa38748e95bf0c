#pragma once
// report.json's blocks that more than one report writes or reads (pipeline/report.cpp,
// pipeline/tensor.cpp), defined once.
#include <nlohmann/json.hpp>
#include <optional>

#include "pipeline/report.hpp"

namespace rockperm::pipeline {

nlohmann::ordered_json input_json(const InputRecord& input);
// nullopt where `j` is not an input block
std::optional<InputRecord> read_input_record(const nlohmann::json& j);

}  // namespace rockperm::pipeline
