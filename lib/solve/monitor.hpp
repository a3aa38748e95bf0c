#pragma once
// Convergence of k and the health checks of a run: relative change of k between checks
// below a tolerance means steady; NaN/Inf or mass drift stop the run with a clear message.
#include <cstdint>
#include <optional>

#include "lib/physics/flow_sums.hpp"

namespace rockperm {

struct MonitorSettings {
  double tolerance = 1e-6;         // relative change of k between two checks
  double mass_drift_limit = 1e-4;  // relative change of total mass that stops the run
  int required_checks = 2;         // consecutive checks below tolerance
};

class ConvergenceMonitor {
 public:
  ConvergenceMonitor(MonitorSettings settings, double initial_mass);

  // Records one check. Throws SimulationError on NaN/Inf or mass drift. Returns true once k
  // changed by less than the tolerance on `required_checks` consecutive checks.
  bool check(std::int64_t step, const FlowSums& sums, double k);

  double relative_change() const { return relative_change_; }
  double mass_drift() const { return mass_drift_; }
  int checks() const { return checks_; }

 private:
  MonitorSettings settings_;
  double initial_mass_;
  std::optional<double> last_k_;
  double relative_change_ = 1.0;
  double mass_drift_ = 0.0;
  int below_ = 0;
  int checks_ = 0;
};

}  // namespace rockperm
