#pragma once
// The displacement (issue 69's unsteady protocol): a capillary pressure held across the sample
// until its saturation settles. The caller's domain has a reservoir of each phase at its ends whose
// outer faces feed their phase (ColourBackend::set_sources) and a body force whose pull over the
// domain's length is the pressure asked; this steps `model` in checks until the sample's wetting
// saturation stops moving, the step limit, or a stop.
#include <cstdint>
#include <functional>

#include "lib/backend/colour_backend.hpp"

namespace rockperm::solve {

// What the caller reads of the model at a check: the wetting saturation of the sample's cells (the
// reservoirs left out) and the mean velocity along the flow over the domain (lattice units).
struct DisplacementProbe {
  double saturation = 0;
  double velocity = 0;
  bool finite = true;  // every value the probe read finite
};

struct DisplacementControls {
  std::int64_t check_interval = 200;
  // settled: the saturation moved by at most `settle` over the last `window` steps, `min_steps` done
  std::int64_t window = 4000;
  double settle = 1e-3;
  std::int64_t min_steps = 4000;
  std::int64_t max_steps = 1000000;
};

struct DisplacementLevel {
  double saturation = 0;       // at the last check
  double peak_velocity = 0;    // the largest |velocity| of the level's checks
  std::int64_t steps = 0;
  bool settled = false;
  bool stopped = false;        // asked to stop
  bool not_finite = false;     // the model's values became NaN or infinite
};

// Holds the model's present force until the saturation settles (controls). `progress` (may be
// empty) sees each check's step within the level and its probe.
DisplacementLevel hold_pressure(backend::ColourBackend& model, const DisplacementControls& controls,
                                const std::function<DisplacementProbe()>& probe,
                                const std::function<void(std::int64_t, const DisplacementProbe&)>& progress = {},
                                const std::function<bool()>& stop = {});

}  // namespace rockperm::solve
