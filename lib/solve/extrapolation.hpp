#pragma once
// The pressure extrapolation: fewer steps to steady flow on tight rock (issue "Time to k").
//
// On tight rock most of a run is the slow pressure mode (docs/ACCURACY.md, "The slow mode"): the
// pressure field along the sample relaxes as a diffusion, T_p = L^2 nu phi / (pi^2 k c_s^2)
// steps, while momentum settles in the pores within T_m = d^2 / (pi^2 nu). The density of every
// cell then approaches its limit geometrically. At checks D steps apart the backend holds each
// cell's density; from the changes over two consecutive intervals, d1 and d2, the ratio
// r = <d2, d1> / <d1, d1> over all cells is that of the slowest mode, and where one mode dominates
// (the residual |d2 - r d1| / |d2| is small) the remaining change of every cell is d2 r / (1 - r):
// the run jumps there (physics::shift_density adds it as the equilibrium's density part) and goes
// on. Once the mode is gone its remainder is that of the next, faster one, so the jumps repeat,
// with D set from the last ratio (half the slowest time measured).
//
// What it cannot change: the steady state (the jump moves the state, not the scheme, so the run
// converges to the same fixed point and stops by the same criterion, from a history the monitor
// restarts at every jump), mass (the changes sum to zero), momentum and the staggered invariant.
// The products are integer sums and the decision depends on nothing else, so a run jumps at the
// same steps by the same factors on any number of ranks; the held densities are part of a
// checkpoint, so a resumed run jumps as the uninterrupted one did.
//
// A jump over an interval much shorter than the time it measured (the first one, whose interval is
// a guess: r near 1) extrapolates far, and an error in r leaves d2 dr / (1 - r)^2 behind: at
// r = 0.84 six times what a jump at the rule's interval (D = half the time, r = 0.61) leaves for
// the same error. What such a jump left is seen by the next decision, which reads the density
// field; k may not show it, flat where a faster mode stirred by the jump offsets the slow one (a
// 256^3 periodic vug pack stopped 11,900 steps after a jump at r = 0.84 with k flat, 6.8e-5 from
// steady, stating 4.3e-5). Until a decision has read the field the jump is `verifying()`: where k's
// history shows no trend the run does not stop, and the decision jumps where a mode dominates even
// when the stop looked near (SteadyStateLoop). A decision reads the field where one mode dominates
// the changes within the ratio a jump may take; one that cannot (the slow mode mixed with the sound
// the jump stirred: another 256^3 vug pack's first decision after its jump found r = 0.63 at
// residual 0.40 and stopped 800 steps later, 2.6e-4 from steady) leaves the jump unverified, for at
// most verify_decisions decisions, since at steady the changes are noise that no decision reads.
#include <cmath>
#include <cstdint>

#include "lib/physics/density_extrapolation.hpp"

namespace rockperm::solve {

class Stepper;

struct ExtrapolationSettings {
  bool enabled = true;
  // D before the first ratio is measured (steps); 0: a third of the estimated pressure time
  // (lib/solve/time_scales.hpp), set by pipeline::Simulation
  std::int64_t first_interval = 0;
  std::int64_t settle = 300;           // steps from the start or a jump to the first hold
  double max_residual = 0.3;           // one mode dominates: |d2 - r d1| <= this |d2|
  double max_ratio = 0.9;              // a jump by at most r / (1 - r) = 9 intervals' change
  double interval_fraction = 0.5;      // D = this fraction of the slowest time measured, at least:
  static constexpr std::int64_t min_interval = 500;  // shorter ones read the sound in the pores as much as the decay
  // a jump over an interval shorter than this fraction of the time it measured, r above
  // exp(-1/4) = 0.78, is verified by the next decision: an error in r leaves 20 times itself behind
  // (d2 dr / (1 - r)^2), 3 times what it leaves at the rule's interval (6.6 at r = 0.61)
  static constexpr double verify_fraction = 0.25;
  // decisions after such a jump that may fail to read the field before it counts as verified
  static constexpr std::int64_t verify_decisions = 3;
  int max_jumps = 16;
};

// What a check decided, for the log.
struct ExtrapolationEvent {
  bool jumped = false;
  double ratio = 0, factor = 0;  // of the jump: the changes' ratio, and how many changes ahead
  std::int64_t interval = 0;
};

class PressureExtrapolation {
 public:
  // `check_interval`: the loop's (even) interval; holds and jumps come at checks.
  PressureExtrapolation(const ExtrapolationSettings& settings, std::int64_t check_interval);

  // At a check (populations in natural order), before the check's sums. `steady_soon`: the monitor
  // expects the run to stop within a few checks, when a jump (which restarts the monitor) would
  // only delay it. Returns what it did; jumped: the populations changed.
  ExtrapolationEvent at_check(std::int64_t step, Stepper& stepper, bool steady_soon);

  bool enabled() const { return settings_.enabled && !unavailable_; }
  int jumps() const { return static_cast<int>(state_.jumps); }
  // The slowest time measured at the last jump, in steps (0 before the first): the interval D is
  // set to interval_fraction of it (at least min_interval, rounded up to checks) and doubled where
  // a later decision finds a mode too slow for D, so D / interval_fraction is that time or a
  // longer one. The monitor's history must span it after the jump (lib/solve/monitor.hpp).
  double slow_time() const {
    return state_.jumps > 0 ? static_cast<double>(state_.interval) / settings_.interval_fraction : 0.0;
  }
  // The last jump extrapolated over an interval shorter than verify_fraction of the time it
  // measured, and no decision since has read the field, of at most verify_decisions (see the header).
  bool verifying() const { return state_.verify != 0; }
  // whether the backend holds densities a checkpoint must carry
  bool holding() const { return state_.phase > 0; }

  // Plain numbers, part of a checkpoint.
  struct State {
    std::int64_t phase = 0;  // 0: waiting to hold; 1: held once; 2: held twice (a change is known)
    std::int64_t hold_step = 0;
    std::int64_t interval = 0;  // D; 0: not set yet
    std::int64_t last_jump = 0;
    std::int64_t jumps = 0;
    std::int64_t verify = 0;  // verifying(): 1 + the decisions since the jump that did not read the field
  };
  State state() const { return state_; }
  void restore(const State& s) { state_ = s; }

  // The decision from the products (exposed for tests): the ratio, the residual, and whether to jump.
  struct Decision {
    double ratio = 0, residual = 1;
    bool jump = false;
  };
  static Decision decide(const physics::DensityProducts& p, const ExtrapolationSettings& settings);
  // Whether a jump at this ratio is verified by the next decision (verify_fraction).
  static bool verified_later(double ratio) { return ratio > std::exp(-ExtrapolationSettings::verify_fraction); }
  // State::verify after a decision: 0 where it read the field (one mode dominates within the ratio
  // a jump may take: `d.jump`) or was the last of verify_decisions; one more otherwise.
  static std::int64_t verify_after(std::int64_t verify, const Decision& d) {
    return verify == 0 || d.jump || verify >= ExtrapolationSettings::verify_decisions ? 0 : verify + 1;
  }

 private:
  std::int64_t round_to_checks(double steps) const;

  ExtrapolationSettings settings_;
  std::int64_t check_interval_;
  State state_;
  bool unavailable_ = false;
};

}  // namespace rockperm::solve
