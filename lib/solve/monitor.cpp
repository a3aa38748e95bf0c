#include "lib/solve/monitor.hpp"

#include <cmath>
#include <sstream>

#include "lib/base/error.hpp"

namespace rockperm {

ConvergenceMonitor::ConvergenceMonitor(MonitorSettings settings, double initial_mass)
    : settings_(settings), initial_mass_(initial_mass) {}

ConvergenceMonitor::State ConvergenceMonitor::state() const {
  State s;
  s.initial_mass = initial_mass_;
  s.has_last_k = last_k_.has_value() ? 1 : 0;
  s.last_k = last_k_.value_or(0.0);
  s.below = below_;
  s.checks = checks_;
  s.relative_change = relative_change_;
  s.mass_drift = mass_drift_;
  return s;
}

void ConvergenceMonitor::restore(const State& s) {
  initial_mass_ = s.initial_mass;
  last_k_ = s.has_last_k ? std::optional<double>(s.last_k) : std::nullopt;
  below_ = s.below;
  checks_ = s.checks;
  relative_change_ = s.relative_change;
  mass_drift_ = s.mass_drift;
}

bool ConvergenceMonitor::check(std::int64_t step, const FlowSums& sums, double k, std::int64_t steps_since_last) {
  ++checks_;
  if (!sums.finite || !std::isfinite(k)) {
    std::ostringstream msg;
    msg << "the simulation diverged (NaN or Inf) by step " << step
        << "; lower the body force or raise tau";
    throw on_all_ranks(SimulationError(msg.str()));
  }
  mass_drift_ = std::abs(sums.mass - initial_mass_) / initial_mass_;
  if (mass_drift_ > settings_.mass_drift_limit) {
    std::ostringstream msg;
    msg << "total mass drifted by " << mass_drift_ << " (relative) by step " << step << ", above the limit "
        << settings_.mass_drift_limit << "; the run is unstable: lower the body force or raise tau";
    throw on_all_ranks(SimulationError(msg.str()));
  }
  if (last_k_) {
    const double scale = std::max(std::abs(k), std::abs(*last_k_));
    relative_change_ = scale > 0 ? std::abs(k - *last_k_) / scale : 0.0;
    if (steps_since_last != 100) relative_change_ *= 100.0 / static_cast<double>(steps_since_last);
    below_ = relative_change_ < settings_.tolerance ? below_ + 1 : 0;
  }
  last_k_ = k;
  return below_ >= settings_.required_checks;
}

}  // namespace rockperm
