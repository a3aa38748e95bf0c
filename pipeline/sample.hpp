#pragma once
// Stage 1 of a run: the sample. Rank 0 reads the volume (or takes a mask given in memory),
// removes isolated pores, adds buffers or the mirror image, and keeps the mask; every rank
// learns the numbers it needs to partition and report (the fluid count of each plane).
#include <array>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/geometry/inlet_outlet.hpp"
#include "lib/geometry/percolation.hpp"
#include "lib/geometry/pore_statistics.hpp"
#include "lib/geometry/pore_mask.hpp"
#include "io/volume_source.hpp"
#include "lib/parallel/comm.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::pipeline {

// Which input a result came from (for reports and, later, provenance).
struct InputIdentity {
  std::string name;              // file or directory name, or the name given to an in-memory mask
  std::filesystem::path path;    // empty for an in-memory mask
  std::string format;            // what the file turned out to be ("raw", "nrrd", ..., "memory")
  std::uint64_t bytes = 0;       // size of the file (0: a directory or memory)
  std::string sha256;            // of the volume's bytes (io::hash_volume); of the mask in memory
};

// The pore width class (lib/geometry/distance_transform.hpp) of every fluid cell of the
// simulated volume in raster order (the lattice's cell order), no_width_class outside the sample
// (buffers, mirror image): for the trust report, at the end of a run. Computed from a copy of
// the mask on a thread of its own once start() is called, so that on a GPU run it overlaps the
// solve instead of delaying the first step; get() starts it if needed and waits. Copies share
// the one computation. Empty (get() gives no classes) where prepare() was not called.
class PoreWidths {
 public:
  void prepare(geometry::PoreMask mask, std::vector<std::uint64_t> plane_fluid, std::int64_t sample_begin,
               std::int64_t sample_end, int flow_axis);
  // The classes of this rank's owned planes [z_begin, z_end) only, from `mask`: its planes from
  // global z_first on, geometry::width_class_reach planes beyond the owned ones on each side
  // where the volume has them, on `threads` threads. Every rank holds its own (local()).
  void prepare_slab(geometry::PoreMask mask, std::vector<std::uint64_t> plane_fluid, std::int64_t sample_begin,
                    std::int64_t sample_end, int flow_axis, std::int64_t z_first, std::int64_t z_begin,
                    std::int64_t z_end, int threads);
  bool local() const;
  void start() const;
  const std::vector<std::uint8_t>& get() const;
  double seconds() const;  // of the computation, once get() returned; 0 before
  bool prepared() const { return state_ != nullptr; }

 private:
  struct State;
  std::shared_ptr<State> state_;
};

struct Sample {
  InputIdentity input;
  geometry::Dims dims;                            // simulated: after the crop, with buffers or mirror image
  geometry::Dims sample_dims;                     // the sample itself (after the crop)
  std::int64_t sample_begin = 0, sample_end = 0;  // the sample's planes along the flow axis
  double voxel_size_um = 0;
  std::vector<std::uint64_t> plane_fluid;         // fluid cells of every z plane of `dims`
  std::uint64_t fluid = 0;                        // all fluid cells of the simulated volume
  geometry::PercolationReport percolation;        // pore before and after the filter (sample only)
  // voxels of each grey phase (PoreMask; phase c at c - 1) in the sample before and after the filter
  std::array<std::uint64_t, physics::max_grey_phases> grey_voxels_before{}, grey_voxels{};
  int grey_phases() const;                        // the highest phase present (0: none)
  std::vector<double> grey_permeability;          // of each grey phase declared (voxel^2), every rank
  std::uint64_t grey_voxel_total() const;
  geometry::PoreStatistics pores;                 // of the connected pore space of the sample
  PoreWidths widths;  // rank 0, runs (not a benchmark's sample: SampleUse); each rank's with `slabs`
  // rank 0's stage times: the read; the percolation filter; the pore statistics, buffers and
  // plane counts; the input's SHA-256 (beside them, on a thread). The width classes: PoreWidths.
  double read_seconds = 0, percolation_seconds = 0, pore_seconds = 0, hash_seconds = 0;
  // With spec.hash_later, the input's SHA-256 still worked out on rank 0's thread (hash_thread,
  // rank 0) while the run goes on: hash_pending on every rank until settle_input_hash()
  std::shared_future<std::pair<std::string, double>> hash_thread;
  bool hash_pending = false;
  geometry::PoreMask mask;                        // rank 0 only (with `slabs`: every rank's part); taken by decompose()
  // A file read on several ranks (read_sample): no rank holds the whole. Each rank's `mask` holds
  // its planes of the sample, filtered, extended across where the flow runs along x or y (along
  // z the buffers and the mirror image are made where decompose() needs them).
  struct Slabs {
    std::vector<std::int64_t> held;  // rank r holds sample planes [held[r], held[r + 1])
    int flow_axis = 2;
    geometry::InletOutlet inlet_outlet = geometry::InletOutlet::periodic;
    int buffer_layers = 0;
    bool widths = false;  // a run's sample: decompose() prepares each rank's width classes
    int threads = 1;      // this rank's share of its host's cores
  };
  std::optional<Slabs> slabs;
};

// The grey phases' permeability in voxel^2 at the sample's voxel size (read_sample does this; a
// sample from a mask in memory with spec's grey labels needs it too).
void set_grey_permeability(Sample& sample, const SampleSpec& spec);

// Reads spec.volume on rank 0. An input error on rank 0 is thrown on every rank.
// With spec.hash_later the input's hash may still be pending (Sample::hash_pending).
Sample read_sample(const parallel::Comm& comm, const SampleSpec& spec, const FlowSpec& flow);

// A volume read once for several samples of it (the three flow axes of a tensor): the mask,
// and the input's identity and hash. Rank 0 only; throws InputError.
struct ReadVolume {
  io::LoadedMask loaded;
  InputIdentity input;
  double read_seconds = 0;
};
// The SHA-256 of the file at `path` (io::hash_volume) and its seconds, on a thread of its own.
std::shared_future<std::pair<std::string, double>> hash_on_thread(const std::filesystem::path& path);
// Waits for rank 0's hash where it is pending and gives every rank its input.sha256 and
// hash_seconds. Collective; nothing where no hash is pending.
void settle_input_hash(const parallel::Comm& comm, Sample& sample);

// With `hash` false, input.sha256 is left empty (read_sample hashes beside the next stages).
ReadVolume read_volume(const SampleSpec& spec, bool hash = true);
// The identity of the file `volume` names, as far as it shows without reading it: name, path and
// size (no format, no hash).
InputIdentity file_identity(const io::VolumeSpec& volume);
// A mask held in memory (a front end's array) as a volume read: named `name`, format "memory",
// its input hash the SHA-256 of its codes. Throws InputError (sample.volume.voxel_size_um) where
// the voxel size is not positive.
ReadVolume volume_from_mask(geometry::PoreMask mask, double voxel_size_um, const std::string& name);
// read_sample from a volume already read (`volume` on rank 0; ignored elsewhere).
Sample read_sample(const parallel::Comm& comm, const ReadVolume& volume, const SampleSpec& spec, const FlowSpec& flow);

// What a sample is made for. A run checks the physics (the PhysicsErrors of a problem with no
// valid k: no path from inlet to outlet, nothing resisting the flow) and classes the pores by
// width for its report (four distance transforms of the volume). A benchmark times the kernels
// on any geometry, a fully open periodic box included, and needs neither.
enum class SampleUse { run, benchmark };

// The same stage for a mask already in memory (on rank 0; other ranks pass an empty one):
// synthetic media, tests, benchmarks.
Sample sample_from_mask(const parallel::Comm& comm, geometry::PoreMask mask, double voxel_size_um, const FlowSpec& flow,
                        bool percolation_filter = true, const std::string& name = "memory",
                        SampleUse use = SampleUse::run);

// The flow as run on `sample`: tau and force chosen where the spec asks for them (auto_tau,
// auto_force), the rest as given; marked resolved. Once per run (pipeline::run), before the plan.
FlowSpec resolve_flow(const FlowSpec& flow, const Sample& sample);

}  // namespace rockperm::pipeline
