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

namespace rockperm {

// Sums of rho and counts of fluid cells for every plane across the flow axis (indexed by the
// global coordinate along it), over this rank's owned cells.
struct PressureProfile {
  std::vector<double> rho_sum;
  std::vector<double> cells;  // counts, as doubles so that ranks reduce them with the sums
  double mean_rho(std::int64_t first, std::int64_t end) const;  // mean of the plane means of [first, end)
};

// `owned`: the macroscopic values of the lattice's owned cells, in cell order;
// `first_local_z`: the global z of local plane 0 (slab lattices start at a ghost plane);
// `planes`: the extent of the whole lattice along the flow axis.
PressureProfile pressure_profile(const SparseLattice& lattice, const Macroscopic& owned, int flow_axis,
                                 std::int64_t planes, std::int64_t first_local_z);

struct PressureDrop {
  double rho_in = 1, rho_out = 1;  // mean densities where the drop is read
  double length = 1;               // distance between those places, in voxels
  std::int64_t margin = 0;         // planes left out at each end of the sample (0: end planes)
  std::int64_t window = 1;         // planes averaged at each place
};

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
};
SampleDrive sample_drive(const PressureProfile& profile, double g, std::int64_t begin, std::int64_t end);

}  // namespace rockperm
