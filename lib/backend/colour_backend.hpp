#pragma once
// The colour-gradient two-phase model's backends (issue 69): the CPU loops (colour_cpu.hpp) and
// the CUDA kernels (cuda/colour_gpu.hpp), both stepping lib/lattice/colour_propagation.hpp's
// per-cell passes over one lattice. What a caller asks of either.
//
// Memory per fluid cell, float: the momentum's 19 populations twice (the collision pulls from one
// copy and writes the other: 152 B), the colours' 7 + 7 once (56 B), the phase indicator and the
// colours' densities (12 B) and the lattice's two neighbour tables (72 B): 292 B, against the
// single phase's 112 B (fused A-A, float).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/lattice/colour_propagation.hpp"
#include "lib/physics/colour.hpp"
#include "lib/physics/storage.hpp"

namespace rockperm::backend {

class ColourBackend {
 public:
  // Device (or host) bytes per fluid cell of a model in `storage`: the populations and the tables
  // above, each cell's plane (2 B, for the flow through the planes) and the moments fields() reads
  // back (24 B): 318 B in fp32, 242 B in fp16.
  static double bytes_per_cell(physics::Storage storage) {
    return 2.0 * 19.0 * static_cast<double>(physics::storage_bytes(storage)) + 56 + 12 + 72 + 2 + 24;
  }

  virtual ~ColourBackend() = default;
  virtual std::string description() const = 0;

  // Steps: each a phase pass, then a collide pass (lib/lattice/colour_propagation.hpp).
  virtual void advance(std::int64_t steps);
  // Wetting by cell: the phase indicator each cell's walls show (fluid order, in [-1, 1]: cos of
  // the contact angle through phase A); empty: every wall shows params().wall_phi.
  virtual void set_wall_phi(std::span<const float> per_cell) = 0;
  // Reservoir faces (the displacement, pipeline/colour_displacement.cpp): after every collide pass
  // the colours these cells send (owned cells, fluid order) are all phase A's (`to_a`) or all phase
  // B's (lib/lattice/colour_propagation.hpp, feed); empty lists: none.
  virtual void set_sources(std::span<const std::uint32_t> to_a, std::span<const std::uint32_t> to_b) = 0;
  // Each phase's body force per unit mass (ColourParams::g), from the next step on.
  virtual void set_force(const float (&g)[2][3]) {
    for (int phase = 0; phase < 2; ++phase)
      for (int a = 0; a < 3; ++a) params_.g[phase][a] = g[phase][a];
  }
  std::int64_t step() const { return step_; }
  const physics::colour::ColourParams& params() const { return params_; }
  physics::Storage storage() const { return storage_; }

  // The cells' fields (fluid order): phase indicator, the colours' densities, the mixture's density
  // deviation (pressure (1 + drho) / 3) and velocity (x, y, z of each cell in turn).
  struct Fields {
    std::vector<float> phi, na, nb, drho, u;
  };
  virtual Fields fields();

  // Sums over the cells (lib/lattice/colour_propagation.hpp, cell_sums: in fixed point, the same
  // whatever the order): of the fraction of phase A and of each colour's density; with
  // `plane_axis` (0-2) also each phase's flow, the colour it passes from every plane across the axis
  // to the next (the face between plane p and p + 1, the last wrapping to the first; cell_sums'
  // faces).
  struct Sums {
    double cells = 0, fraction_a = 0, mass_a = 0, mass_b = 0;
    std::vector<double> plane_a, plane_b;
    bool finite = true;  // every cell's values finite (those that are not are left out of the sums)
    double fastest = 0;  // the largest speed |u| of the mixture over the (finite) cells, lattice units
  };
  virtual Sums sums(int plane_axis = -1);

  // The passes one by one, over the cells the backend owns: those of its lattice's owned range
  // (SparseLattice::owned_begin, owned_end; a whole lattice owns every cell). On a rank's slab the
  // other cells are ghost copies of the neighbouring ranks' boundary planes, which the caller
  // (lib/solve/colour_slabs.hpp) fills between the passes: a step is phase_pass(), the phase's
  // halo, collide_pass(), the populations' halo.
  virtual void phase_pass() = 0;
  virtual void collide_pass() = 0;  // advances step()
  // With the phase pass done (and its halo): fields() and the fixed-point sums of the owned cells
  // (cell_sums' totals, and per plane of the lattice across `plane_axis` its four face values).
  virtual Fields fields_now() = 0;
  struct FixedSums {
    std::uint64_t cells = 0;
    std::vector<long long> totals, planes;
    std::uint64_t fastest = 0;  // the largest of the cells' speeds (cell_sums' speed)
  };
  virtual FixedSums fixed_sums_now(int plane_axis) = 0;
  static Sums from_fixed(const FixedSums& fixed);

  // The halo: what a plane's cells [first, end) (contiguous in raster order) hand a neighbour's
  // ghost copy of the plane. `phase`: each cell's phi (4 B); `populations`: the slots moving along
  // `dir` (+1: +z, -1: -z), 5 momentum populations as stored and 1 of each colour (4 B).
  enum class Halo { phase, populations };
  std::size_t halo_bytes(Halo what, std::uint64_t cells) const;
  virtual void pack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, std::uint8_t* out) = 0;
  virtual void unpack_halo(Halo what, int dir, std::uint64_t first, std::uint64_t end, const std::uint8_t* in) = 0;

 protected:
  explicit ColourBackend(const physics::colour::ColourParams& params, physics::Storage storage)
      : params_(params), storage_(storage) {}
  // The halo's pieces in order, each as (the row of its slot or field, bytes per cell), from the
  // backend's arrays (host or device memory): phi; or the momentum's 5 slots moving along `dir`,
  // then the colours' a and b.
  template <class F>
  void halo_pieces(Halo what, int dir, void* f, float* a, float* b, float* phi, std::uint64_t stride, F&& each) const {
    if (what == Halo::phase) {
      each(reinterpret_cast<std::uint8_t*>(phi), sizeof(float));
      return;
    }
    const std::size_t bytes = physics::storage_bytes(storage_);
    for (int n = 0; n < lattice::colour_step::halo_f_slots; ++n) {
      each(static_cast<std::uint8_t*>(f) + lattice::colour_step::halo_f_slot(dir, n) * stride * bytes, bytes);
    }
    const int k = lattice::colour_step::halo_colour_slot(dir);
    each(reinterpret_cast<std::uint8_t*>(a + k * stride), sizeof(float));
    each(reinterpret_cast<std::uint8_t*>(b + k * stride), sizeof(float));
  }
  physics::colour::ColourParams params_;
  physics::Storage storage_;
  std::int64_t step_ = 0;
};

}  // namespace rockperm::backend
