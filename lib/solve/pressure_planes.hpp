#pragma once
// The pressure gradient that drives a sample between inlet and outlet buffers, and where k and
// F are read.
//
// With buffers the body force g acts everywhere, but the buffers resist far less than the
// sample, so a pressure gradient builds up across the sample against the force; the sample is
// driven by g - (dp/dx) / rho with dp/dx its mean pressure gradient (p = rho / 3). That gradient
// is read from the mean density of the fluid cells of planes across the flow axis (densities
// computed where the populations live, Backend::macroscopic).
//
// k is the whole sample's, as a lab measures a plug between its end faces and as PoreSpy,
// OpenPNM, GeoDict and the published digital-rock values define it (docs/ACCURACY.md, "The whole
// sample"):
// - buffers: the potential p / rho - g x lost from the buffer plane just before the inlet face
//   to the one just after the outlet face, over the sample's length L (those two planes are
//   L + 1 apart; the two half planes of open buffer between them and the faces carry no drag,
//   as the buffers' own cells add no resistance in Brinkman's sense), each plane's pressure
//   weighted by the flux through its cells: the power the faces deliver to the sample per unit of
//   flux, so that the flow's convergence into the pores of a face and its spreading behind the
//   other are charged to the sample, as between a core holder's platens. (The plane-mean pressure
//   there charged the buffer's own spreading too: k 0.7-2.5 % lower on the validation cases,
//   docs/ACCURACY.md, "The whole sample".)
// - mirror (the sample followed by its mirror image, one period): the whole period with g alone.
//   The mirror image makes the pressure odd about the junctions, so each junction is an
//   equipotential face with no flow across it sideways: the period is the sample between two
//   equipotential faces, twice.
//
// The interior reading is kept as a representative-volume check: the difference of the mean
// pressures of two slabs of L/16 planes, L/8 in from each end, over the distance between the
// slabs' centres, with the Darcy velocity of the planes between them (the k of the middle ~70 %
// of the sample). On a homogeneous sample it equals the whole; where they differ the sample is
// not homogeneous along the flow at its own scale, and the report says so.
#include <cstdint>
#include <vector>

#include "lib/backend/backend.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/comm.hpp"

namespace rockperm::solve {

// The planes across the flow axis (indexed by the global coordinate along it), summed over
// every rank's owned cells: density deviation, velocity along the axis and fluid cells of each.
struct PressureProfile {
  std::vector<std::int64_t> drho_fixed;  // the exact fixed-point sums (PlaneSums)
  std::vector<double> drho_sum;
  std::vector<double> flux_sum;  // sum of u along the axis
  std::vector<double> weighted_sum;  // sum of drho u along the axis
  std::vector<double> cells;     // counts, as doubles
  double area = 1;               // voxels of one plane, fluid and solid
  double mean_rho(std::int64_t first, std::int64_t end) const;  // mean of the plane means of [first, end)
  // The flux-weighted mean density of plane p: the power its pressure delivers through it per
  // unit of flux (the plane mean where nothing flows through it).
  double flux_weighted_rho(std::int64_t p) const;
  // The Darcy velocity (flux / area) averaged over the planes [first, end).
  double darcy_velocity(std::int64_t first, std::int64_t end) const;
};

// The mass balance of the steady-state criterion: at steady state the same volume flows through
// every plane. The flux through the gap between two planes is that of the lattice links across
// it, which a sum of node velocities does not give exactly (a population bounced back at a wall
// counts in a node's momentum without crossing anything: on a sphere pack the node fluxes of
// the planes of a steady flow differ by ~1e-4). The mass of each plane does: over `steps` steps
// it changes by what flows in through one gap minus what flows out through the other, so the
// running sum of the changes from plane 0 is the link flux of every gap less that of the first.
// Returns (largest - smallest link flux) / mean flux, from the profiles `steps` steps apart.
double flux_spread(const PressureProfile& before, const PressureProfile& now, std::int64_t steps);

// From the fixed-point sums of the backends (already summed over ranks) and the fluid cells
// of every plane.
PressureProfile pressure_profile(const backend::PlaneSums& sums, const std::vector<double>& cells, double area);

// Reads the profile from a backend at every check; the plane of every owned cell is given to
// the backend once. `first_local_z` is the global z of local plane 0 (slab lattices start at
// a ghost plane), `planes` the extent of the whole lattice along the axis, `area` its voxels
// per plane. Collective over `comm` (the backends' sums are added over its ranks).
class PlaneReader {
 public:
  PlaneReader(backend::Backend& backend, const lattice::SparseLattice& lattice, const parallel::Comm& comm, int axis,
              std::int64_t planes, std::int64_t first_local_z, double area);
  PressureProfile read() const;

 private:
  backend::Backend& backend_;
  parallel::Comm comm_;
  std::vector<double> cells_;  // fluid cells of every plane, all ranks
  double area_;
};

struct PressureDrop {
  double rho_in = 1, rho_out = 1;  // mean densities where the drop is read
  double length = 1;               // distance between those places, in voxels
  std::int64_t margin = 0;         // planes left out at each end of the sample (0: end planes)
  std::int64_t window = 1;         // planes averaged at each place
};

// Where the interior reading reads, for a sample of the planes [begin, end) at least 8 long: a
// margin of L/8 (at least 1) at each end, slabs of L/16 planes (at least 1) starting at `in` and
// `out`, `out - in` apart. The pressure drop and the conduction's interior check
// (lib/solve/conduction.hpp) read the same places.
struct InteriorSlabs {
  std::int64_t margin = 0, window = 1, in = 0, out = 0;
};
InteriorSlabs interior_slabs(std::int64_t begin, std::int64_t end);

// The drop across the interior of the sample (see above); below 8 planes there is none (margin 0).
PressureDrop interior_drop(const PressureProfile& profile, std::int64_t begin, std::int64_t end);

// The body acceleration that drives the planes of a drop: g minus the pressure gradient,
// (p_out - p_in) / (rho L) with p = rho / 3.
double effective_acceleration(double g, const PressureDrop& drop);

// The acceleration across the whole sample [begin, end) between buffers: the potential lost
// between the planes just outside its faces (begin - 1 and end, L + 1 apart; their flux-weighted
// densities) over the sample's L planes.
double whole_sample_acceleration(double g, const PressureProfile& profile, std::int64_t begin, std::int64_t end);

// What buffer and mirror modes divide by: the whole sample's drive and Darcy velocity, and the
// interior reading beside them as a check.
struct SampleDrive {
  double acceleration = 0;  // across the whole sample: k = nu q / acceleration
  // the Darcy velocity q of the sample's planes (buffers); in mirror mode (`period`) q is every
  // cell's over the whole period, as a periodic run reads it
  double velocity = 0;
  std::int64_t period = 0;  // 1: the whole period is read (mirror), 0: the sample's planes
  // the interior reading (interior.margin 0: none, a sample shorter than 8 planes): the
  // acceleration of its planes and the Darcy velocity of the planes between the centres of its
  // two slabs (at steady state every plane carries the same flux; before it, the flux and the
  // gradient of the same planes are what Darcy's law relates)
  PressureDrop interior;
  double interior_acceleration = 0;
  double interior_velocity = 0;
  bool has_interior() const { return interior.margin > 0; }
};
SampleDrive sample_drive(const PressureProfile& profile, double g, std::int64_t begin, std::int64_t end);

// The same reading for a part of the sample, the planes [first, end): slabs of `window` planes
// at its two ends (no margin), the Darcy velocity between their centres, as the interior reading
// of that part. For the trust report's k of the two halves of a sample.
struct PartDrive {
  double acceleration = 0, velocity = 0;
};
PartDrive part_drive(const PressureProfile& profile, double g, std::int64_t first, std::int64_t end,
                     std::int64_t window);

}  // namespace rockperm::solve
