#pragma once
// The permeability tensor of a sample from its three runs (x, y and z in <dir>/x, y, z; app
// sample_run with lbm.flow_axis = all). Column j comes from the run driven along j: its k is
// k_jj, and the mean velocity across, u_i, gives k_ij = k_jj u_i / u_j (= nu u_i / g_j). The
// cross terms are measured only where the flow can cross: every face periodic (with sealed
// lateral faces or buffers the walls stop any net cross flow, and they are reported as null).
#include <array>
#include <filesystem>
#include <string>

#include "app/options.hpp"

namespace rockperm::app {

struct TensorSummary {
  std::string status;        // the worst of the three runs' (a direction that does not percolate has k = 0)
  std::string message;       // one line: the diagonal, or what failed
  std::array<double, 3> diagonal_md{};
  bool cross_terms = false;  // off-diagonal terms measured
  double symmetry_error = 0; // max |k_ij - k_ji| / sqrt(k_ii k_jj)
};

// Reads <dir>/x/report.json, y and z, writes <dir>/report.json (atomically) and returns the
// summary. Run on one process (rank 0).
TensorSummary write_tensor_report(const std::filesystem::path& dir, const RunOptions& options);

}  // namespace rockperm::app
