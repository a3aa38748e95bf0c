#include "app/sample_setup.hpp"

#include <chrono>
#include <cstring>

#include "io/raw_reader.hpp"
#include "lib/error.hpp"

namespace rockperm::app {

SampleLayout read_sample(const Comm& comm, const config::RunConfig& cfg, PoreMask& mask) {
  SampleLayout layout;
  layout.dims = cfg.input.dims;
  std::vector<std::uint8_t> message;  // rank 0's error, if any
  std::vector<std::uint8_t> counts;
  if (comm.root()) {
    const auto start = std::chrono::steady_clock::now();
    try {
      const Volume volume = io::read_raw_u8(cfg.input.file, cfg.input.dims, cfg.input.voxel_size_um);
      mask = make_pore_mask(volume, LabelSelection::parse(cfg.input.pore_labels));
      layout.plane_fluid = plane_fluid_counts(mask);
    } catch (const InputError& e) {
      const std::string what = e.what();
      message.assign(what.begin(), what.end());
    }
    layout.read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    counts.resize(layout.plane_fluid.size() * sizeof(std::uint64_t));
    std::memcpy(counts.data(), layout.plane_fluid.data(), counts.size());
  }
  comm.broadcast(message);
  if (!message.empty()) throw on_all_ranks(InputError(std::string(message.begin(), message.end())));
  comm.broadcast(counts);
  layout.plane_fluid.resize(counts.size() / sizeof(std::uint64_t));
  std::memcpy(layout.plane_fluid.data(), counts.data(), counts.size());
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
