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

namespace rockperm::backend {

class ColourCpu final : public ColourBackend {
 public:
  // `phi`: the phase indicator every cell of `lattice` starts from (fluid order, in [-1, 1]); the
  // mixture starts at rest (physics::colour::rest_state). The lattice must be built with its
  // negative table (SparseLattice::build with_negative) and outlive this object.
  ColourCpu(const lattice::SparseLattice& lattice, const physics::colour::ColourParams& params,
            std::span<const float> phi);

  std::string description() const override;
  void advance(std::int64_t steps) override;
  Fields fields() override;
  Sums sums(int plane_axis = -1) override;

 private:
  lattice::colour_step::Cells cells();
  void compute_phase();

  const lattice::SparseLattice& lattice_;
  lattice::NeighbourTables own_tables_;
  const std::uint32_t* positive_ = nullptr;
  const std::uint32_t* negative_ = nullptr;
  std::uint32_t cells_ = 0;
  std::uint64_t stride_ = 0;
  std::vector<float> f_, f_next_, a_, b_, phi_, na_, nb_;
};

}  // namespace rockperm::backend
