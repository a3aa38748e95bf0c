#include "app/sample_setup.hpp"

#include <chrono>
#include <cstring>

#include "io/volume_source.hpp"
#include "lib/base/error.hpp"
#include "lib/geometry/inlet_outlet.hpp"

namespace rockperm::app {

namespace {
// The few numbers every rank needs, sent as bytes from rank 0.
struct LayoutHeader {
  std::int64_t dims[3];
  std::int64_t sample_begin, sample_end;
  double voxel_size_um;
  std::uint64_t voxels, pore, connected;
  double read_seconds, percolation_seconds;
};
}  // namespace

io::VolumeSpec volume_spec(const config::RunConfig& cfg) {
  io::VolumeSpec spec;
  spec.path = cfg.input.file;
  spec.format = io::parse_format(cfg.input.format);
  spec.dims = cfg.input.dims;
  spec.bytes_per_sample = cfg.input.bytes_per_sample;
  spec.big_endian = cfg.input.big_endian;
  spec.header_bytes = cfg.input.header_bytes;
  spec.voxel_size_um = cfg.input.voxel_size_um;
  spec.crop = io::parse_crop(cfg.input.crop_offset, cfg.input.crop_size);
  return spec;
}

SampleLayout read_sample(const Comm& comm, const config::RunConfig& cfg, PoreMask& mask) {
  SampleLayout layout;
  std::vector<std::uint8_t> message;  // rank 0's error, if any
  std::vector<std::uint8_t> bytes;
  if (comm.root()) {
    try {
      auto start = std::chrono::steady_clock::now();
      io::LoadedMask loaded = io::load_pore_mask(volume_spec(cfg), LabelSelection::parse(cfg.input.pore_labels));
      mask = std::move(loaded.mask);
      layout.voxel_size_um = loaded.voxel_size_um;
      layout.format = loaded.info.format;
      layout.read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      start = std::chrono::steady_clock::now();
      if (cfg.input.percolation_filter) {
        layout.percolation = keep_percolating_pores(mask, cfg.lbm.flow_axis, cfg.periodicity(), cfg.lbm.edge_contacts);
      } else {
        layout.percolation.voxels = mask.dims.voxels();
        layout.percolation.pore = layout.percolation.connected = mask.pore_count();
      }
      layout.percolation_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ExtendedSample extended = extend_along_flow(std::move(mask), cfg.lbm.flow_axis,
                                                  parse_inlet_outlet(cfg.lbm.inlet_outlet), cfg.lbm.buffer_layers);
      mask = std::move(extended.mask);
      layout.plane_fluid = plane_fluid_counts(mask);
      LayoutHeader h{{mask.dims.nx, mask.dims.ny, mask.dims.nz},
                     extended.sample_begin,
                     extended.sample_end,
                     layout.voxel_size_um,
                     layout.percolation.voxels,
                     layout.percolation.pore,
                     layout.percolation.connected,
                     layout.read_seconds,
                     layout.percolation_seconds};
      bytes.resize(sizeof h + layout.plane_fluid.size() * sizeof(std::uint64_t));
      std::memcpy(bytes.data(), &h, sizeof h);
      std::memcpy(bytes.data() + sizeof h, layout.plane_fluid.data(), bytes.size() - sizeof h);
    } catch (const InputError& e) {
      const std::string what = e.what();
      message.assign(what.begin(), what.end());
    }
  }
  comm.broadcast(message);
  if (!message.empty()) throw on_all_ranks(InputError(std::string(message.begin(), message.end())));
  comm.broadcast(bytes);
  LayoutHeader h{};
  std::memcpy(&h, bytes.data(), sizeof h);
  layout.dims = Dims{h.dims[0], h.dims[1], h.dims[2]};
  layout.sample_begin = h.sample_begin;
  layout.sample_end = h.sample_end;
  layout.voxel_size_um = h.voxel_size_um;
  layout.percolation = PercolationReport{h.voxels, h.pore, h.connected};
  layout.read_seconds = h.read_seconds;
  layout.percolation_seconds = h.percolation_seconds;
  layout.plane_fluid.resize((bytes.size() - sizeof h) / sizeof(std::uint64_t));
  std::memcpy(layout.plane_fluid.data(), bytes.data() + sizeof h, bytes.size() - sizeof h);
  for (const auto c : layout.plane_fluid) layout.fluid += c;
  return layout;
}

PoreMask distribute_planes(const Comm& comm, const PoreMask& mask, const Dims& dims, const std::vector<Slab>& slabs,
                           const SlabDomain& mine, bool periodic_z) {
  if (comm.root()) {
    for (int r = 1; r < comm.size(); ++r) {
      const SlabDomain d = slab_domain(slabs, r, dims.nz, periodic_z);
      comm.send_bytes(r, extract_planes(mask, d.planes).pore);
    }
    return extract_planes(mask, mine.planes);
  }
  PoreMask local{Dims{dims.nx, dims.ny, static_cast<std::int64_t>(mine.planes.size())},
                 comm.receive_bytes(0)};
  return local;
}

}  // namespace rockperm::app
