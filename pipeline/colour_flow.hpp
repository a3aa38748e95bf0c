#pragma once
// Two-phase flow at the relative permeability points (spec.two_phase.flow; issue 69): from a
// point's morphology state, both phases driven alike by the colour-gradient model
// (lib/physics/colour.hpp, lib/backend/colour_backend.hpp) until their fluxes are steady
// (lib/solve/colour_steady.hpp); k_r of each phase is its flux (times its viscosity) over the
// single-phase flux of the same lattice, drive and code (run once, on the first point), so that
// k_r is 1 at S_w = 1 by construction and the lattice's own error cancels.
//
// The domain: periodic along the flow (the body force is the pressure gradient). A sample that is
// not periodic is followed by its mirror image (flow.inlet_outlet buffer and mirror alike: open
// buffer layers would be a reservoir of neither phase, a mirror keeps each phase's paths joined
// across the wrap); lateral faces as the run's. Every rank of the run runs it on its GPU where the
// plan gives one: one rank the whole domain, several their fluid-balanced Z-slabs of it
// (lib/solve/colour_slabs.hpp: the same flow to the bit). The momentum populations are stored as
// the run stores its own (run.storage).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/geometry/volume.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/physics/storage.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/result.hpp"
#include "pipeline/run.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::pipeline {

// Why a flow of `cells` fluid cells in `storage` cannot run on a GPU of `device_bytes` (empty:
// it fits, with a tenth of the device left for the runtime), in words a user can act on.
std::string colour_flow_memory_refusal(std::uint64_t cells, physics::Storage storage, double device_bytes);

class ColourFlowRuns {
 public:
  // `k_voxels`: the run's single-phase k in voxel^2 (sets the drive from the capillary number);
  // `pore_voxels`: its pores' width (4 phi / S), against which the interface's is judged.
  // `wall_codes` (empty: one wetting for all walls): per voxel of the sample, 0 or 1 + the index in
  // spec.two_phase.wetting_labels of the solid voxel's label; a cell's walls then show the mean of
  // their cos(theta) (one value per cell: where a cell touches two labels, the mean of its walls').
  // Every rank of `comm` makes one (`wall_codes`: rank 0's) and calls run() alike.
  // `domain`: mirrored for run() (the sample followed by its mirror image, periodic along the
  // flow), reservoirs for displace() (a reservoir of `reservoir_planes` open planes before and after
  // the sample, periodic along the flow through them).
  enum class Domain { mirrored, reservoirs };
  static constexpr int reservoir_planes = 8;
  ColourFlowRuns(const parallel::Comm& comm, const RunSpec& spec, const ExecutionPlan& plan, const geometry::Dims& dims,
                 double k_voxels, double pore_voxels, std::vector<std::uint8_t> wall_codes = {},
                 Domain domain = Domain::mirrored);
  // Pores narrower than this many voxels are filled by the interfaces (about 4 voxels wide): the
  // phases flow as a mixture there, and every point says so.
  static constexpr double min_pore_voxels = 10;
  ~ColourFlowRuns();
  ColourFlowRuns(const ColourFlowRuns&) = delete;
  ColourFlowRuns& operator=(const ColourFlowRuns&) = delete;

  // The flow of a point from its phases (rank 0's; the sample's voxels, x fastest: solid 0,
  // wetting 1, non-wetting 2; TwoPhase::phases). Never throws for what the flow does (a flux that
  // is not finite, the step limit): said in the point. `label` names the point in progress lines.
  // `end` (may be null; rank 0): the phases at the end in the same form (a voxel's phase is the one
  // of phi's sign), for the point's field. Collective; rank 0's point is the run's (the others'
  // lack what is made from the gathered end state: the phases' spanning and flags).
  ColourFlowPoint run(const std::vector<std::uint8_t>& phases, const std::string& label,
                      const std::function<bool()>& stop, RunObserver* observer, std::vector<std::uint8_t>* end = nullptr);

  // The displacement (Domain::reservoirs; pipeline/colour_displacement.cpp): the sample between a
  // reservoir of the non-wetting phase before it along the flow and one of the wetting phase after
  // it, each feeding its phase beyond the planes next to the sample, the two meeting across the periodic wrap (a flat
  // interface, no capillary jump; the reservoirs' walls neutral); a body force on both phases whose
  // pull over the domain's length is each capillary pressure of `pressures_pa` in turn (at rest the
  // menisci hold it: the pressure jumps around the periodic loop add to that pull), each held until
  // the sample's saturation settles (lib/solve/colour_displacement.hpp). The first call starts from
  // the sample all wetting; a later one goes on from where the last ended (imbibition after
  // drainage). `pa_per_lattice`: Pa per lattice unit of pressure (the interfacial tension's scale
  // over the voxel). Collective; rank 0's points are the run's. Never throws for what the flow does.
  // `start`: rank 0's sample voxels as run() takes them (only which are solid is read);
  // `quasi_static`: rank 0's curve's saturation at each pressure (reported beside the point's).
  std::vector<DisplacementPoint> displace(const std::vector<std::uint8_t>& start, const std::string& curve,
                                          const std::vector<double>& pressures_pa, const std::vector<double>& quasi_static,
                                          double pa_per_lattice, const std::function<bool()>& stop,
                                          RunObserver* observer);
  // The model's interfacial tension in lattice units.
  static double lattice_sigma();
  // Contact angles asked (the run's wetting and each wetting label's, through the wetting phase)
  // that the model's walls cannot hold: its phase field at the walls gives a tube's menisci 21
  // degrees at least (docs/ACCURACY.md: radii 8 and 12 voxels; 36 at 4) however strongly they wet,
  // so an angle below `min_held_angle_deg` (or above 180 less it) runs at about that one. One flag
  // per such angle, in words; empty: every angle is held.
  static constexpr double min_held_angle_deg = 25;
  static std::vector<std::string> wetting_flags(const TwoPhaseSpec& spec);
  std::string backend() const;  // the displacement's model, as reported
  std::string note() const;     // why the displacement was not made, or stopped (empty: it was)

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace rockperm::pipeline
