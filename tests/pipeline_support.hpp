#pragma once
// The validation suites run samples through the library pipeline as `rockperm run` does:
// sample_from_mask -> plan_execution -> decompose -> Simulation. The backend is the CPU one, or
// the CUDA one in gpu_validation_tests (ROCKPERM_TEST_ON_CUDA).
#include <memory>

#include "pipeline/decomposition.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/simulation.hpp"
#include "tests/test_support.hpp"

namespace rockperm::testing {

struct PipelineSettings {
  double tolerance = 1e-6;        // estimated relative error of k (lib/solve/monitor.hpp)
  double flux_tolerance = 1e-3;   // spread of the flux through the planes across the flow
  std::int64_t max_steps = 400000;
  std::int64_t check_interval = 50;
  int required_checks = 3;
  pipeline::PropagationChoice propagation = pipeline::PropagationChoice::two_pass;
  pipeline::StorageChoice storage = pipeline::StorageChoice::fp32;
  bool percolation_filter = false;  // the synthetic media here are given as they are
  bool extrapolation = true;        // the pressure extrapolation (lib/solve/extrapolation.hpp), as by default
  pipeline::ExecutionSpec::Start start = pipeline::ExecutionSpec::Start::rest;  // run.start
  bool correction = false;  // run.extrapolation = darcy (in place of the extrapolation)
  std::vector<double> shares;       // every rank's share of the cells (empty: equal slabs; a mixed run's split)
};

struct PipelineRun {
  std::unique_ptr<pipeline::Simulation> simulation;
  pipeline::SampleResult result;
  backend::Macroscopic owned;  // density deviation and velocity of this rank's owned cells
  const lattice::SparseLattice& lattice() const { return simulation->rank_lattice().lattice; }
  // the velocity of owned cell c along `axis`
  double u(std::uint32_t c, int axis) const {
    const std::size_t k = c - lattice().owned_begin();
    return axis == 0 ? owned.ux[k] : (axis == 1 ? owned.uy[k] : owned.uz[k]);
  }
};

inline pipeline::ExecutionSpec test_execution(const PipelineSettings& s) {
  pipeline::ExecutionSpec e;
#if ROCKPERM_TEST_ON_CUDA
  e.backend = pipeline::BackendChoice::cuda;
#else
  e.backend = pipeline::BackendChoice::cpu;
#endif
  e.propagation = s.propagation;
  e.storage = s.storage;
  e.max_steps = s.max_steps;
  e.check_interval = s.check_interval;
  e.monitor.tolerance = s.tolerance;
  e.monitor.flux_tolerance = s.flux_tolerance;
  e.monitor.auto_flux_tolerance = false;
  e.monitor.required_checks = s.required_checks;
  e.extrapolation.enabled = s.extrapolation;
  e.start = s.start;
  e.correction = s.correction;
  if (s.correction) e.extrapolation.enabled = false;
  return e;
}

// Runs `mask` (voxels of 1 um) with `flow` to steady state on `comm`.
inline PipelineRun run_pipeline(const parallel::Comm& comm, geometry::PoreMask mask, const pipeline::FlowSpec& flow,
                                const PipelineSettings& settings = {}) {
  flow.validate();
  const pipeline::ExecutionSpec execution = test_execution(settings);
  pipeline::Sample sample = pipeline::sample_from_mask(comm, std::move(mask), 1.0, flow, settings.percolation_filter);
  const pipeline::ExecutionPlan plan = pipeline::plan_execution(comm, execution, sample.plane_fluid);
  pipeline::RankLattice part = pipeline::decompose(comm, sample, flow.periodicity(), plan.propagation, flow.edge_contacts,
                                                   pipeline::OneRank::whole, lattice::LatticeTables::host,
                                                   comm.size() > 1 ? settings.shares : std::vector<double>{});
  PipelineRun run;
  run.simulation = std::make_unique<pipeline::Simulation>(comm, sample, std::move(part),
                                                          pipeline::resolve_flow(flow, sample), execution, plan);
  run.simulation->run();
  run.result = run.simulation->result();
  run.owned = run.simulation->owned_macroscopic();
  return run;
}

inline PipelineRun run_pipeline(geometry::PoreMask mask, const pipeline::FlowSpec& flow,
                                const PipelineSettings& settings = {}) {
  return run_pipeline(parallel::Comm(), std::move(mask), flow, settings);
}

// A flow along x with TRT at `tau` and body force `g`; lateral faces as given, the flow axis
// periodic, no buffers.
inline pipeline::FlowSpec periodic_flow(double tau, double g, geometry::Periodicity lateral = {true, true, true}) {
  pipeline::FlowSpec f;
  f.tau = tau;
  f.force = g;
  f.lateral_periodic = lateral;
  f.inlet_outlet = geometry::InletOutlet::periodic;
  return f;
}

}  // namespace rockperm::testing
