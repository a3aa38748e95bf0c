#pragma once
// When a run is steady, and the health checks of a run.
//
// Steady means close to the steady state, not slow: the run stops when
//  - the remaining change of k, estimated from its history, is below `tolerance` (relative), and
//  - the same volume flows through every plane across the flow, to `flux_tolerance` (mass balance),
// on `required_checks` consecutive checks. The estimate fits the geometric decay of k over the
// last half of the run (k at n/2, 3n/4 and n steps: Aitken's extrapolation over quarter-runs, so
// that the slowest mode, the one that matters, dominates the differences once fast ones are gone):
// with d1 = k(3n/4) - k(n/2), d2 = k(n) - k(3n/4) and r = d2 / d1, a decay that continues leaves
// |d2| r / (1 - r); a change that does not shrink (r >= 1) leaves an unknown distance, and so
// does a change of sign (r <= 0): k at a turning point, where a fast mode rising has met a slow
// one falling, changes little while it is still far from its limit (a 20 % pack between sealed
// faces: flat at 1159.92 mD after 3000 steps, 1159.59 at steady state). Noise about a converged
// k turns often too, so a noisy run stops on the checks where it does not.
// The geometric remainder is doubled (remaining_safety): where several modes decay at once the
// slowest gains weight as the run goes on, so a fit over the last half sees a faster decay than
// what remains; on tight packs the true remaining change was 0.6 to 1.3 times the plain fit
// (docs/ACCURACY.md). And where the limit the fit extrapolates to has moved since the same fit a
// quarter of the run ago, slower modes are still at work: the estimate is at least that move.
// A mode slower than the run itself cannot be seen by any fit of its history, nor one hidden
// behind a faster mode of the other sign; the mass balance catches them: the run goes on until
// the flux spread is small enough that such modes dominate the history (flux_limit() below).
// After a pressure jump (lib/solve/extrapolation.hpp) the history starts again, and a short history
// after a jump can sit on a plateau where a fast mode rising meets a slow one falling, flat while
// far from its limit: a 20 % pack between mirrored faces stopped 900 steps after its jump, 1.7e-4
// from steady with a stated error of 3.5e-5 and a flux spread of 3.6e-5 (docs/ACCURACY.md). So
// after a jump the run does not stop before its history spans the slowest time the extrapolation
// measured (`slow_time`, the time of the mode it jumped over), or the run before the jump where that
// is shorter (late jumps on tight rock measure modes slower than the whole run, which the history
// before them has already watched for as long: a 256^3 10 % pack took 133,000 steps to span a
// 36,000-step time after its jump at step 28,300, 34,800 steps before). Once it does, that mode's own
// remainder is read from the slope of k: a mode decaying as exp(-t / T) is T |dk/dt| from its
// limit, doubled as the fit's is, and the stated error is at least that. With this reading of the
// slow mode the mass balance is no longer needed as its guard: on tight rock the flux spread is
// the pressure profile along the sample relaxing, whose flux through the planes sums to nothing,
// and it held runs 1.5x longer than k needed (tight 512^3 pack: k within 2e-5 at 10,900 steps,
// the spread at its limit at 16,100).
// The slow mode's time is not only the one the jump measured: where k's slope falls more slowly
// than that time says from one quarter of the history to the next, a slower mode is there and its
// time is read from the fall; where the slope does not fall, or turns, the history is split into a
// faster mode and the line beneath it, and the line's slope over a multiple of the history bounds
// the slower mode (slow_mode_remaining; a vuggy carbonate stopped 1.4e-4 from steady with a stated
// 9.1e-5, its vugs filling in ~8,600 steps after a jump that measured ~2,300; tight1000 turned
// after its jump and, read with the faster mode's slope, ran 62 % longer than it needed).
// NaN/Inf or mass drift stop the run with a clear message.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "lib/physics/flow_sums.hpp"

namespace rockperm::solve {

struct MonitorSettings {
  double tolerance = 1e-4;         // relative error of k, estimated from its history
  double flux_tolerance = 5e-5;    // (largest - smallest flux through a plane) / mean flux
  bool auto_flux_tolerance = true; // flux_tolerance follows tolerance: flux_limit()
  double mass_drift_limit = 1e-4;  // relative change of total mass that stops the run
  int required_checks = 2;         // consecutive checks that meet both
  // the lowest automatic flux tolerance: above the spread the storage's rounding leaves
  double flux_floor = 1e-5;
  // steps between the two readings of the planes' mass whose difference gives the flux spread
  // (even): the rounding noise of the mass changes grows as the square root of the lag, the flux
  // as the lag, so a longer lag reads the spread through less noise (fp16: 64)
  std::int64_t measure_lag = 2;
  // Storage that leaves noise on k (fp16): k is read as the mean of its last eighth of the run
  // (trailing windows of equal length), the distance to the limit is fitted through such means,
  // and the stated error adds the mean's own standard error, measured from the history (batch
  // means). Off (fp32): single values, as before, bit for bit.
  bool average_noise = false;
  // relative fluctuation of k that the storage's rounding leaves at steady state (0: none):
  // changes of k below it are not a trend to extrapolate but the end of one
  double k_noise = 0;
  // The flux spread a run must reach: flux_tolerance, or with auto_flux_tolerance half of
  // `tolerance` but not below 1e-5 (float populations leave a spread of 5e-7 on 128^3 packs and
  // 1.5e-6 on 256^3 ones at steady state, growing with the sample).
  // Half: on a 20 % pack between buffers a slow mode moved k by 5 times the flux spread it left
  // (at a spread of 1e-4 the run stopped 2.8e-4 from steady); once the spread is below 5e-5 that
  // mode dominates the history of k and the fit sees it (14 packs: docs/ACCURACY.md).
  // fp16 storage (stochastic rounding) leaves a spread of 5e-5 to 1.2e-4 on the 64^3 sample at
  // steady state: its floor is 2e-4 (pipeline/simulation.cpp).
  double flux_limit() const { return auto_flux_tolerance ? std::max(0.5 * tolerance, flux_floor) : flux_tolerance; }
};

// k at equally spaced steps (0, s, 2s, ...), thinned to every other value when full, so that a
// run of any length keeps its history in a fixed size (it is part of a checkpoint).
class KHistory {
 public:
  static constexpr int capacity = 256;
  explicit KHistory(std::int64_t spacing = 100);
  void record(std::int64_t step, double k);
  // k at `step` interpolated between recorded values; nullopt where there are none.
  std::optional<double> at(double step) const;
  std::int64_t spacing() const { return spacing_; }
  // The recorded values in step order, as (step, k); the ones a missed check left out are skipped.
  std::vector<std::pair<std::int64_t, double>> points() const;

 private:
  std::int64_t spacing_;
  std::int32_t count_ = 0;  // values 0..count-1 are set (NaN where a check was missed)
  std::int32_t padding_ = 0;
  std::array<double, capacity> k_{};
};

inline constexpr double remaining_safety = 2.0;
// One unit in the last place of a float, relative (2^-24): changes of k below it, both ways, are
// the rounding of a float steady state, not a trend.
inline constexpr double float_rounding = 5.9604644775390625e-08;

// The estimated remaining change of k after `step` steps (absolute; +inf when unknown).
double remaining_change(const KHistory& history, std::int64_t step, double k, double noise = 0);

// The remaining change of k that the slowest mode still present leaves (absolute, before the
// safety factor): its time times the slope of k, fitted by least squares over the recorded values
// of the last min(step / 2, slow_time) steps. The time is `slow_time` (measured by the pressure
// extrapolation), or longer where the slope falls more slowly than that between the last two
// quarters of the history: a slower mode, whose time the fall gives. Where the slope above the
// noise (`noise` relative, at least a float's rounding) does not fall, or turns, the last three
// quarters are fitted as a faster mode and a straight line (every time of the faster mode that
// fits as well, the largest answer): what the faster mode has left, plus the line's slope over
// unbounded_time_factor times the history (issue 54: a vuggy carbonate's second, slower mode;
// tight1000's turn). +inf while fewer than 4 values lie in a window.
// `trend`: whether k's slope over either of the last two quarters stands above its own scatter and
// the rounding; where it does not (k flat), the remaining change is read from a slope that is nothing
// but scatter, and a slow mode may be hidden behind a faster one of the other sign (slow_mode_hidden).
struct SlowModeReading {
  double remaining = std::numeric_limits<double>::infinity();
  bool trend = false;
};
SlowModeReading read_slow_mode(const KHistory& history, std::int64_t step, double slow_time, double noise = 0);
inline double slow_mode_remaining(const KHistory& history, std::int64_t step, double slow_time, double noise = 0) {
  return read_slow_mode(history, step, slow_time, noise).remaining;
}
// A slope whose fall from one quarter of the history to the next is below this share of the fall
// the quarter before is falling ever faster: not one mode decaying but one of the other sign
// ending, k about to turn (monitor.cpp).
inline constexpr double fall_consistency = 0.9;
// Where the slope does not fall, the time of the mode behind it, in steps of the history since the
// jump: a slope that has not fallen over the last half of it belongs to a mode at least about that
// slow (the fall over a quarter of 0.95 says 5 times).
inline constexpr double unbounded_time_factor = 4.0;

// Through a noisy history (MonitorSettings::average_noise): k as the mean of the recorded values
// in the trailing window (step - w, step], the remaining change fitted through such means at
// step/2, 3 step/4 and step, and the standard error of the last mean (from the spread of the
// means of its four quarters). w is step/8, but at least 8 recorded intervals while that is at
// most step/4 (the three windows still apart), so that a history restarted by a pressure jump can
// have an estimate 28 checks after it rather than 56 (a tight 512^3 pack in fp16 stopped 6,300
// steps after its jump, 2,700 after fp32 did). Unknown (+inf remaining) while a window holds
// fewer than 8 values.
struct AveragedK {
  double k = 0;
  double remaining = std::numeric_limits<double>::infinity();  // absolute
  double standard_error = std::numeric_limits<double>::infinity();  // absolute
};
AveragedK averaged_k(const KHistory& history, std::int64_t step);

class ConvergenceMonitor {
 public:
  ConvergenceMonitor(MonitorSettings settings, double initial_mass, std::int64_t check_interval = 100);

  // Records one check. Throws SimulationError on NaN/Inf or mass drift. Returns true once the
  // estimated error of k and the flux non-uniformity are below their tolerances on
  // `required_checks` consecutive checks. `steps_since_last` scales the change of k between
  // checks to 100 steps (shown as progress). `slow_time`: after a restart, the slowest time the
  // pressure extrapolation measured (0: none); see the header's comment.
  bool check(std::int64_t step, const physics::FlowSums& sums, double k, double flux_nonuniformity,
             std::int64_t steps_since_last = 100, double slow_time = 0);

  // Whether the run may stop within a few checks (a pressure jump would then only delay it): the
  // last check's error and mass balance within twice their limits (the slow mode halves them in 0.7
  // of its time, less than a jump's two intervals take), the balance read as check() reads it.
  bool steady_soon(std::int64_t step, double slow_time) const;

  // After a jump, once k's slope is read (the history spans the slow time): whether k shows no
  // trend above its scatter over the last two quarters of the history since the jump. Flat k after
  // a jump is either steady or a slow mode hidden behind a faster one of the other sign, which k's
  // history cannot tell apart (a 256^3 periodic vug pack: flat 11,900 steps after its first jump
  // while 6.8e-5 from steady); the pressure extrapolation's next decision, which sees the density
  // field, tells them apart (SteadyStateLoop, PressureExtrapolation::verifying()).
  bool slow_mode_hidden(std::int64_t step, double slow_time) const;

  double relative_change() const { return relative_change_; }  // per 100 steps, last check
  double error_estimate() const { return error_estimate_; }    // relative, +inf when unknown
  // The k a check reports: the k it was given, or with average_noise the mean of the last
  // window (relative to the k given: multiply the k given by it).
  double reported_k_factor() const { return reported_k_factor_; }
  double flux_nonuniformity() const { return flux_nonuniformity_; }
  double mass_drift() const { return mass_drift_; }
  int checks() const { return checks_; }
  // The state jumped at `step` (lib/solve/extrapolation.hpp): the history of k starts again there,
  // as from a new start (what went before is another approach to the same limit).
  void restart(std::int64_t step);
  std::int64_t origin() const { return origin_; }
  const KHistory& history() const { return history_; }

  // Everything the next check depends on, for checkpoints (plain numbers, written as bytes).
  struct State {
    double initial_mass = 0;
    double last_k = 0;
    std::int32_t has_last_k = 0;
    std::int32_t below = 0;
    std::int32_t checks = 0;
    std::int32_t origin_checks = 0;  // the step the history starts at, in check intervals (restart())
    double relative_change = 1.0;
    double mass_drift = 0.0;
    double error_estimate = std::numeric_limits<double>::infinity();
    double flux_nonuniformity = 1.0;
    KHistory history;
  };
  State state() const;
  void restore(const State& s);

 private:
  MonitorSettings settings_;
  double initial_mass_;
  std::optional<double> last_k_;
  double relative_change_ = 1.0;
  double error_estimate_ = std::numeric_limits<double>::infinity();
  double flux_nonuniformity_ = 1.0;
  double mass_drift_ = 0.0;
  int below_ = 0;
  int checks_ = 0;
  double reported_k_factor_ = 1.0;
  std::int64_t check_interval_;
  std::int64_t origin_ = 0;
  KHistory history_;

  // After a jump, whether the history (`since_origin` steps) spans the wait (monitor.hpp's comment):
  // from then on k's slope over the slow time reads the slow mode, in place of the mass balance.
  bool slope_reads_slow_mode(std::int64_t since_origin, double slow_time) const;
};

}  // namespace rockperm::solve
