#pragma once
// The pressure gradient that drives a sample between inlet and outlet buffers.
//
// With buffers the body force g acts everywhere, but the buffers resist far less than the
// sample, so a pressure gradient builds up across the sample against the force; the sample is
// driven by g - (dp/dx) / rho with dp/dx its mean pressure gradient (p = rho / 3). That gradient
// is read from the mean density of the fluid cells of planes across the flow axis (densities
// computed where the populations live, Backend::macroscopic).
//
// Mirror mode (the sample followed by its mirror image, one period) has no mean gradient over
// the period, but the same faces: there the sample meets its own mirror image, and the layers
// beside that junction conduct differently from the bulk; read inside, the gradient of the
// interior corrects it the same way.
//
// Where it is read matters: within about a pore of each face the flow is not the rock's (it
// converges from the open buffer into the pores of a face and spreads out behind the other;
// cut pores are joined through the buffer or to their own mirror image). The end planes (the
// buffer planes touching the sample) include those layers, which moved k by -3 % on a duct in
// a wider channel and by +15 % on a cut sphere pack (docs/ACCURACY.md). The interior reading leaves out a margin
// of L/8 at each end and takes the difference of the mean pressures of two slabs of L/16 planes
// there, over the distance between the slabs' centres: the mean gradient of the interior,
// which weights every interior plane's gradient alike (a least-squares line would weight the
// middle most and be biased on samples whose halves differ). Samples shorter than 8 planes
// have no interior to speak of and use the end planes.
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
  std::vector<double> cells;     // counts, as doubles
  double area = 1;               // voxels of one plane, fluid and solid
  double mean_rho(std::int64_t first, std::int64_t end) const;  // mean of the plane means of [first, end)
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
// `out`, `out - in` apart. The pressure drop and the conduction's potential drop
// (lib/solve/conduction.hpp) read the same places.
struct InteriorSlabs {
  std::int64_t margin = 0, window = 1, in = 0, out = 0;
};
InteriorSlabs interior_slabs(std::int64_t begin, std::int64_t end);

// The drop across the sample [begin, end) from the planes just outside it (entrance and exit
// losses included).
PressureDrop end_plane_drop(const PressureProfile& profile, std::int64_t begin, std::int64_t end);
// The drop across the interior of the sample (see above); below 8 planes end_plane_drop, or no
// drop at all when the sample starts at plane 0 (mirror mode: there is no plane before it).
PressureDrop interior_drop(const PressureProfile& profile, std::int64_t begin, std::int64_t end);

// The body acceleration that drives the sample itself: g minus the pressure gradient,
// (p_out - p_in) / (rho L) with p = rho / 3.
double effective_acceleration(double g, const PressureDrop& drop);

// What buffer and mirror modes divide by: the interior reading, and for comparison the reading
// across the whole sample (buffer: the end planes; mirror, where the sample starts at plane 0:
// g itself, since the mean gradient over the mirrored period is zero).
struct SampleDrive {
  PressureDrop drop;         // the interior reading
  double acceleration = 0;   // effective_acceleration(g, drop): k = nu q / acceleration
  double end_planes = 0;     // the same across the whole sample
  // The Darcy velocity of the same interior planes (between the centres of the two slabs),
  // 0 where there is no interior reading. At steady state every plane carries the same flux;
  // before it, the flux and the gradient of the same planes are what Darcy's law relates, so
  // k read from them settles as soon as the flow in the pores has (while the pressure across
  // the whole sample may still be building up).
  double interior_velocity = 0;
};
SampleDrive sample_drive(const PressureProfile& profile, double g, std::int64_t begin, std::int64_t end);

// The same reading for a part of the sample, the planes [first, end): slabs of `window` planes
// at its two ends (no margin), the Darcy velocity between their centres. For the trust report's
// k of the two halves of a sample.
SampleDrive part_drive(const PressureProfile& profile, double g, std::int64_t first, std::int64_t end,
                       std::int64_t window);

}  // namespace rockperm::solve
