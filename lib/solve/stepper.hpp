#pragma once
// One time step of a whole run: on one process the backend's own step; on a slab of a
// decomposed run the same step with the halo exchange folded in, boundary planes first and
// the interior while the messages travel (papers 002 and 004).
//
//   two-pass:   collide(boundary) pack | collide(interior) | exchange | unpack  swap(all cells,
//               ghosts included; ghost slots are scratch except the 5 crossing ones)
//   fused even: collide(boundary) pack | collide(interior) | exchange | unpack
//   fused odd:  odd(boundary) pack-back | odd(interior)    | exchange | unpack-back
// A GPU's interior only is enqueued there, and runs while the rank waits in the exchange. On a
// backend whose interior blocks the host (the CPU's threads: Backend::blocks_on_interior) the
// exchange is started before the interior and waited for after it, so that its messages travel
// while the threads compute (paper 004: the CPU rank of a mixed run hides its halo too):
//   CPU:        boundary pack | start exchange | interior | wait | unpack
// The fused odd step writes into the ghost slots it gathered from, so those values travel
// back to the ranks that own them. The boundary work (before the first "|") may run beside the
// interior's update (Backend::begin_boundary): in every step each slot is read and written by
// one cell's update only, so the two touch disjoint slots. The unpack writes only ghost slots
// and the boundary planes' own slots, which the next step's interior never touches: the CUDA
// backend runs it ahead of the next step's boundary work, not between two interiors.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "lib/backend/backend.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/parallel/halo_transport.hpp"
#include "lib/parallel/partition.hpp"

namespace rockperm::solve {

class Stepper {
 public:
  // A whole lattice on one process.
  Stepper(backend::Backend& backend, backend::Propagation propagation);
  // A rank's slab: sets the backend's halo lists. `device_buffers`: hand MPI device memory
  // (only with a CUDA-aware MPI library).
  Stepper(backend::Backend& backend, backend::Propagation propagation, const parallel::Comm& comm,
          const parallel::SlabDomain& domain, const lattice::SparseLattice& local, bool device_buffers = false);

  // Returns true when the populations are in natural order afterwards.
  bool advance(std::int64_t step);
  // Sums over every rank's owned cells, in rank order.
  physics::FlowSums sums();
  // The pressure extrapolation's passes over every rank's owned cells (Backend::hold_density and
  // the rest; natural order). hold_density is false on every rank where one rank lacks the memory;
  // the products are taken at the scale of the largest change on any rank (exact integer sums).
  bool hold_density(bool keep_change);
  physics::DensityProducts density_products();
  void extrapolate_density(float factor) { backend_.extrapolate_density(factor); }
  backend::Propagation propagation() const { return propagation_; }
  // Every buffer this rank receives into (both exchanges, both neighbours), with its peer and
  // tag: what a HaloExchanger sets up once.
  std::vector<parallel::Comm::Transfer> receive_endpoints() const;
  // Moves the halo buffers with `exchanger` instead of Comm::exchange (the backend's halo
  // buffers must be device buffers).
  void set_exchanger(std::unique_ptr<parallel::HaloExchanger> exchanger) { exchanger_ = std::move(exchanger); }
  // Bytes sent per step by this rank (both neighbours), for the halo report.
  std::uint64_t halo_bytes_per_step() const;
  // Seconds this rank spent inside the MPI exchange (the GPU computes the interior meanwhile;
  // the part not hidden is what a decomposed step takes beyond its share of the work).
  double mpi_seconds() const { return mpi_seconds_; }

 private:
  void transfers(int to_lower, int from_lower, int to_upper, int from_upper, int tag_up, int tag_down,
                 std::vector<parallel::Comm::Transfer>& sends, std::vector<parallel::Comm::Transfer>& receives) const;
  // Starts one exchange (after the packs are done); finish() waits for it and unpacks the lists
  // it received into.
  void start(int to_lower, int from_lower, int to_upper, int from_upper, int tag_up, int tag_down);
  void finish(int from_lower, int from_upper);
  // The interior's update between the packs and the unpacks, with the exchange around it.
  template <class Interior>
  void interior_and_exchange(bool backward, Interior&& interior);

  backend::Backend& backend_;
  backend::Propagation propagation_;
  const parallel::Comm* comm_ = nullptr;
  std::optional<parallel::SlabDomain> domain_;
  parallel::SlabRanges ranges_{};
  std::vector<std::size_t> counts_;  // bytes of each halo list's buffer
  std::unique_ptr<parallel::HaloExchanger> exchanger_;
  parallel::Comm::Pending pending_;
  double mpi_seconds_ = 0;
};

}  // namespace rockperm::solve
