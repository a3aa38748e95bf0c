#pragma once
// Convergence of k and the health checks of a run: relative change of k between checks
// below a tolerance means steady; NaN/Inf or mass drift stop the run with a clear message.
#include <cstdint>
#include <optional>

#include "lib/physics/flow_sums.hpp"

namespace rockperm {

struct MonitorSettings {
  double tolerance = 1e-6;         // relative change of k per 100 steps (between two checks, scaled)
  double mass_drift_limit = 1e-4;  // relative change of total mass that stops the run
  int required_checks = 2;         // consecutive checks below tolerance
};

class ConvergenceMonitor {
 public:
  ConvergenceMonitor(MonitorSettings settings, double initial_mass);

  // Records one check. Throws SimulationError on NaN/Inf or mass drift. Returns true once k
  // changed by less than the tolerance on `required_checks` consecutive checks. The change is
  // scaled to 100 steps (`steps_since_last` steps passed since the previous check), so that a
  // short check interval does not stop the run early.
  bool check(std::int64_t step, const FlowSums& sums, double k, std::int64_t steps_since_last = 100);

  double relative_change() const { return relative_change_; }
  double mass_drift() const { return mass_drift_; }
  int checks() const { return checks_; }

  // Everything the next check depends on, for checkpoints (plain numbers, written as bytes).
  struct State {
    double initial_mass = 0;
    double last_k = 0;
    std::int32_t has_last_k = 0;
    std::int32_t below = 0;
    std::int32_t checks = 0;
    std::int32_t padding = 0;
    double relative_change = 1.0;
    double mass_drift = 0.0;
  };
  State state() const;
  void restore(const State& s);

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
