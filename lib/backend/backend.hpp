#pragma once
// The coarse interface between the time loop and a compute backend (CPU reference or CUDA).
// Populations are deviations f_i - w_i in SoA layout f[i * stride + cell], each slot in the
// backend's storage (lib/physics/storage.hpp).
#include <cstddef>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/backend/byte_model.hpp"
#include "lib/base/uninitialized.hpp"
#include "lib/physics/collision.hpp"
#include "lib/physics/density_extrapolation.hpp"
#include "lib/physics/flow_sums.hpp"

namespace rockperm::backend {


const char* to_string(Propagation p);
Propagation parse_propagation(const std::string& text);

// Density deviation and velocity (physics::moments) of a range of cells, one entry per cell
// in cell order: what outputs and the pressure reading need, 4 floats per cell instead of 19.
struct Macroscopic {
  std::vector<float> drho, ux, uy, uz;
  std::size_t size() const { return drho.size(); }
  void resize(std::size_t n) {
    drho.resize(n);
    ux.resize(n);
    uy.resize(n);
    uz.resize(n);
  }
};

// Sums over the planes across one axis of a backend's owned cells, fixed point
// (physics plane_fixed_scale, lib/physics/flow_sums.hpp): drho[p] and flux[p] for plane p, and
// weighted[p] the sum of drho u along the axis (plane_weighted_scale).
struct PlaneSums {
  std::vector<std::int64_t> drho, flux, weighted;
};

// A contiguous range of local cell indices [begin, end).
struct CellRange {
  std::uint32_t begin = 0, end = 0;
  std::uint32_t size() const { return end > begin ? end - begin : 0; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual std::string description() const = 0;
  virtual physics::Storage storage() const = 0;
  // Device bytes per fluid cell actually held (populations + neighbour tables).
  virtual double bytes_per_cell() const = 0;
  // Bytes per neighbour-table entry the kernels read: 4, or 3 where the tables are packed
  // (lib/lattice/neighbour_table.hpp); the byte model's index_bytes.
  virtual double index_bytes() const { return 4.0; }
  // The cells this backend updates: all of them, or a rank's owned slab (ghosts excluded).
  virtual CellRange owned() const = 0;
  // Every local cell, ghosts included: the swap must visit ghost cells too, because the
  // positive directions e7 and e9 point down, so a cell of the ghost plane above owns pairs
  // with the top owned plane (as a cell of the plane below owns those along e3, e6, e8).
  virtual CellRange all() const = 0;

  // Called before the kernels of step `step`: seeds the stochastic rounding of 16-bit storage.
  virtual void begin_step(std::int64_t step) = 0;
  virtual void collide(CellRange cells) = 0;    // stored reversed (also the fused even step)
  virtual void swap(CellRange cells) = 0;       // the exchanges owned by these cells
  virtual void fused_odd(CellRange cells) = 0;  // fused A-A odd step; needs the negative table
  virtual physics::FlowSums sums(CellRange cells) = 0;   // valid in natural order only
  // Computed where the populations live; valid in natural order only.
  virtual void macroscopic(CellRange cells, Macroscopic& out) = 0;
  virtual void synchronize() {}
  // The plane of every owned cell (owned-cell order) across `axis`, `planes` planes in all; set
  // once before plane_sums. Valid in natural order only, like sums().
  virtual void set_planes(int axis, Uninitialized<std::uint16_t> plane_of_owned, std::uint32_t planes) = 0;
  virtual void plane_sums(PlaneSums& out) = 0;
  // A new drive: the populations (deviations f_i - w_i, every slot) times `factor` and the
  // collision parameters replaced. In creeping flow the state is linear in the force, so this is
  // the state the run would have reached with the force times `factor` (to O(Ma^2)). Factor 1
  // only replaces the parameters (a restored run's adjusted drive).
  virtual void rescale(float factor, const physics::CollisionParams& params) = 0;

  // The pressure extrapolation (lib/solve/extrapolation.hpp) over the owned cells, in natural
  // order, with two floats per cell the backend allocates at the first hold, interleaved: the
  // density held at the last hold (held) and the change before it (change), [2k] and [2k + 1] for
  // owned cell k (the layout checkpoints store). hold_density: change = rho - held
  // (with keep_change), held = rho; false where the memory for them cannot be had.
  // density_change_peak: max |rho - held| and |change| over the cells; density_products: the
  // fixed-point products of change and rho - held at `scale` (physics::cell_products);
  // extrapolate_density: rho += factor (rho - held) in every cell, then change = rho - held and
  // held = the new rho. held_densities / restore_held_densities: the interleaved pairs (empty
  // before the first hold), for checkpoints. rescale() scales them with the populations.
  virtual bool hold_density(bool keep_change) = 0;
  virtual float density_change_peak() = 0;
  virtual physics::DensityProducts density_products(float scale) = 0;
  virtual void extrapolate_density(float factor) = 0;
  // The same, the density added as the rest state's at `acceleration` (w_i (1 - 3 e_i.g / 2)
  // each population: physics::shift_density_at_rest), for density fields set from outside the run
  // (the Darcy-scale start and corrections)
  virtual void extrapolate_density_at_rest(float factor, const std::array<float, 3>& acceleration) = 0;
  virtual void held_densities(std::vector<float>& out) = 0;
  virtual void restore_held_densities(const std::vector<float>& in) = 0;

  // Halo lists: offsets into f (slot * stride + cell), set once. Each list has a buffer of slots
  // as stored, that pack fills and unpack reads, handed to MPI: host memory (pinned on CUDA), or device memory
  // when `device_buffers` is asked for and the backend has device memory (CUDA-aware MPI).
  // Pack and unpack may run asynchronously; the buffers are ready once wait_halo() returns.
  virtual void set_halo_lists(const std::vector<std::vector<std::uint64_t>>& lists, bool device_buffers) = 0;
  virtual void* halo_buffer(int list) = 0;
  virtual void pack_halo(int list) = 0;
  virtual void unpack_halo(int list) = 0;
  virtual void wait_halo() {}
  // A slab step's boundary work (its boundary planes' collide or fused_odd, and the packs) goes
  // between begin_boundary() and end_boundary(); it may then run beside the interior, which
  // touches none of its slots: the CUDA backend puts it on a second stream of the highest
  // priority, started after everything enqueued before (lib/solve/stepper.hpp).
  virtual void begin_boundary() {}
  virtual void end_boundary() {}
  // Whether collide and fused_odd return only once their work is done (the CPU backend's
  // threads), rather than once it is enqueued (a GPU's stream): a slab step then starts its
  // exchange before the interior, so that the messages travel while the interior is computed.
  virtual bool blocks_on_interior() const { return false; }

  // Whole-lattice conveniences over owned().
  void collide() { collide(owned()); }
  void swap() { swap(all()); }
  void fused_odd() { fused_odd(owned()); }
  physics::FlowSums sums() { return sums(owned()); }


  // Every slot (stride * 19) as stored: what checkpoints hold, so that a restored run continues
  // bit for bit.
  virtual void download_raw(std::vector<std::byte>& f) = 0;
  virtual void upload_raw(const std::vector<std::byte>& f) = 0;
  // The slots themselves where they live in host memory (the CPU backend), else null: a
  // checkpoint reads and writes them there rather than through a copy of the whole state.
  virtual std::byte* host_slots() { return nullptr; }
  // The same in float (tests, comparisons): converted from the storage, and rounded to it.
  void download(std::vector<float>& f);
  void upload(const std::vector<float>& f);
};

// One time step. Returns true when the populations are in natural order afterwards (always
// for two-pass; after every odd step, i.e. an even number of steps, for fused).
bool advance(Backend& backend, Propagation propagation, std::int64_t step);

}  // namespace rockperm::backend
