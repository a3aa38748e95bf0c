#pragma once
// The percolation filter (lib/geometry/percolation.hpp) of a volume split in Z slabs, each rank
// holding only its own planes: each slab labels its clusters, the clusters that reach a cut are
// joined across it (each rank learns the clusters of the plane above its slab from the rank that
// owns it), and only the table of those clusters travels, to rank 0, which joins them and sends
// back which to keep. The mask it leaves is the whole-volume filter's, plane for plane.
#include <cstdint>

#include "lib/geometry/percolation.hpp"
#include "lib/parallel/comm.hpp"

namespace rockperm::parallel {

// This rank's part: global planes [z_first, z_first + owned) of `nz`; the mask holds them and,
// where the rank has an upper neighbour (every rank but the last, and the last too where the
// lateral z faces wrap: periodic[2] and a flow along x or y), one more: the plane above them.
struct SlabPlanes {
  std::int64_t z_first = 0, owned = 0, nz = 0;
};
// This rank's neighbours in the slabs of a filter (-1: none): the ranks beside it, and across
// the z wrap between the last and the first where the lateral z faces wrap. One rank has none
// (the whole volume wraps by itself). `upper` >= 0: the mask holds the plane above.
struct SlabNeighbours {
  int lower = -1, upper = -1;
};
SlabNeighbours slab_neighbours(const Comm& comm, int flow_axis, const geometry::Periodicity& periodic);

// Filters the owned planes of `slab` in place (the plane above is left as read); collective.
// The report is the whole volume's on every rank. Throws PhysicsError (no_path, on every rank)
// when no cluster joins inlet and outlet; `whole`: the volume's dimensions, for that message.
geometry::PercolationReport keep_percolating_pores(const Comm& comm, geometry::PoreMask& slab, const SlabPlanes& planes,
                                                   const geometry::Dims& whole, int flow_axis,
                                                   const geometry::Periodicity& periodic,
                                                   geometry::EdgeContacts edges = geometry::EdgeContacts::open);

}  // namespace rockperm::parallel
