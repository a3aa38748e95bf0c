#include "lib/solve/monitor.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

#include "lib/base/error.hpp"

namespace rockperm::solve {

KHistory::KHistory(std::int64_t spacing) : spacing_(std::max<std::int64_t>(1, spacing)) {
  k_.fill(std::numeric_limits<double>::quiet_NaN());
}

void KHistory::record(std::int64_t step, double k) {
  while (step / spacing_ >= capacity) {  // full: keep every other value, twice the spacing
    for (int j = 0; j < capacity / 2; ++j) k_[j] = k_[2 * j];
    for (int j = capacity / 2; j < capacity; ++j) k_[j] = std::numeric_limits<double>::quiet_NaN();
    count_ = (count_ + 1) / 2;
    spacing_ *= 2;
  }
  if (step % spacing_ != 0) return;
  const auto j = static_cast<std::int32_t>(step / spacing_);
  k_[j] = k;
  count_ = std::max(count_, j + 1);
}

std::optional<double> KHistory::at(double step) const {
  const double x = step / static_cast<double>(spacing_);
  const auto j = static_cast<std::int32_t>(std::floor(x));
  if (j < 0 || j >= count_) return std::nullopt;
  const double w = x - j;
  if (w == 0.0) return std::isnan(k_[j]) ? std::nullopt : std::optional<double>(k_[j]);
  if (j + 1 >= count_ || std::isnan(k_[j]) || std::isnan(k_[j + 1])) return std::nullopt;
  return (1.0 - w) * k_[j] + w * k_[j + 1];
}

std::vector<std::pair<std::int64_t, double>> KHistory::points() const {
  std::vector<std::pair<std::int64_t, double>> out;
  for (std::int32_t j = 0; j < count_; ++j) {
    if (!std::isnan(k_[j])) out.emplace_back(static_cast<std::int64_t>(j) * spacing_, k_[j]);
  }
  return out;
}

namespace {

struct Fit {
  double limit = 0;      // the extrapolated k
  double remainder = 0;  // |limit - k|, or the last change where the sign turned
  bool known = false;    // false: the change does not shrink, or no history
};

// The geometric fit through k at step/2, 3 step/4 and step (see monitor.hpp).
Fit fit(const KHistory& history, double step, double k, double noise) {
  Fit f;
  const auto half = history.at(0.5 * step);
  const auto three_quarters = history.at(0.75 * step);
  if (!half || !three_quarters) return f;
  const double d1 = *three_quarters - *half, d2 = k - *three_quarters;
  f.known = true;
  f.limit = k;
  if (d2 == 0.0) return f;
  if (noise > 0 && std::abs(d1) < noise * std::abs(k) && std::abs(d2) < noise * std::abs(k)) {
    f.remainder = std::max(std::abs(d1), std::abs(d2));  // at the noise floor: no trend left to read
    return f;
  }
  const double r = d1 != 0.0 ? d2 / d1 : 1.0;
  if (r >= 1.0 || r <= 0.0) {  // not shrinking, or turning: no distance can be read
    // unless k only flickers in its float rounding (a float steady state that flips a last bit
    // of a few cells): then no trend is left, and never converging would be the wrong answer
    const double flicker = std::max(std::abs(d1), std::abs(d2));
    f.known = flicker <= float_rounding * std::abs(k);
    f.remainder = flicker;
  } else {
    f.limit = k + d2 * r / (1.0 - r);
    f.remainder = std::abs(f.limit - k);
  }
  return f;
}

}  // namespace

double remaining_change(const KHistory& history, std::int64_t step, double k, double noise) {
  constexpr double unknown = std::numeric_limits<double>::infinity();
  if (step < 8 * history.spacing()) return unknown;  // too short a history to fit
  const double n = static_cast<double>(step);
  const Fit now = fit(history, n, k, noise);
  if (!now.known) return unknown;
  double remaining = remaining_safety * now.remainder;
  // the same fit a quarter of the run ago: where its limit has moved since, modes slower than
  // the fit sees are still at work, and the move is a measure of them
  const auto earlier_k = history.at(0.75 * n);
  if (earlier_k && step >= 16 * history.spacing()) {
    const Fit earlier = fit(history, 0.75 * n, *earlier_k, noise);
    if (earlier.known) remaining = std::max(remaining, std::abs(now.limit - earlier.limit));
  }
  return remaining;
}

namespace {

// The least-squares slope of the recorded k over the steps in (from, to], with its standard error
// from the scatter about the line; nullopt under 4 values.
struct Slope {
  double value = 0, error = 0;
};
std::optional<Slope> slope_between(const std::vector<std::pair<std::int64_t, double>>& points, double from, double to) {
  std::vector<std::pair<double, double>> in;  // (step, k)
  for (const auto& [at, k] : points) {
    const double t = static_cast<double>(at);
    if (t > from && t <= to) in.emplace_back(t, k);
  }
  if (in.size() < 4) return std::nullopt;
  double mean_t = 0, mean_k = 0;
  for (const auto& [t, k] : in) {
    mean_t += t;
    mean_k += k;
  }
  mean_t /= static_cast<double>(in.size());
  mean_k /= static_cast<double>(in.size());
  double stt = 0, stk = 0;
  for (const auto& [t, k] : in) {
    stt += (t - mean_t) * (t - mean_t);
    stk += (t - mean_t) * (k - mean_k);
  }
  if (!(stt > 0)) return std::nullopt;
  Slope s;
  s.value = stk / stt;
  double residual = 0;
  for (const auto& [t, k] : in) {
    const double r = k - mean_k - s.value * (t - mean_t);
    residual += r * r;
  }
  s.error = std::sqrt(residual / static_cast<double>(in.size() - 2) / stt);
  return s;
}

// The recorded k over (n - window, n] read as a mode of its own time decaying toward a straight
// line: k(t) = K + A exp(-(t - n) / tau) + D (t - n), least squares for K, A and D at each tau of a
// geometric ladder from two check intervals to four windows. At a turn the quarters' slopes hold
// both modes; the line's slope is the slower one's alone, and A what the faster one still has to
// move (tight1000: a ~550-step mode rising after the jump, a slow one falling beneath it at
// -1.1e-9 per step; the quarters' largest slope, the rising one's, bounded the error at 7e-4 and
// held the run from 16,200 steps to 26,300). Where the modes are close, or the faster one nearly
// as slow as the window, several taus fit about as well and split k differently: the answer is the
// largest |A| + `horizon` |D| of every tau whose fit is as good as the best within its scatter (or
// the rounding of k), so an ill-told split bounds from above. nullopt under 8 values in the window.
std::optional<double> split_remaining(const std::vector<std::pair<std::int64_t, double>>& points, double n,
                                      double window, double spacing, double horizon) {
  std::vector<std::pair<double, double>> in;  // ((t - n) / window, k - k(n))
  for (const auto& [at, k] : points) {
    const double t = static_cast<double>(at);
    if (t > n - window && t <= n) in.emplace_back((t - n) / window, k);
  }
  if (in.size() < 8) return std::nullopt;
  const double last = in.back().second;
  for (auto& [t, k] : in) k -= last;
  const auto det3 = [](const std::array<std::array<double, 3>, 3>& a) {
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  };
  struct Fit {
    double residual, bound;
  };
  std::vector<Fit> fits;
  for (double tau = 2.0 * spacing; tau <= 4.0 * window; tau *= 1.15) {
    const double u = tau / window;  // in windows
    std::array<std::array<double, 3>, 3> m{};
    std::array<double, 3> v{};
    for (const auto& [t, k] : in) {
      const std::array<double, 3> r{1.0, std::exp(-t / u), t};
      for (int i = 0; i < 3; ++i) {
        v[i] += r[i] * k;
        for (int j = 0; j < 3; ++j) m[i][j] += r[i] * r[j];
      }
    }
    const double det = det3(m);
    if (!(std::abs(det) > 0)) continue;
    std::array<double, 3> x{};
    for (int c = 0; c < 3; ++c) {
      auto a = m;
      for (int i = 0; i < 3; ++i) a[i][c] = v[i];
      x[c] = det3(a) / det;
    }
    double residual = 0;
    for (const auto& [t, k] : in) {
      const double r = k - x[0] - x[1] * std::exp(-t / u) - x[2] * t;
      residual += r * r;
    }
    fits.push_back({residual, std::abs(x[1]) + horizon * std::abs(x[2]) / window});
  }
  if (fits.empty()) return std::nullopt;
  double best = std::numeric_limits<double>::infinity();
  for (const Fit& f : fits) best = std::min(best, f.residual);
  const double rounding = float_rounding * std::abs(last);
  // within the scatter of the best fit: its residual per degree of freedom times 4 (about 2
  // standard errors of the one parameter, tau, the fits differ in), and the rounding of k
  const double count = static_cast<double>(in.size());
  const double accept = best * (1.0 + 4.0 / (count - 3.0)) + count * rounding * rounding;
  double bound = 0;
  for (const Fit& f : fits)
    if (f.residual <= accept) bound = std::max(bound, f.bound);
  return bound;
}

}  // namespace

SlowModeReading read_slow_mode(const KHistory& history, std::int64_t step, double slow_time, double noise) {
  SlowModeReading reading;
  const std::vector<std::pair<std::int64_t, double>> points = history.points();
  if (points.empty()) return reading;
  const double n = static_cast<double>(step), window = std::min(0.5 * n, slow_time);
  const std::optional<Slope> slope = slope_between(points, n - window, n);
  if (!slope) return reading;
  // The slope's own fall over the last three quarters of the history (the first quarter after a
  // jump holds the fast modes it stirred). A mode of time T falls by exp(-q / T) over a quarter q,
  // the same from quarter to quarter. Where the slope falls more slowly than the measured slow time
  // says, a slower mode is there and its time is read from the fall. Where it does not fall, or
  // falls ever faster (a mode of the other sign ending: k about to turn), no fall gives its time:
  // it is then taken as unbounded_time_factor times the history since the jump (a slope that has
  // not fallen over half the history belongs to a mode at least that slow), which stops the run
  // only where even that leaves k within the tolerance. A vuggy carbonate stopped 1.4e-4 below
  // steady with a stated 9.1e-5, k still creeping up at a rising slope: its vugs filled through
  // narrow pores in ~8,600 steps, while the jump had measured ~2,300. Where the slope is within its
  // own scatter, or its change over a quarter within the rounding of k, no trend is left to read
  // and the slow time stands.
  double time = slow_time, rate = std::abs(slope->value);
  const double q = 0.25 * n;
  const std::optional<Slope> a = slope_between(points, n - 3.0 * q, n - 2.0 * q);
  const std::optional<Slope> b = slope_between(points, n - 2.0 * q, n - q);
  const std::optional<Slope> c = slope_between(points, n - q, n);
  const double rounding = 2.0 * std::max(noise, float_rounding) * std::abs(points.back().second) / q;
  const auto trend = [&](const std::optional<Slope>& s) {
    return s && std::abs(s->value) > std::max(3.0 * s->error, rounding);
  };
  reading.trend = b && c && (trend(c) || trend(b));
  if (reading.trend) {  // a trend in either: a slope falling to nothing is a turn too
    const double fall = b->value != 0.0 ? c->value / b->value : 2.0;
    bool bounded = fall > 0.0 && fall < 1.0;  // else not falling, or turning
    if (bounded && trend(b) && a && a->value != 0.0) {
      const double earlier = b->value / a->value;
      bounded = !(earlier > 0.0 && fall < fall_consistency * earlier);  // falling ever faster
    }
    if (bounded) {
      time = std::max(time, q / -std::log(fall));
    } else {
      // no fall gives the slow mode's time: the last three quarters split into a faster mode and
      // the line beneath it, whose slope, over unbounded_time_factor times the history, is what
      // the slower mode may still move; the faster one adds what it has left (split_modes)
      const double spacing = static_cast<double>(history.spacing());
      if (const auto split = split_remaining(points, n, 3.0 * q, spacing, unbounded_time_factor * n)) {
        reading.remaining = std::max(time * rate, *split);
        return reading;
      }
      // too few values to split: the quarters' own slopes say how fast k still moves
      time = std::max(time, unbounded_time_factor * n);
      rate = std::max({rate, std::abs(b->value), std::abs(c->value)});
    }
  }
  reading.remaining = time * rate;
  return reading;
}

AveragedK averaged_k(const KHistory& history, std::int64_t step) {
  AveragedK a;
  const std::vector<std::pair<std::int64_t, double>> points = history.points();
  const double n = static_cast<double>(step);
  const double w = std::min(std::max(n / 8.0, 8.0 * static_cast<double>(history.spacing())), n / 4.0);
  // the mean of the recorded values in (end - w, end], and of its quarters
  const auto window = [&](double end, std::array<double, 4>* quarters) -> std::optional<double> {
    double sum = 0;
    int count = 0;
    std::array<double, 4> qs{};
    std::array<int, 4> qn{};
    for (const auto& [at, k] : points) {
      const double x = static_cast<double>(at);
      if (x <= end - w || x > end) continue;
      sum += k;
      ++count;
      const int q = std::min(3, static_cast<int>((x - (end - w)) / w * 4.0));
      qs[q] += k;
      ++qn[q];
    }
    if (count < 8) return std::nullopt;
    if (quarters) {
      for (int q = 0; q < 4; ++q) {
        if (qn[q] == 0) return std::nullopt;
        (*quarters)[q] = qs[q] / qn[q];
      }
    }
    return sum / count;
  };
  std::array<double, 4> quarters{};
  const auto last = window(n, &quarters), three_quarters = window(0.75 * n, nullptr), half = window(0.5 * n, nullptr);
  if (!last) return a;
  a.k = *last;
  // batch means: the quarters' scatter about their straight line (the trend that is still there is
  // the fit's, not noise), over sqrt(4), is the standard error of the mean; batches hold where
  // the noise is correlated over a few checks, which the scatter of single values would not
  const double slope = (3.0 * (quarters[3] - quarters[0]) + (quarters[2] - quarters[1])) / 10.0;  // least squares
  double mean = 0, residual = 0;
  for (const double q : quarters) mean += q / 4.0;
  for (int i = 0; i < 4; ++i) {
    const double line = mean + slope * (i - 1.5);
    residual += (quarters[i] - line) * (quarters[i] - line);
  }
  a.standard_error = std::sqrt(residual / 2.0 / 4.0);  // two degrees of freedom left
  if (!three_quarters || !half) return a;
  const double d1 = *three_quarters - *half, d2 = *last - *three_quarters;
  const double floor = 2.0 * std::sqrt(2.0) * a.standard_error;  // a difference of two means at the noise
  if (std::abs(d1) <= floor && std::abs(d2) <= floor) {
    a.remaining = std::max(std::abs(d1), std::abs(d2));  // no trend left to read above the noise
    return a;
  }
  const double r = d1 != 0.0 ? d2 / d1 : 1.0;
  if (r >= 1.0 || r <= 0.0) return a;  // not shrinking, or turning
  a.remaining = std::abs(d2 * r / (1.0 - r));
  return a;
}

ConvergenceMonitor::ConvergenceMonitor(MonitorSettings settings, double initial_mass, std::int64_t check_interval)
    : settings_(settings),
      initial_mass_(initial_mass),
      check_interval_(std::max<std::int64_t>(1, check_interval)),
      history_(check_interval) {}

void ConvergenceMonitor::restart(std::int64_t step) {
  origin_ = step;
  history_ = KHistory(check_interval_);
  below_ = 0;
  error_estimate_ = std::numeric_limits<double>::infinity();
  reported_k_factor_ = 1.0;
}

ConvergenceMonitor::State ConvergenceMonitor::state() const {
  State s;
  s.initial_mass = initial_mass_;
  s.has_last_k = last_k_.has_value() ? 1 : 0;
  s.last_k = last_k_.value_or(0.0);
  s.below = below_;
  s.checks = checks_;
  s.origin_checks = static_cast<std::int32_t>(origin_ / check_interval_);
  s.relative_change = relative_change_;
  s.mass_drift = mass_drift_;
  s.error_estimate = error_estimate_;
  s.flux_nonuniformity = flux_nonuniformity_;
  s.history = history_;
  return s;
}

void ConvergenceMonitor::restore(const State& s) {
  initial_mass_ = s.initial_mass;
  last_k_ = s.has_last_k ? std::optional<double>(s.last_k) : std::nullopt;
  below_ = s.below;
  checks_ = s.checks;
  origin_ = static_cast<std::int64_t>(s.origin_checks) * check_interval_;
  relative_change_ = s.relative_change;
  mass_drift_ = s.mass_drift;
  error_estimate_ = s.error_estimate;
  flux_nonuniformity_ = s.flux_nonuniformity;
  history_ = s.history;
  reported_k_factor_ = 1.0;
  if (settings_.average_noise && last_k_ && *last_k_ != 0.0 && s.checks > 0) {  // as the last check had it
    const auto points = history_.points();
    if (!points.empty()) {
      const AveragedK a = averaged_k(history_, points.back().first);
      if (std::isfinite(a.remaining)) reported_k_factor_ = a.k / *last_k_;
    }
  }
}

bool ConvergenceMonitor::check(std::int64_t step, const physics::FlowSums& sums, double k, double flux_nonuniformity,
                               std::int64_t steps_since_last, double slow_time) {
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
  }
  last_k_ = k;
  flux_nonuniformity_ = flux_nonuniformity;
  step -= origin_;  // the history counts from the last restart
  if (settings_.average_noise) {
    history_.record(step, k);  // the window ends at this check
    const AveragedK a = averaged_k(history_, step);
    reported_k_factor_ = std::isfinite(a.remaining) && k != 0.0 ? a.k / k : 1.0;
    const double reported = k * reported_k_factor_;
    const double remaining = remaining_safety * a.remaining + a.standard_error;
    error_estimate_ = reported != 0.0 ? remaining / std::abs(reported) : remaining;
  } else {
    const double remaining = remaining_change(history_, step, k, settings_.k_noise);
    error_estimate_ = k != 0.0 ? remaining / std::abs(k) : (remaining == 0.0 ? 0.0 : remaining);
    history_.record(step, k);
  }
  // after a jump: no stop before the history spans the slow time; then the slow mode's slope
  // bounds the error from below and stands in for the mass balance (monitor.hpp)
  const bool after_jump = slow_time > 0 && origin_ > 0;
  const bool slope = slope_reads_slow_mode(step, slow_time);
  if (slope) {
    const double reported = std::abs(k * reported_k_factor_);
    const double slow = remaining_safety * slow_mode_remaining(history_, step, slow_time, settings_.k_noise);
    error_estimate_ = std::max(error_estimate_, reported != 0.0 ? slow / reported : slow);
  }
  const bool balanced = flux_nonuniformity_ < settings_.flux_limit() || slope;
  const bool steady = (!after_jump || slope) && error_estimate_ < settings_.tolerance && balanced;
  below_ = steady ? below_ + 1 : 0;
  return below_ >= settings_.required_checks;
}

bool ConvergenceMonitor::slope_reads_slow_mode(std::int64_t since_origin, double slow_time) const {
  return slow_time > 0 && origin_ > 0 &&
         static_cast<double>(since_origin) >= std::min(slow_time, static_cast<double>(origin_));
}

bool ConvergenceMonitor::slow_mode_hidden(std::int64_t step, double slow_time) const {
  const std::int64_t since = step - origin_;
  return slope_reads_slow_mode(since, slow_time) && !read_slow_mode(history_, since, slow_time, settings_.k_noise).trend;
}

bool ConvergenceMonitor::steady_soon(std::int64_t step, double slow_time) const {
  return std::isfinite(error_estimate_) && error_estimate_ < 2.0 * settings_.tolerance &&
         (flux_nonuniformity_ < 2.0 * settings_.flux_limit() || slope_reads_slow_mode(step - origin_, slow_time));
}

}  // namespace rockperm::solve
