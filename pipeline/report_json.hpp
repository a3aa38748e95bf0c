#pragma once
// report.json's blocks that more than one report writes or reads (pipeline/report.cpp,
// pipeline/tensor.cpp), defined once.
#include <nlohmann/json.hpp>
#include <optional>

#include "pipeline/report.hpp"

namespace rockperm::pipeline {

nlohmann::ordered_json input_json(const InputRecord& input);
// report.json's "two_phase" block (spec.two_phase): the curves, the k_r points, the residuals.
nlohmann::ordered_json two_phase_json(const TwoPhaseReport& two_phase);
// nullopt where `j` is not an input block
std::optional<InputRecord> read_input_record(const nlohmann::json& j);

}  // namespace rockperm::pipeline
