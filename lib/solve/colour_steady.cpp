#include "lib/solve/colour_steady.hpp"

#include <algorithm>
#include <cmath>

namespace rockperm::solve {

std::size_t ColourFluxMonitor::last_block_first() const {
  const std::size_t n = history_.size();
  return n < min_checks ? 0 : n - (3 * n / 4) / 3;
}

double plane_spread(const std::vector<double>& planes) {
  if (planes.empty()) return 0.0;
  const auto [lo, hi] = std::minmax_element(planes.begin(), planes.end());
  double mean = 0;
  for (const double x : planes) mean += x;
  mean /= static_cast<double>(planes.size());
  return std::abs(mean) > 0 ? (*hi - *lo) / std::abs(mean) : 0.0;
}

namespace {

// each phase's plane fluxes averaged over the checks from `first` on
void average_planes(const std::vector<ColourCheck>& history, std::size_t first, std::vector<double> (&out)[2]) {
  for (int p = 0; p < 2; ++p) {
    out[p].assign(history.empty() ? 0 : history.back().plane[p].size(), 0.0);
    for (std::size_t i = first; i < history.size(); ++i)
      for (std::size_t k = 0; k < out[p].size(); ++k) out[p][k] += history[i].plane[p][k];
    for (double& v : out[p]) v /= static_cast<double>(history.size() - first);
  }
}

}  // namespace

ColourEstimate ColourFluxMonitor::estimate() const {
  ColourEstimate e;
  const std::size_t n = history_.size();
  if (n < min_checks) return e;
  const std::size_t block = (3 * n / 4) / 3, first = n - 3 * block;
  for (int p = 0; p < 2; ++p) {
    double m[3] = {0, 0, 0};
    for (int b = 0; b < 3; ++b) {
      for (std::size_t i = 0; i < block; ++i) m[b] += history_[first + b * block + i].flux[p];
      m[b] /= static_cast<double>(block);
    }
    double spread = 0;
    for (std::size_t i = 0; i < block; ++i) {
      const double d = history_[first + 2 * block + i].flux[p] - m[2];
      spread += d * d;
    }
    spread = std::sqrt(spread / static_cast<double>(block - 1));
    const double noise = spread / std::sqrt(std::max(1.0, block / 2.0));
    const double d1 = m[1] - m[0], d2 = m[2] - m[1];
    double still = std::abs(d2);
    if (d1 != 0 && d2 / d1 > 0 && std::abs(d2) < std::abs(d1)) {
      const double r = d2 / d1;
      still = std::abs(d2 * r / (1 - r));
    }
    e.flux[p] = m[2];
    e.error[p] = still + noise;
  }
  e.known = true;
  return e;
}

ColourSteadyResult run_colour_steady(backend::ColourBackend& model, const ColourSteadyControls& controls,
                                     const std::function<void(const ColourCheck&, const ColourEstimate&)>& progress,
                                     const std::function<bool()>& stop) {
  ColourSteadyResult out;
  ColourFluxMonitor monitor;
  const std::int64_t interval = std::max<std::int64_t>(1, controls.check_interval);
  while (out.steps < controls.max_steps) {
    const std::int64_t n = std::min(interval, controls.max_steps - out.steps);
    model.advance(n);
    out.steps += n;
    backend::ColourBackend::Sums s = model.sums(controls.flow_axis);
    ColourCheck c;
    c.step = out.steps;
    // a phase's flow: its colour passed from plane to plane, summed over the faces between planes
    // (the cells' first moments also count what bounces back at the walls, and the wetting wall's
    // segregation pushes colour into them)
    c.flux[0] = 0;
    c.flux[1] = 0;
    for (const double v : s.plane_a) c.flux[0] += v;
    for (const double v : s.plane_b) c.flux[1] += v;
    c.saturation_a = s.cells > 0 ? s.fraction_a / s.cells : 0.0;
    c.fastest = s.fastest;
    c.plane[0] = std::move(s.plane_a);
    c.plane[1] = std::move(s.plane_b);
    monitor.add(c);
    out.estimate = monitor.estimate();
    if (progress) progress(c, out.estimate);
    if (!s.finite || !std::isfinite(c.flux[0]) || !std::isfinite(c.flux[1])) {
      out.not_finite = true;
      break;
    }
    if (out.estimate.known && out.steps >= controls.min_steps) {
      bool steady = true;
      std::vector<double> planes[2];
      average_planes(monitor.history(), monitor.last_block_first(), planes);
      for (int p = 0; p < 2; ++p) {
        const double floor = controls.floor * std::abs(controls.reference_flux);
        const double scale = std::max(std::abs(out.estimate.flux[p]), floor);
        steady = steady && out.estimate.error[p] <= controls.tolerance * scale;
        if (std::abs(out.estimate.flux[p]) > floor) steady = steady && plane_spread(planes[p]) <= controls.plane_tolerance;
      }
      if (steady) {
        out.converged = true;
        break;
      }
    }
    if (stop && stop()) {
      out.stopped = true;
      break;
    }
  }
  out.history = monitor.history();
  average_planes(out.history, monitor.last_block_first(), out.plane_mean);
  for (int p = 0; p < 2; ++p) out.plane_spread[p] = plane_spread(out.plane_mean[p]);
  return out;
}

}  // namespace rockperm::solve
