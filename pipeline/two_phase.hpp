#pragma once
// Two phases from the same scan, quasi-static (spec.two_phase; docs/manual/two-phases.md):
//
//   the run's pore space (the volume again on rank 0, filtered as the run's) -> drainage (and
//   imbibition) by pore morphology (lib/geometry/morphology.hpp) at the pressures asked ->
//   [the run's k] -> at chosen points of the curves, k of each phase by the flow solve on the cells
//   it holds (a companion run: the same boundaries, stop and execution), the other phase a wall
//   -> k_r = k_phase / k, with the stated error of both stops.
//
// The other phase held as a no-slip wall neglects the momentum passed across the fluid-fluid
// interface (a bound, not the coupled flow: issue 69 measures it). The curves are made before the
// flow, so that a pressure list or a saturation the curve never reaches is refused before any step.
#include <memory>

#include "lib/parallel/comm.hpp"
#include "pipeline/result.hpp"
#include "pipeline/run.hpp"

namespace rockperm::pipeline {

class TwoPhase {
 public:
  // Collective: the curves and the k_r points of the request's sample (rank 0 holds them). Throws
  // on every rank: InputError where the pressures or saturations cannot be met (the message names
  // what was reached), and what reading the volume again throws.
  TwoPhase(const parallel::Comm& comm, const RunRequest& request);
  ~TwoPhase();
  TwoPhase(const TwoPhase&) = delete;
  TwoPhase& operator=(const TwoPhase&) = delete;
  // The curves as reported (rank 0), before any k_r point.
  const TwoPhaseReport& report() const;
  // Collective: the k_r points' flow solves, relative to result.k (none where the run did not
  // converge: said in the note), and the curves with Leverett's J, into result.two_phase. Never
  // throws for what a phase's flow does: a phase that does not span has k_r = 0 with that reason.
  void finish(const parallel::Comm& comm, const RunRequest& request, SampleResult& result);
  // Rank 0: the phases (solid 0, wetting 1, non-wetting 2) of the sample's voxels (x fastest, its
  // own dims) at point `point` of `curve` ("drainage" or "imbibition"). Throws InputError where
  // there is no such point.
  std::vector<std::uint8_t> phases(const std::string& curve, std::size_t point) const;
  geometry::Dims dims() const;

 private:
  // Collective: the displacement (spec.two_phase.displacement) at the curves' pressures, into the
  // report (ColourFlowRuns::displace)
  void displace(const parallel::Comm& comm, const RunRequest& request, const SampleResult& result);
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace rockperm::pipeline
