#pragma once
// The colour-gradient model on Z-slab ranks (issue 69). Each rank's backend steps the owned cells
// of its slab's lattice (lib/parallel/partition.hpp: build_slab_lattice, one ghost plane on each
// side where a neighbour is), and this wrapper fills the ghost planes between the passes:
//  - after the phase pass, each boundary plane's phi (the colour gradient's stencil reaches one
//    plane across the cut);
//  - after the collide pass, the populations moving across the cut, which the neighbour's next
//    pulls read: 5 of the momentum's 19 (as stored) and 1 of each colour's 7.
// A plane's cells are contiguous in raster order and the same on both sides of a cut, so a halo is
// a few contiguous rows per piece, no list. The sums are the backends' fixed-point integers added
// over the ranks (planes along z by their global index), and the stochastic rounding of fp16 is
// keyed by the global cell (lattice::colour_step::Cells::cell_offset: parallel::fluid_before less the
// ghost plane's cells, given to the rank's backend): a run on any number of ranks
// is one rank's to the bit. The exchanges wait (no overlap with the interior): two per step.
#include <cstdint>
#include <memory>
#include <vector>

#include "lib/backend/colour_backend.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/parallel/partition.hpp"

namespace rockperm::solve {

class ColourSlabs final : public backend::ColourBackend {
 public:
  // `rank`: this rank's backend over `local` (the domain's slab lattice); `nz`: the whole domain's
  // planes along z. Every rank of `comm` makes one, and every call below is collective.
  ColourSlabs(std::unique_ptr<backend::ColourBackend> rank, const parallel::Comm& comm,
              const parallel::SlabDomain& domain, const lattice::SparseLattice& local, std::int64_t nz);

  std::string description() const override;
  void set_wall_phi(std::span<const float> per_cell) override { rank_->set_wall_phi(per_cell); }
  void set_sources(std::span<const std::uint32_t> to_a, std::span<const std::uint32_t> to_b) override {
    rank_->set_sources(to_a, to_b);
  }
  void set_force(const float (&g)[2][3]) override {
    ColourBackend::set_force(g);
    rank_->set_force(g);
  }
  void phase_pass() override;    // and the phase's halo
  void collide_pass() override;  // and the populations' halo
  // this rank's lattice's cells (the ghosts' values are the neighbours' copies, or stale)
  Fields fields_now() override { return rank_->fields_now(); }
  // over every rank: planes along z by their global index
  FixedSums fixed_sums_now(int plane_axis) override;
  void pack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, std::uint8_t* out) override {
    rank_->pack_halo(what, dir, first, end, out);
  }
  void unpack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, const std::uint8_t* in) override {
    rank_->unpack_halo(what, dir, first, end, in);
  }

 private:
  void exchange(Halo what);

  std::unique_ptr<backend::ColourBackend> rank_;
  parallel::Comm comm_;
  parallel::SlabDomain domain_;
  const lattice::SparseLattice& local_;
  std::int64_t nz_ = 0;
  // the owned bottom and top planes' cells and the ghost planes' (local raster ranges)
  std::uint64_t bottom_[2] = {0, 0}, top_[2] = {0, 0}, ghost_low_[2] = {0, 0}, ghost_high_[2] = {0, 0};
  std::vector<std::uint8_t> send_down_, send_up_, from_low_, from_high_;
};

}  // namespace rockperm::solve
