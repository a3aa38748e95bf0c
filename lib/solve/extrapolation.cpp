#include "lib/solve/extrapolation.hpp"

#include <algorithm>
#include <cmath>

#include "lib/solve/stepper.hpp"

namespace rockperm::solve {

PressureExtrapolation::PressureExtrapolation(const ExtrapolationSettings& settings, std::int64_t check_interval)
    : settings_(settings), check_interval_(std::max<std::int64_t>(1, check_interval)) {}

std::int64_t PressureExtrapolation::round_to_checks(double steps) const {
  const double checks = std::ceil(std::max(1.0, steps) / static_cast<double>(check_interval_));
  return static_cast<std::int64_t>(std::max(2.0, checks)) * check_interval_;
}

PressureExtrapolation::Decision PressureExtrapolation::decide(const physics::DensityProducts& p,
                                                              const ExtrapolationSettings& settings) {
  Decision d;
  if (p.d11 <= 0 || p.d22 <= 0) return d;
  const double d11 = static_cast<double>(p.d11), d21 = static_cast<double>(p.d21), d22 = static_cast<double>(p.d22);
  d.ratio = d21 / d11;
  d.residual = std::sqrt(std::max(0.0, d22 - 2.0 * d.ratio * d21 + d.ratio * d.ratio * d11) / d22);
  d.jump = d.ratio > 0.0 && d.ratio <= settings.max_ratio && d.residual <= settings.max_residual;
  return d;
}

ExtrapolationEvent PressureExtrapolation::at_check(std::int64_t step, Stepper& stepper, bool steady_soon) {
  ExtrapolationEvent e;
  if (!enabled()) return e;
  State& s = state_;
  if (s.interval == 0) s.interval = round_to_checks(static_cast<double>(settings_.first_interval > 0 ? settings_.first_interval : 1000));
  e.interval = s.interval;
  if (s.phase == 0) {
    if (s.jumps >= settings_.max_jumps || step - s.last_jump < settings_.settle) return e;
    if (!stepper.hold_density(false)) {  // no memory for it: the run goes on as before
      unavailable_ = true;
      return e;
    }
    s.phase = 1;
    s.hold_step = step;
    return e;
  }
  if (step - s.hold_step < s.interval) return e;
  if (s.phase == 1) {
    stepper.hold_density(true);
    s.phase = 2;
    s.hold_step = step;
    return e;
  }
  const Decision d = decide(stepper.density_products(), settings_);
  s.verify = verify_after(s.verify, d);  // a far jump's remainder is seen once a decision reads the field
  if (!d.jump || steady_soon) {
    // a mode too slow for the interval to tell from no change: twice the interval
    if (d.ratio > settings_.max_ratio && d.ratio < 1.0) s.interval = 2 * s.interval;
    stepper.hold_density(true);
    s.hold_step = step;
    return e;
  }
  e.jumped = true;
  e.ratio = d.ratio;
  e.factor = d.ratio / (1.0 - d.ratio);
  stepper.extrapolate_density(static_cast<float>(e.factor));
  // the slowest time measured: r = exp(-D / T)
  const double slowest = -static_cast<double>(s.interval) / std::log(d.ratio);
  s.verify = verified_later(d.ratio) ? 1 : 0;
  s.interval = round_to_checks(std::max(settings_.interval_fraction * slowest, static_cast<double>(ExtrapolationSettings::min_interval)));
  s.phase = 0;
  s.last_jump = step;
  ++s.jumps;
  return e;
}

}  // namespace rockperm::solve
