#include "pipeline/slab_sample.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <future>
#include <utility>

#include "io/sha256.hpp"
#include "lib/base/error.hpp"
#include "lib/base/system.hpp"
#include "lib/geometry/coarsen.hpp"
#include "lib/geometry/grey_map.hpp"
#include "lib/geometry/inlet_outlet.hpp"
#include "lib/geometry/pore_statistics.hpp"
#include "lib/parallel/device_assignment.hpp"
#include "lib/parallel/slab_percolation.hpp"

namespace rockperm::pipeline {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The cropped sample's dimensions, from the header (every rank reads it), or its view's (nullopt
// where an extent is too small to coarsen: rank 0 says so, as coarsen_2x does).
std::optional<geometry::Dims> sample_dims_of(const SampleSpec& spec, const SampleView& view) {
  const geometry::Dims d = io::open_volume(spec.volume)->info().dims;
  const io::Crop c = io::resolve_crop(spec.volume.crop, d, spec.volume.path.string());
  geometry::Dims v{c.size[0], c.size[1], c.size[2]};
  for (int level = 0; level < view.coarsen_levels; ++level) {
    if (v.nx < 2 || v.ny < 2 || v.nz < 2) return std::nullopt;
    v = geometry::Dims{v.nx / 2, v.ny / 2, v.nz / 2};
  }
  return v;
}

// Planes `planes` of the view (z of it, in the order given), each made from its 2^levels planes
// of the file: the grey voxels made solid, then coarsened level by level, each run of consecutive
// planes at once with the whole's parity (coarsen_2x's first_z), so that every plane is the one
// the view of the whole holds.
io::LoadedMask load_view_planes(const SampleSpec& spec, const SampleView& view, const std::vector<std::int64_t>& planes) {
  if (view.coarsen_levels == 0 && !view.grey_solid) {
    return io::load_pore_planes(spec.volume, spec.open_labels(), spec.grey(), planes);
  }
  const std::int64_t f = std::int64_t{1} << view.coarsen_levels;
  std::vector<std::int64_t> fine;
  fine.reserve(planes.size() * static_cast<std::size_t>(f));
  for (const std::int64_t z : planes)
    for (std::int64_t j = 0; j < f; ++j) fine.push_back(f * z + j);
  io::LoadedMask l = io::load_pore_planes(spec.volume, spec.open_labels(), spec.grey(), fine);
  const geometry::Dims fd = l.mask.dims;
  const std::uint64_t fine_plane = static_cast<std::uint64_t>(fd.nx) * static_cast<std::uint64_t>(fd.ny);
  geometry::PoreMask out;
  out.dims = geometry::Dims{fd.nx >> view.coarsen_levels, fd.ny >> view.coarsen_levels,
                            static_cast<std::int64_t>(planes.size())};
  out.pore.reserve(out.dims.voxels());
  for (std::size_t i = 0; i < planes.size();) {  // runs of consecutive planes
    std::size_t n = 1;
    while (i + n < planes.size() && planes[i + n] == planes[i] + static_cast<std::int64_t>(n)) ++n;
    geometry::PoreMask run;
    run.dims = geometry::Dims{fd.nx, fd.ny, static_cast<std::int64_t>(n) * f};
    const auto begin = l.mask.pore.begin() + static_cast<std::ptrdiff_t>(fine_plane * i * static_cast<std::uint64_t>(f));
    run.pore.assign(begin, begin + static_cast<std::ptrdiff_t>(run.dims.voxels()));
    run = view_of(std::move(run), view, planes[i]);
    out.pore.insert(out.pore.end(), run.pore.begin(), run.pore.end());
    i += n;
  }
  l.mask = std::move(out);
  const std::uint64_t plane = static_cast<std::uint64_t>(l.mask.dims.nx) * static_cast<std::uint64_t>(l.mask.dims.ny);
  l.plane_pore.assign(planes.size(), 0);
  for (std::size_t i = 0; i < planes.size(); ++i) {
    const auto* p = l.mask.pore.data() + plane * i;
    l.plane_pore[i] = plane - static_cast<std::uint64_t>(std::count(p, p + plane, geometry::PoreMask::solid));
  }
  l.voxel_size_um *= static_cast<double>(f);
  return l;
}

// Equal shares of the sample's planes: the read, before the fluid is known.
std::vector<std::int64_t> equal_planes(std::int64_t nz, int ranks) {
  std::vector<std::int64_t> b(static_cast<std::size_t>(ranks) + 1);
  for (int r = 0; r <= ranks; ++r) b[r] = nz * r / ranks;
  return b;
}

std::vector<std::int64_t> as_signed(const std::array<std::uint64_t, physics::max_grey_phases>& a) {
  return std::vector<std::int64_t>(a.begin(), a.end());
}
std::array<std::uint64_t, physics::max_grey_phases> as_counts(const std::vector<std::int64_t>& v) {
  std::array<std::uint64_t, physics::max_grey_phases> a{};
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint64_t>(v[i]);
  return a;
}

// Grey voxels of the first `planes` planes of a slab, summed over ranks.
std::array<std::uint64_t, physics::max_grey_phases> grey_counts(const parallel::Comm& comm,
                                                                 const geometry::PoreMask& slab, std::int64_t planes) {
  const std::uint64_t voxels = static_cast<std::uint64_t>(slab.dims.nx) * slab.dims.ny * planes;
  return as_counts(comm.sum(as_signed(geometry::grey_voxel_counts(slab, voxels))));
}


}  // namespace

geometry::PoreMask view_of(geometry::PoreMask planes, const SampleView& view, std::int64_t first_plane) {
  if (view.grey_solid) {
    for (std::uint8_t& code : planes.pore)
      code = code == geometry::PoreMask::open ? geometry::PoreMask::open : geometry::PoreMask::solid;
  }
  for (int level = 1; level <= view.coarsen_levels; ++level)
    planes = geometry::coarsen_2x(planes, first_plane << (view.coarsen_levels - level));
  return planes;
}

std::optional<geometry::Dims> read_on_slabs(const parallel::Comm& comm, const SampleSpec& spec, const SampleView& view) {
  if (comm.size() < 2) return std::nullopt;
  geometry::Dims dims;
  bool ok = false;
  try {
    if (const auto d = sample_dims_of(spec, view)) {
      dims = *d;
      ok = dims.nz >= comm.size();
    }
  } catch (const Error&) {  // rank 0's read says what is wrong
  }
  // every rank must see the file (hosts without a shared file system: rank 0 reads it)
  if (comm.sum(static_cast<std::uint64_t>(ok ? 1 : 0)) != static_cast<std::uint64_t>(comm.size())) return std::nullopt;
  return dims;
}

ScopedThreads::ScopedThreads(int threads) : before_(omp_get_max_threads()) {
  if (threads > 0) omp_set_num_threads(threads);
}
ScopedThreads::~ScopedThreads() { omp_set_num_threads(before_); }

Sample read_sample_on_slabs(const parallel::Comm& comm, const SampleSpec& spec, const FlowSpec& flow,
                            const geometry::Dims& whole, const SampleView& view, const std::string& name) {
  Sample s;
  const auto start = Clock::now();
  // the ranks of a host share its cores for this work (and for the pore widths beside the solve)
  // unless OMP_NUM_THREADS says otherwise: each rank's threads all at once would be several
  // times the cores
  const int ranks_here = parallel::ranks_on_host(comm, host_name());
  const int threads = std::getenv("OMP_NUM_THREADS") ? omp_get_max_threads()
                                                     : std::max(1, omp_get_num_procs() / std::max(1, ranks_here));
  const ScopedThreads scoped(threads);
  // the input's SHA-256 reads the file once more: on rank 0, on a thread of its own, beside
  // everything else
  if (comm.root() && spec.hash_input && view.plain()) s.hash_thread = hash_on_thread(spec.volume.path);
  const bool grey = !spec.grey().empty() && !view.grey_solid;
  const geometry::Periodicity periodic = flow.periodicity();
  const parallel::SlabNeighbours neighbours = parallel::slab_neighbours(comm, flow.flow_axis, periodic);
  const bool above = neighbours.upper >= 0;
  io::LoadedMask loaded;
  const std::vector<std::int64_t> held = equal_planes(whole.nz, comm.size());
  parallel::collectively(comm, [&] {
    std::vector<std::int64_t> planes;
    for (std::int64_t z = held[comm.rank()]; z < held[comm.rank() + 1]; ++z) planes.push_back(z);
    if (above) planes.push_back(held[comm.rank() + 1] % whole.nz);
    loaded = load_view_planes(spec, view, planes);
    geometry::check_map_fits(spec.grey_map, loaded.info.bytes_per_sample, spec.volume.path.filename().string());
  });
  geometry::PoreMask& slab = loaded.mask;
  const std::int64_t owned = held[comm.rank() + 1] - held[comm.rank()];
  const std::uint64_t plane = static_cast<std::uint64_t>(whole.nx) * static_cast<std::uint64_t>(whole.ny);
  const std::uint64_t owned_voxels = plane * static_cast<std::uint64_t>(owned);
  const std::uint64_t pore = comm.sum(loaded.pore(static_cast<std::size_t>(owned)));  // counted as read
  if (pore == 0 && view.plain()) {
    try {
      io::no_voxel_selected(spec.volume, spec.open_labels(), grey);
    } catch (const InputError& e) {
      throw on_all_ranks(e);
    }
  }
  s.read_seconds = comm.max(seconds_since(start));
  s.voxel_size_um = loaded.voxel_size_um;
  s.input = file_identity(spec.volume);
  s.input.format = loaded.info.format;
  if (!view.plain()) {  // a variant of the file, made here (as sample_from_mask names it)
    s.input = InputIdentity{};
    s.input.name = name;
    s.input.format = "memory";
  }

  // the filter, as rank 0 would run it on the whole
  const auto filter_start = Clock::now();
  s.sample_dims = whole;
  if (grey) s.grey_voxels_before = grey_counts(comm, slab, owned);
  const parallel::SlabPlanes planes{held[comm.rank()], owned, whole.nz};
  if (spec.percolation_filter) {
    s.percolation = parallel::keep_percolating_pores(comm, slab, planes, whole, flow.flow_axis, periodic, flow.edge_contacts);
  } else {
    // kept as it is, but a pore space with no path from inlet to outlet still has k = 0
    geometry::PoreMask copy = slab;
    (void)parallel::keep_percolating_pores(comm, copy, planes, whole, flow.flow_axis, periodic, flow.edge_contacts);
    s.percolation.voxels = whole.voxels();
    s.percolation.pore = s.percolation.connected = pore;
  }
  s.percolation_seconds = comm.max(seconds_since(filter_start));

  const auto pores_start = Clock::now();
  if (grey) s.grey_voxels = grey_counts(comm, slab, owned);
  // the pore-solid faces between slabs: each rank's plane above, filtered now, from its owner
  const bool wraps = above && comm.rank() == comm.size() - 1;  // its plane above is across the wrap: no faces
  {
    std::vector<parallel::Comm::Transfer> sends, receives;
    constexpr int tag = 72;
    if (neighbours.lower >= 0) sends.push_back({neighbours.lower, tag, slab.pore.data(), plane});
    std::vector<std::uint8_t> refreshed(above ? plane : 0);
    if (above) receives.push_back({neighbours.upper, tag, refreshed.data(), plane});
    comm.exchange(sends, receives);
    slab.pore.resize(owned_voxels);
    if (above && !wraps) slab.pore.insert(slab.pore.end(), refreshed.begin(), refreshed.end());
    slab.dims.nz = static_cast<std::int64_t>(slab.pore.size() / plane);
  }
  const geometry::PoreCounts mine = geometry::pore_counts(slab, owned);
  std::vector<std::int64_t> counts{static_cast<std::int64_t>(mine.voxels), static_cast<std::int64_t>(mine.pore),
                                   static_cast<std::int64_t>(mine.faces)};
  counts = comm.sum(counts);
  s.pores = geometry::pore_statistics(geometry::PoreCounts{static_cast<std::uint64_t>(counts[0]),
                                                           static_cast<std::uint64_t>(counts[1]),
                                                           static_cast<std::uint64_t>(counts[2])});
  slab.pore.resize(owned_voxels);
  slab.dims.nz = owned;

  // the inlet and outlet: across, in each slab, where the flow runs along x or y; along z, in the
  // plane counts here and in the planes decompose() makes
  const int axis = flow.flow_axis;
  std::vector<std::int64_t> fluid;
  parallel::collectively(comm, [&] {
    if (axis != 2) {
      geometry::ExtendedSample e = geometry::extend_along_flow(std::move(slab), axis, flow.inlet_outlet, flow.buffer_layers);
      slab = std::move(e.mask);
      s.sample_begin = e.sample_begin;
      s.sample_end = e.sample_end;
      s.dims = geometry::Dims{slab.dims.nx, slab.dims.ny, whole.nz};
    } else {
      const geometry::FlowExtent e = geometry::extended_extent(whole.nz, flow.inlet_outlet, flow.buffer_layers);
      s.dims = geometry::Dims{whole.nx, whole.ny, e.planes};
      geometry::validate_dims(s.dims, "the sample with its inlet and outlet");
      s.sample_begin = e.sample_begin;
      s.sample_end = e.sample_end;
    }
  });
  const std::vector<std::uint64_t> mine_fluid = parallel::plane_fluid_counts(slab);
  fluid.assign(static_cast<std::size_t>(s.dims.nz), 0);
  const std::int64_t first = held[comm.rank()];
  for (std::int64_t p = 0; p < s.dims.nz; ++p) {
    const std::int64_t sp = axis == 2 ? geometry::sample_plane(p, whole.nz, flow.inlet_outlet, flow.buffer_layers) : p;
    if (sp < 0) {
      if (comm.root()) fluid[p] = static_cast<std::int64_t>(plane);  // a buffer plane: pure fluid
    } else if (sp >= first && sp < first + owned) {
      fluid[p] = static_cast<std::int64_t>(mine_fluid[sp - first]);
    }
  }
  fluid = comm.sum(fluid);
  s.plane_fluid.assign(fluid.begin(), fluid.end());
  s.pore_seconds = comm.max(seconds_since(pores_start));

  for (const auto c : s.plane_fluid) s.fluid += c;
  if (periodic[0] && periodic[1] && periodic[2] && s.fluid == s.dims.voxels() && s.grey_voxel_total() == 0) {
    throw on_all_ranks(PhysicsError(
        "nothing resists the flow: the simulated volume has no solid or grey voxel and every face is "
        "periodic, so the fluid accelerates without bound and k is infinite; seal the lateral faces "
        "(a duct) or use a sample with solid in it"));
  }
  if (s.fluid == 0) {
    throw on_all_ranks(InputError("sample.pore_labels", "the pore labels select no fluid cell of the sample"));
  }
  // rank 0's hash, on every rank (the checkpoint's identity), now or (hash_later) when needed
  s.hash_pending = spec.hash_input && view.plain();
  if (!spec.hash_later) settle_input_hash(comm, s);
  s.mask = std::move(slab);
  s.slabs = Sample::Slabs{held, axis, flow.inlet_outlet, flow.buffer_layers, true, threads};
  return s;
}

geometry::PoreMask gather_planes(const parallel::Comm& comm, const Sample& sample,
                                 const std::function<std::vector<std::int64_t>(int)>& needs) {
  const Sample::Slabs& slabs = *sample.slabs;
  const std::int64_t n = sample.sample_dims.nz;
  const geometry::Dims d{sample.mask.dims.nx, sample.mask.dims.ny, 0};
  const std::uint64_t plane = static_cast<std::uint64_t>(d.nx) * static_cast<std::uint64_t>(d.ny);
  const int me = comm.rank();
  // the sample plane a simulated plane shows (-1: a buffer plane), and the rank holding it
  const auto source = [&](std::int64_t p) {
    return slabs.flow_axis == 2 ? geometry::sample_plane(p, n, slabs.inlet_outlet, slabs.buffer_layers) : p;
  };
  const auto holder = [&](std::int64_t sp) {
    return static_cast<int>(std::upper_bound(slabs.held.begin(), slabs.held.end(), sp) - slabs.held.begin()) - 1;
  };
  const auto mine = [&](std::int64_t sp) { return sample.mask.pore.data() + plane * (sp - slabs.held[me]); };
  const std::vector<std::int64_t> wanted = needs(me);
  geometry::PoreMask out;
  out.dims = geometry::Dims{d.nx, d.ny, static_cast<std::int64_t>(wanted.size())};
  out.pore.resize(out.dims.voxels());
  std::vector<parallel::Comm::Transfer> sends, receives;
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    const std::int64_t sp = source(wanted[i]);
    if (sp >= 0 && holder(sp) != me) receives.push_back({holder(sp), static_cast<int>(i), out.pore.data() + plane * i, plane});
  }
  // this rank's own planes and the buffers, on the threads
  const auto count = static_cast<std::int64_t>(wanted.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    std::uint8_t* to = out.pore.data() + plane * static_cast<std::uint64_t>(i);
    const std::int64_t sp = source(wanted[static_cast<std::size_t>(i)]);
    if (sp < 0) {
      std::fill(to, to + plane, std::uint8_t{1});  // buffers are pure fluid
    } else if (holder(sp) == me) {
      std::memcpy(to, mine(sp), plane);
    }
  }
  for (int q = 0; q < comm.size(); ++q) {
    if (q == me) continue;
    const std::vector<std::int64_t> theirs = needs(q);
    for (std::size_t i = 0; i < theirs.size(); ++i) {
      const std::int64_t sp = source(theirs[i]);
      if (sp >= 0 && holder(sp) == me) sends.push_back({q, static_cast<int>(i), const_cast<std::uint8_t*>(mine(sp)), plane});
    }
  }
  comm.exchange(sends, receives);
  return out;
}

}  // namespace rockperm::pipeline
