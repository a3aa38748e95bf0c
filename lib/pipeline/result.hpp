#pragma once
// What a run of one sample gives back: k in every unit and everything needed to judge it,
// as typed values (reports, campaign tables and the service are written from this).
#include <cstdint>
#include <string>
#include <vector>

#include "lib/geometry/percolation.hpp"
#include "lib/physics/permeability.hpp"
#include "lib/pipeline/sample.hpp"
#include "lib/pipeline/spec.hpp"
#include "lib/solve/pressure_planes.hpp"

namespace rockperm::pipeline {

enum class RunStatus { converged, not_converged };
const char* to_string(RunStatus s);

// A condition the user should know about; `field` names the spec member that would change it.
struct Warning {
  std::string code;     // stable identifier: not_converged, reynolds, mach, uneven_pressure
  std::string message;  // one line, without option names
  double value = 0;     // the quantity that triggered it
  std::string field;    // e.g. "execution.max_steps", "flow.force"
};

struct Timings {
  double read = 0, percolation = 0;  // rank 0
  double setup = 0;                  // read to first step: lattice, decomposition, backend
  double solve = 0;                  // time loop only
};

struct Performance {
  std::string backend;  // description, with the rank count
  Propagation propagation = Propagation::two_pass;
  int ranks = 1;
  double mflups = 0;
  double bytes_per_cell = 0;    // device bytes per fluid cell actually held (rank 0)
  double mpi_seconds = 0;       // slowest rank's time inside the exchange
  double halo_bytes_per_step = 0;  // rank 0
};

struct SampleResult {
  InputIdentity input;
  RunStatus status = RunStatus::not_converged;
  bool converged() const { return status == RunStatus::converged; }
  Permeability k;                // k_lattice (voxel^2), m^2, darcy, mD; tortuosity, Re, Ma
  PercolationReport percolation; // porosity and connected porosity of the sample
  std::int64_t steps = 0;
  double relative_change = 0;    // of k between the last two checks
  double mass_drift = 0;
  SampleDrive drive;             // the drive k is divided by (g without buffers or mirror)
  Dims dims;                     // simulated volume
  Dims sample_dims;
  double voxel_size_um = 0;
  std::uint64_t fluid_cells = 0;
  FlowSpec flow;                 // as run
  double tolerance = 0;
  std::vector<Warning> warnings;
  Timings timings;
  Performance performance;
};

}  // namespace rockperm::pipeline
