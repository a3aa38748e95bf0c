#include "pipeline/sample.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <algorithm>
#include <cstring>
#include <functional>
#include <future>
#include <mutex>
#include <tuple>

#include "io/sha256.hpp"
#include "lib/base/error.hpp"
#include "lib/base/host_array.hpp"
#include "lib/geometry/distance_transform.hpp"
#include "lib/parallel/partition.hpp"
#include "lib/solve/time_scales.hpp"
#include "pipeline/slab_sample.hpp"

namespace rockperm::pipeline {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The numbers every rank needs, sent as bytes from rank 0 (the mask stays there).
struct Header {
  std::int64_t dims[3];
  std::int64_t sample_dims[3];
  std::int64_t sample_begin, sample_end;
  double voxel_size_um;
  std::uint64_t voxels, pore, connected;
  double read_seconds, percolation_seconds, pore_seconds, hash_seconds;
  std::uint64_t input_bytes;
  geometry::PoreStatistics pores;
  std::array<std::uint64_t, physics::max_grey_phases> grey_voxels_before, grey_voxels;
};

// The width class of every fluid cell of planes [z_begin, z_end) of the simulated volume in
// raster order (no_width_class outside the sample): each z plane writes its own range, at the
// offset of the fluid before it. `mask` holds global planes from `z_first` on, enough of them
// around [z_begin, z_end) for the classes there (geometry::width_class_reach) unless the volume
// ends first.
std::vector<std::uint8_t> fluid_width_classes(const geometry::PoreMask& mask,
                                              const std::vector<std::uint64_t>& plane_fluid, std::int64_t sample_begin,
                                              std::int64_t sample_end, int flow_axis, std::int64_t z_first,
                                              std::int64_t z_begin, std::int64_t z_end) {
  const geometry::Dims& d = mask.dims;
  const std::int64_t planes = z_end - z_begin;
  std::vector<std::uint64_t> first(static_cast<std::size_t>(planes) + 1, 0);
  for (std::int64_t z = 0; z < planes; ++z) first[z + 1] = first[z] + plane_fluid[z_begin + z];
  std::vector<std::uint8_t> out(first.back());
  // a chunk of planes at a time: a few bytes per voxel of a chunk instead of the volume's
  const std::uint64_t plane = static_cast<std::uint64_t>(d.nx) * static_cast<std::uint64_t>(d.ny);
  geometry::pore_width_classes_by_chunks(
      mask, z_begin - z_first, z_end - z_first, geometry::width_chunk_planes(d),
      [&](std::int64_t z0, std::int64_t z1, const std::uint8_t* classes) {
#pragma omp parallel for schedule(static)
        for (std::int64_t z = z0; z < z1; ++z) {
          const std::int64_t gz = z + z_first;
          std::uint64_t k = first[gz - z_begin];
          const std::uint8_t* pore = mask.pore.data() + plane * static_cast<std::uint64_t>(z);
          const std::uint8_t* c = classes + plane * static_cast<std::uint64_t>(z - z0);
          for (std::int64_t y = 0; y < d.ny; ++y) {
            for (std::int64_t x = 0; x < d.nx; ++x) {
              const std::uint64_t v = static_cast<std::uint64_t>(x + d.nx * y);
              if (!pore[v]) continue;
              const std::int64_t pos[3] = {x, y, gz};
              const std::int64_t p = pos[flow_axis];
              out[k++] = p >= sample_begin && p < sample_end ? c[v] : geometry::no_width_class;
            }
          }
        }
      });
  return out;
}

// Rank 0: filter, extend and count planes.
// `grey`: the mask may hold grey codes (a file read with grey labels, or a mask given in memory);
// where it cannot, the two counting passes over the volume are skipped.
void finish_on_root(Sample& s, geometry::PoreMask mask, const FlowSpec& flow, bool percolation_filter, SampleUse use,
                    bool grey) {
  const auto start = Clock::now();
  const bool physics_checks = use == SampleUse::run;
  s.sample_dims = mask.dims;
  if (grey) s.grey_voxels_before = geometry::grey_voxel_counts(mask);
  if (percolation_filter) {
    s.percolation = geometry::keep_percolating_pores(mask, flow.flow_axis, flow.periodicity(), flow.edge_contacts);
  } else if (physics_checks) {
    // kept as it is, but a pore space with no path from inlet to outlet still has k = 0:
    // found on a copy (PhysicsError), before any step
    geometry::PoreMask copy = mask;
    (void)keep_percolating_pores(copy, flow.flow_axis, flow.periodicity(), flow.edge_contacts);
    s.percolation.voxels = mask.dims.voxels();
    s.percolation.pore = s.percolation.connected = mask.pore_count();
  } else {
    s.percolation.voxels = mask.dims.voxels();
    s.percolation.pore = s.percolation.connected = mask.pore_count();
  }
  s.percolation_seconds = seconds_since(start);
  if (grey) s.grey_voxels = geometry::grey_voxel_counts(mask);
  const auto pores_start = Clock::now();
  s.pores = geometry::pore_statistics(mask);
  geometry::ExtendedSample extended =
      geometry::extend_along_flow(std::move(mask), flow.flow_axis, flow.inlet_outlet, flow.buffer_layers);
  s.mask = std::move(extended.mask);
  s.dims = s.mask.dims;
  s.sample_begin = extended.sample_begin;
  s.sample_end = extended.sample_end;
  s.plane_fluid = parallel::plane_fluid_counts(s.mask);
  if (use == SampleUse::run) {  // the width classes: beside the solve (PoreWidths)
    s.widths.prepare(s.mask, s.plane_fluid, s.sample_begin, s.sample_end, flow.flow_axis);
  }
  s.pore_seconds = seconds_since(pores_start);
  const geometry::Periodicity p = flow.periodicity();
  if (physics_checks && p[0] && p[1] && p[2] && s.mask.pore_count() == s.mask.dims.voxels() &&
      s.grey_voxel_total() == 0) {
    throw PhysicsError("nothing resists the flow: the simulated volume has no solid or grey voxel and every face is "
                       "periodic, so the fluid accelerates without bound and k is infinite; seal the lateral faces "
                       "(a duct) or use a sample with solid in it");
  }
}

// Rank 0 runs `root_work`; its input error, or its numbers, reach every rank.
Sample share(const parallel::Comm& comm, const std::function<void(Sample&)>& root_work) {
  Sample s;
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> text;  // name, 0, format, 0, sha256, 0, path
  collectively(comm, [&] {         // rank 0's error (input, physics, ...) on every rank
    if (comm.root()) root_work(s);
  });
  if (comm.root()) {
    const Header h{{s.dims.nx, s.dims.ny, s.dims.nz},
                   {s.sample_dims.nx, s.sample_dims.ny, s.sample_dims.nz},
                   s.sample_begin,
                   s.sample_end,
                   s.voxel_size_um,
                   s.percolation.voxels,
                   s.percolation.pore,
                   s.percolation.connected,
                   s.read_seconds,
                   s.percolation_seconds,
                   s.pore_seconds,
                   s.hash_seconds,
                   s.input.bytes,
                   s.pores,
                   s.grey_voxels_before,
                   s.grey_voxels};
    bytes.resize(sizeof h + s.plane_fluid.size() * sizeof(std::uint64_t));
    std::memcpy(bytes.data(), &h, sizeof h);
    std::memcpy(bytes.data() + sizeof h, s.plane_fluid.data(), bytes.size() - sizeof h);
    const std::string t =
        s.input.name + '\0' + s.input.format + '\0' + s.input.sha256 + '\0' + s.input.path.string();
    text.assign(t.begin(), t.end());
  }
  comm.broadcast(bytes);
  comm.broadcast(text);
  if (!comm.root()) {
    Header h{};
    std::memcpy(&h, bytes.data(), sizeof h);
    s.dims = geometry::Dims{h.dims[0], h.dims[1], h.dims[2]};
    s.sample_dims = geometry::Dims{h.sample_dims[0], h.sample_dims[1], h.sample_dims[2]};
    s.sample_begin = h.sample_begin;
    s.sample_end = h.sample_end;
    s.voxel_size_um = h.voxel_size_um;
    s.percolation = geometry::PercolationReport{h.voxels, h.pore, h.connected};
    s.read_seconds = h.read_seconds;
    s.percolation_seconds = h.percolation_seconds;
    s.pore_seconds = h.pore_seconds;
    s.hash_seconds = h.hash_seconds;
    s.input.bytes = h.input_bytes;
    s.pores = h.pores;
    s.grey_voxels_before = h.grey_voxels_before;
    s.grey_voxels = h.grey_voxels;
    s.plane_fluid.resize((bytes.size() - sizeof h) / sizeof(std::uint64_t));
    std::memcpy(s.plane_fluid.data(), bytes.data() + sizeof h, bytes.size() - sizeof h);
    const std::string t(text.begin(), text.end());
    const std::size_t a = t.find('\0'), b = t.find('\0', a + 1), c = t.find('\0', b + 1);
    s.input.name = t.substr(0, a);
    s.input.format = t.substr(a + 1, b - a - 1);
    s.input.sha256 = t.substr(b + 1, c - b - 1);
    s.input.path = t.substr(c + 1);
  }
  for (const auto c : s.plane_fluid) s.fluid += c;
  if (s.fluid == 0) {
    throw on_all_ranks(InputError("sample.pore_labels", "the pore labels select no fluid cell of the sample"));
  }
  return s;
}

}  // namespace

struct PoreWidths::State {
  geometry::PoreMask mask;
  std::vector<std::uint64_t> plane_fluid;
  std::int64_t sample_begin = 0, sample_end = 0;
  int flow_axis = 0;
  std::int64_t z_first = 0, z_begin = 0, z_end = 0;
  bool local = false;
  int threads = 0;  // 0: OpenMP's default
  mutable std::once_flag started;
  mutable std::shared_future<std::vector<std::uint8_t>> classes;
  mutable double seconds = 0;
};

void PoreWidths::prepare(geometry::PoreMask mask, std::vector<std::uint64_t> plane_fluid, std::int64_t sample_begin,
                         std::int64_t sample_end, int flow_axis) {
  state_ = std::make_shared<State>();
  state_->mask = std::move(mask);
  state_->plane_fluid = std::move(plane_fluid);
  state_->sample_begin = sample_begin;
  state_->sample_end = sample_end;
  state_->flow_axis = flow_axis;
  state_->z_end = state_->mask.dims.nz;
}

void PoreWidths::prepare_slab(geometry::PoreMask mask, std::vector<std::uint64_t> plane_fluid,
                              std::int64_t sample_begin, std::int64_t sample_end, int flow_axis, std::int64_t z_first,
                              std::int64_t z_begin, std::int64_t z_end, int threads) {
  prepare(std::move(mask), std::move(plane_fluid), sample_begin, sample_end, flow_axis);
  state_->threads = threads;
  state_->z_first = z_first;
  state_->z_begin = z_begin;
  state_->z_end = z_end;
  state_->local = true;
}

bool PoreWidths::local() const { return state_ && state_->local; }

void PoreWidths::start() const {
  if (!state_) return;
  std::call_once(state_->started, [s = state_.get()] {
    s->classes = std::async(std::launch::async, [s] {
                   if (s->threads > 0) omp_set_num_threads(s->threads);  // this thread's own setting
                   const auto start = Clock::now();
                   std::vector<std::uint8_t> c =
                       fluid_width_classes(s->mask, s->plane_fluid, s->sample_begin, s->sample_end, s->flow_axis,
                                           s->z_first, s->z_begin, s->z_end);
                   s->mask = geometry::PoreMask{};  // done with it
                   s->seconds = seconds_since(start);
                   return c;
                 }).share();
  });
}

const std::vector<std::uint8_t>& PoreWidths::get() const {
  static const std::vector<std::uint8_t> none;
  if (!state_) return none;
  start();
  return state_->classes.get();
}

double PoreWidths::seconds() const {
  if (!state_ || !state_->classes.valid()) return 0;
  return state_->classes.wait_for(std::chrono::seconds(0)) == std::future_status::ready ? state_->seconds : 0;
}

ReadVolume read_volume(const SampleSpec& spec, bool hash) {
  ReadVolume v;
  const auto start = Clock::now();
  v.loaded = io::load_pore_mask(spec.volume, spec.open_labels(), spec.grey());
  geometry::check_map_fits(spec.grey_map, v.loaded.info.bytes_per_sample, spec.volume.path.filename().string());
  v.read_seconds = seconds_since(start);
  v.input = file_identity(spec.volume);
  if (spec.hash_input && hash) v.input.sha256 = io::hash_volume(spec.volume.path);
  v.input.format = v.loaded.info.format;
  return v;
}

InputIdentity file_identity(const io::VolumeSpec& volume) {
  InputIdentity i;
  i.path = std::filesystem::absolute(volume.path).lexically_normal();
  i.name = volume.path.filename().string();
  if (i.name.empty()) i.name = volume.path.parent_path().filename().string();  // "slices/"
  std::error_code ec;
  if (std::filesystem::is_regular_file(volume.path, ec)) i.bytes = std::filesystem::file_size(volume.path, ec);
  return i;
}

void set_grey_permeability(Sample& s, const SampleSpec& spec) {
  const double voxel_m = s.voxel_size_um * 1e-6;
  s.grey_permeability.clear();
  for (const geometry::GreyPhase& g : spec.grey())
    s.grey_permeability.push_back(g.permeability_m2 / (voxel_m * voxel_m));
}

namespace {
Sample with_grey_permeability(Sample s, const SampleSpec& spec) {  // every rank
  set_grey_permeability(s, spec);
  return s;
}
}  // namespace

ReadVolume volume_from_mask(geometry::PoreMask mask, double voxel_size_um, const std::string& name) {
  if (!(voxel_size_um > 0)) throw InputError("sample.volume.voxel_size_um", "the voxel size must be positive");
  ReadVolume v;
  v.input.name = name;
  v.input.format = "memory";
  v.input.sha256 = io::sha256_hex(std::string_view(reinterpret_cast<const char*>(mask.pore.data()), mask.pore.size()));
  v.loaded.voxel_size_um = voxel_size_um;
  v.loaded.mask = std::move(mask);
  return v;
}

Sample read_sample(const parallel::Comm& comm, const ReadVolume& volume, const SampleSpec& spec, const FlowSpec& flow) {
  return with_grey_permeability(share(comm, [&](Sample& s) {
    s.read_seconds = volume.read_seconds;
    s.voxel_size_um = volume.loaded.voxel_size_um;
    s.input = volume.input;
    finish_on_root(s, geometry::PoreMask(volume.loaded.mask), flow, spec.percolation_filter, SampleUse::run,
                   !spec.grey().empty());
  }), spec);
}

Sample read_sample(const parallel::Comm& comm, const SampleSpec& spec, const FlowSpec& flow) {
  if (const auto whole = read_on_slabs(comm, spec))
    return with_grey_permeability(read_sample_on_slabs(comm, spec, flow, *whole), spec);
  Sample sample = share(comm, [&](Sample& s) {
    ReadVolume v = read_volume(spec, false);
    s.read_seconds = v.read_seconds;
    s.voxel_size_um = v.loaded.voxel_size_um;
    s.input = std::move(v.input);
    // the input's SHA-256 reads the file once more: on a thread of its own, beside the
    // percolation and the pore analysis, which use the others (and, hash_later, the solve)
    if (spec.hash_input) s.hash_thread = hash_on_thread(spec.volume.path);
    finish_on_root(s, std::move(v.loaded.mask), flow, spec.percolation_filter, SampleUse::run,
                   !spec.grey().empty());
  });
  sample.hash_pending = spec.hash_input;
  if (!spec.hash_later) settle_input_hash(comm, sample);
  return with_grey_permeability(std::move(sample), spec);
}

std::shared_future<std::pair<std::string, double>> hash_on_thread(const std::filesystem::path& path) {
  return std::async(std::launch::async, [path] {
           const auto start = Clock::now();
           std::string h = io::hash_volume(path);
           return std::make_pair(std::move(h), seconds_since(start));
         }).share();
}

void settle_input_hash(const parallel::Comm& comm, Sample& sample) {
  if (!sample.hash_pending) return;
  std::vector<std::uint8_t> text;
  double seconds = 0;
  collectively(comm, [&] {  // the file gone or unreadable under the run: rank 0's error on every rank
    if (!comm.root() || !sample.hash_thread.valid()) return;
    const auto& [h, t] = sample.hash_thread.get();
    text.assign(h.begin(), h.end());
    seconds = t;
  });
  comm.broadcast(text);
  sample.input.sha256.assign(text.begin(), text.end());
  sample.hash_seconds = comm.max(seconds);
  sample.hash_thread = {};
  sample.hash_pending = false;
}

Sample sample_from_mask(const parallel::Comm& comm, geometry::PoreMask mask, double voxel_size_um, const FlowSpec& flow,
                        bool percolation_filter, const std::string& name, SampleUse use) {
  return share(comm, [&](Sample& s) {
    ReadVolume v = volume_from_mask(std::move(mask), voxel_size_um, name);
    s.voxel_size_um = v.loaded.voxel_size_um;
    s.input = std::move(v.input);
    finish_on_root(s, std::move(v.loaded.mask), flow, percolation_filter, use, true);
  });
}

}  // namespace rockperm::pipeline

namespace rockperm::pipeline {

FlowSpec resolve_flow(const FlowSpec& flow, const Sample& sample) {
  FlowSpec f = flow;
  f.resolved = true;
  if (f.grey_permeability.empty()) f.grey_permeability = sample.grey_permeability;
  if (sample.grey_phases() > static_cast<int>(f.grey_permeability.size())) {  // else its cells would be open
    throw InputError("sample.grey_labels", "the sample holds grey phase " + std::to_string(sample.grey_phases()) +
                                               " but only " + std::to_string(f.grey_permeability.size()) +
                                               " grey permeabilities are known");
  }
  if (f.auto_tau) {
    // BGK's k moves with tau (FlowSpec::validate): it keeps tau = 1
    const double tau = f.collision == physics::CollisionModel::trt
                           ? solve::fastest_tau(sample.pores, static_cast<double>(sample.dims[f.flow_axis]))
                           : 1.0;
    f.tau = std::round(tau * 1000.0) / 1000.0;  // a number that reads well in reports
  }
  if (f.auto_force) {
    const double nu = physics::viscosity(f.tau);
    double g = FlowSpec::reference_force * nu / physics::viscosity(1.0);
    const double k = sample.pores.kozeny_carman_k, phi = sample.pores.porosity;
    if (k > 0 && phi > 0) {  // the estimated flow: q = k g / nu, Re = q sqrt(k) / nu, Ma = peak q / (phi c_s)
      g = std::min(g, FlowSpec::target_reynolds * nu * nu / std::pow(k, 1.5));
      g = std::min(g, FlowSpec::target_mach * std::sqrt(d3q19::cs2) * nu * phi / (FlowSpec::peak_to_mean_speed * k));
    }
    f.force = g;
  }
  return f;
}

int Sample::grey_phases() const {
  for (int c = physics::max_grey_phases; c > 0; --c) {
    if (grey_voxels[c - 1] > 0) return c;
  }
  return 0;
}

std::uint64_t Sample::grey_voxel_total() const {
  std::uint64_t n = 0;
  for (const auto v : grey_voxels) n += v;
  return n;
}

}  // namespace rockperm::pipeline
