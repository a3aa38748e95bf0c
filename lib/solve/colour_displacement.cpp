#include "lib/solve/colour_displacement.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <utility>

namespace rockperm::solve {

DisplacementLevel hold_pressure(backend::ColourBackend& model, const DisplacementControls& controls,
                                const std::function<DisplacementProbe()>& probe,
                                const std::function<void(std::int64_t, const DisplacementProbe&)>& progress,
                                const std::function<bool()>& stop) {
  DisplacementLevel out;
  const std::int64_t interval = std::max<std::int64_t>(1, controls.check_interval);
  std::deque<std::pair<std::int64_t, double>> recent;  // (step in the level, saturation) over the window
  const DisplacementProbe first = probe();
  recent.emplace_back(0, first.saturation);
  out.saturation = first.saturation;
  while (out.steps < controls.max_steps) {
    const std::int64_t n = std::min(interval, controls.max_steps - out.steps);
    model.advance(n);
    out.steps += n;
    const DisplacementProbe p = probe();
    if (!p.finite || !std::isfinite(p.saturation) || !std::isfinite(p.velocity)) {
      out.not_finite = true;
      break;
    }
    out.saturation = p.saturation;
    out.peak_velocity = std::max(out.peak_velocity, std::abs(p.velocity));
    if (progress) progress(out.steps, p);
    recent.emplace_back(out.steps, p.saturation);
    while (recent.size() > 1 && recent[1].first <= out.steps - controls.window) recent.pop_front();
    // the window's whole span, its largest move from the present
    double moved = 0;
    for (const auto& [step, s] : recent) moved = std::max(moved, std::abs(s - p.saturation));
    if (out.steps >= controls.min_steps && recent.front().first <= out.steps - controls.window &&
        moved <= controls.settle) {
      out.settled = true;
      break;
    }
    if (stop && stop()) {
      out.stopped = true;
      break;
    }
  }
  return out;
}

}  // namespace rockperm::solve
