#pragma once
// The colour-gradient two-phase model's CPU loops (issue 69): OpenMP over the fluid cells of one
// lattice, each pass calling lib/lattice/colour_propagation.hpp per cell. The reference the CUDA
// kernels reproduce, as CpuBackend is for the single phase.
#include <cstdint>
#include <span>
#include <vector>

#include "lib/backend/colour_backend.hpp"
#include "lib/lattice/colour_propagation.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/physics/storage.hpp"

namespace rockperm::backend {

class ColourCpu final : public ColourBackend {
 public:
  // `phi`: the phase indicator every cell of `lattice` starts from (fluid order, in [-1, 1]); the
  // mixture starts at rest (physics::colour::rest_state). The lattice must be built with its
  // negative table (SparseLattice::build with_negative) and outlive this object.
  // `storage`: how the momentum's populations are stored (the colours are float). Only the
  // lattice's owned cells are started and stepped (a rank's slab: the rest are ghosts);
  // `cell_offset`: the global index of local cell 0 (lattice::colour_step::Cells).
  ColourCpu(const lattice::SparseLattice& lattice, const physics::colour::ColourParams& params,
            std::span<const float> phi, physics::Storage storage = physics::Storage::float32,
            std::uint32_t cell_offset = 0);

  std::string description() const override;
  void set_wall_phi(std::span<const float> per_cell) override;
  void set_sources(std::span<const std::uint32_t> to_a, std::span<const std::uint32_t> to_b) override;
  void phase_pass() override;
  void collide_pass() override;
  Fields fields_now() override;
  FixedSums fixed_sums_now(int plane_axis) override;
  void pack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, std::uint8_t* out) override;
  void unpack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, const std::uint8_t* in) override;

 private:
  template <class S>
  lattice::colour_step::Cells<S> cells();

  const lattice::SparseLattice& lattice_;
  lattice::NeighbourTables own_tables_;
  const std::uint32_t* positive_ = nullptr;
  const std::uint32_t* negative_ = nullptr;
  std::uint32_t cells_ = 0;
  std::int64_t begin_ = 0, end_ = 0;  // the owned cells
  std::uint64_t stride_ = 0;
  std::uint32_t cell_offset_ = 0;
  std::vector<std::uint16_t> f_, f_next_;  // the momentum's populations as storage_ holds them
  std::vector<float> a_, b_, phi_, na_, nb_;
  std::vector<float> wall_phi_;  // empty: params_.wall_phi
  std::vector<std::uint32_t> sources_[2];  // fed to phase A, to phase B
};

}  // namespace rockperm::backend
