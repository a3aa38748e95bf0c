#pragma once
// What rockperm run prints between the stages, on rank 0: the sample, the memory and the
// backend before the time loop, progress lines during it, k and the warnings after it.
#include <string>

#include "app/options.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/fields.hpp"
#include "pipeline/result.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/simulation.hpp"
#include "lib/solve/solver.hpp"

namespace rockperm::app {

// `flow`: as run (pipeline::resolve_flow of the options' flow for this sample).
void print_sample(const pipeline::RunSpec& spec, const pipeline::Sample& sample, const pipeline::FlowSpec& flow,
                  const pipeline::ExecutionPlan& plan, int ranks);
// `ready_seconds`: from the start of the run to the first step (every stage before the loop);
// `flow` false: F alone (run.formation_factor = only), the conduction solve follows instead.
void print_backend(const pipeline::Simulation& simulation, const pipeline::ExecutionPlan& plan, int ranks,
                   double ready_seconds, bool flow = true);
void print_fields(const pipeline::FieldsWritten& fields, const pipeline::FieldSpec& spec);
void print_result(const pipeline::SampleResult& result, const std::filesystem::path& report);
// Two phases: the capillary pressure curves (made before the flow), each relative permeability point.
void print_two_phase_curves(const pipeline::TwoPhaseReport& two_phase);
void print_relperm_point(const pipeline::RelPermPoint& point, std::size_t done, std::size_t total);
// a check of a point's two-phase flow (spec.two_phase.flow)
void print_colour_flow_progress(const pipeline::ColourFlowProgress& p);
// The displacement: one pressure of `curve` held (`done` of `total`)
void print_displacement_point(const std::string& curve, const pipeline::DisplacementPoint& p, std::size_t done,
                              std::size_t total);
void print_forchheimer_point(const pipeline::ForchheimerPoint& point, std::size_t index, std::size_t total);

// One progress line every `seconds` at most (0: every check), and always the last one.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(double seconds) : seconds_(seconds) {}
  void operator()(const solve::Progress& p);

 private:
  double seconds_;
  double last_ = 0;
  bool printed_ = false;
};

// The warning as the command line shows it: the message and the option that changes it.
std::string describe(const pipeline::Warning& warning);

}  // namespace rockperm::app
