#pragma once
// Steady two-phase flow by the colour-gradient model (issue 69): the backend stepped in checks,
// each phase's Darcy flux along the flow axis recorded at every check, and the run ended when both
// are steady to the tolerance, each with its stated error.
//
// A phase's flux in a pore space approaches its steady value as the interfaces settle, and then
// fluctuates about it where ganglia move or snap off. So the stated error of a flux is what it
// may still change plus the noise of its mean: the history's last three quarters in three blocks of
// checks, means m1, m2, m3; where the blocks' changes d1 = m2 - m1 and d2 = m3 - m2 shrink with one
// sign, a geometric decay, the change still to come is d2 r / (1 - r), r = d2 / d1; where they do
// not (noise, or a change growing) it is taken as |d2|. The noise is the last block's standard
// deviation over the square root of half its checks (neighbouring checks are correlated). The value
// reported is m3.
#include <cstdint>
#include <functional>
#include <vector>

#include "lib/backend/colour_backend.hpp"

namespace rockperm::solve {

struct ColourCheck {
  std::int64_t step = 0;
  // phase A's and phase B's flow along the flow axis: the colour passed across each face between
  // planes, summed over the faces (what sum u over the cells is for one phase)
  double flux[2] = {0, 0};
  double saturation_a = 0;  // the mean fraction of phase A over the cells
  double fastest = 0;       // the largest speed |u| of the mixture over the cells, lattice units
  std::vector<double> plane[2];  // each colour's flow from every plane across the flow axis to the next
};

struct ColourEstimate {
  bool known = false;                   // enough checks for the blocks
  double flux[2] = {0, 0};              // the last block's means
  double error[2] = {0, 0};             // their stated errors (absolute, flux units)
};

class ColourFluxMonitor {
 public:
  static constexpr std::size_t min_checks = 12;  // three blocks of at least three checks
  void add(const ColourCheck& c) { history_.push_back(c); }
  const std::vector<ColourCheck>& history() const { return history_; }
  // the checks of the estimate's last block: [first, size)
  std::size_t last_block_first() const;
  ColourEstimate estimate() const;

 private:
  std::vector<ColourCheck> history_;
};

struct ColourSteadyControls {
  int flow_axis = 0;
  std::int64_t check_interval = 200;
  std::int64_t min_steps = 2000;     // at least this many, whatever the history says
  std::int64_t max_steps = 1000000;
  // each phase's flux is steady when its stated error is below tolerance times the larger of its
  // flux and floor times `reference_flux` (a phase that barely flows is held to an absolute error)
  double tolerance = 1e-2;
  double floor = 0.1;
  // and each phase that flows (above the floor) moves the same flux through every plane across the
  // flow, averaged over the last block of checks, to this share of its mean: a total flux can hold
  // still while the phases still move along the sample
  double plane_tolerance = 0.1;
  double reference_flux = 0;
};

// (largest - smallest) / |mean| of `planes` (0 where empty or the mean is 0)
double plane_spread(const std::vector<double>& planes);

struct ColourSteadyResult {
  ColourEstimate estimate;
  double plane_spread[2] = {0, 0};  // of plane_mean
  // each phase's flux through every plane across the flow, averaged over the estimate's last block
  // of checks (a steady state's is the same through every plane: each colour is conserved)
  std::vector<double> plane_mean[2];
  std::vector<ColourCheck> history;
  std::int64_t steps = 0;
  bool converged = false;
  bool stopped = false;      // asked to stop
  bool not_finite = false;   // a flux became NaN or infinite
};

// Steps `model` in checks until both phases' fluxes are steady (controls), max_steps pass, or
// `stop` says so. `progress` (may be empty) sees every check with the estimate as it stands.
ColourSteadyResult run_colour_steady(backend::ColourBackend& model, const ColourSteadyControls& controls,
                                     const std::function<void(const ColourCheck&, const ColourEstimate&)>& progress = {},
                                     const std::function<bool()>& stop = {});

}  // namespace rockperm::solve
