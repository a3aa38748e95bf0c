#include "pipeline/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <sstream>

#include "io/sha256.hpp"
#include "lib/base/error.hpp"
#include "lib/base/system.hpp"

namespace rockperm::pipeline {

namespace {

// 05: the pressure extrapolation's state says whether its last jump is being verified (0, or 1 +
// the decisions since it that did not read the field; a 0/1 flag before 2026-11-29 reads the same); 04: the
// pressure extrapolation's state and held densities; 03: the header and populations carry a
// checksum (every layout before 05 is refused: the loop's state has another size)
constexpr char magic[8] = {'R', 'P', 'C', 'K', 'P', 'T', '0', '6'};

// Plain bytes at the start of the file; the populations follow at `data_offset`.
struct Header {
  char magic[8];
  std::uint32_t q;
  std::uint32_t population_bytes;
  std::uint32_t loop_bytes;   // sizeof(SteadyStateLoop::State) of the writing build
  std::uint32_t drive_bytes;  // sizeof(SampleDrive)
  std::uint64_t fluid_cells;
  std::int64_t dims[3];
  char identity[64];
  solve::SteadyStateLoop::State loop;
  solve::SampleDrive drive;
  double force;
  std::int32_t drive_adjustments;
  std::int32_t padding;
  std::uint64_t data_offset;
  // the pressure extrapolation's held densities, 2 floats per cell in global cell order from
  // here (0: none held)
  std::uint64_t held_offset;
  std::uint64_t checksum;  // of this header (with checksum 0) and every population: see payload_checksum
};
static_assert(sizeof(Header) <= 4096, "the populations start at byte 4096");

// This rank's owned cells start at this global cell index.
std::uint64_t first_global_cell(const parallel::Comm& comm, const RankLattice& r) {
  return parallel::fluid_before(r.slabs, comm.rank());
}

std::uint64_t mix(std::uint64_t x) {  // SplitMix64's finaliser: every input bit moves every output bit
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t hash_bytes(const std::byte* data, std::size_t bytes, std::uint64_t seed) {
  std::uint64_t h = mix(seed + 0x9e3779b97f4a7c15ull);
  for (std::size_t k = 0; k < bytes; k += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, data + k, std::min<std::size_t>(8, bytes - k));
    h = mix(h ^ w);
  }
  return h;
}

// The checksum of a slice of the populations (cells from global index `first_cell` on): a sum
// mod 2^64 of a hash of each cell's bytes and global index, so that the slices of any number of
// ranks add up to the same value, and one changed byte changes it (but with odds 2^-64).
std::uint64_t payload_checksum(const void* data, std::size_t bytes, std::size_t cell_bytes, std::uint64_t first_cell) {
  const auto* owned = static_cast<const std::byte*>(data);
  const auto cells = static_cast<std::int64_t>(bytes / cell_bytes);
  std::uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (std::int64_t c = 0; c < cells; ++c) {
    sum += hash_bytes(owned + static_cast<std::size_t>(c) * cell_bytes, cell_bytes,
                      first_cell + static_cast<std::uint64_t>(c));
  }
  return sum;
}

// This rank's part of the checksum: its populations, and its held densities where there are any
// (keyed after every cell's populations, so that the two never share a key).
std::uint64_t payload_checksums(const Simulation::State& state, std::size_t slot_bytes, std::uint64_t fluid_cells,
                                std::uint64_t first_cell) {
  std::uint64_t sum = payload_checksum(state.owned.data(), state.owned.size(), d3q19::q * slot_bytes, first_cell);
  if (!state.held.empty()) {
    sum += payload_checksum(state.held.data(), state.held.size() * sizeof(float), 2 * sizeof(float),
                            fluid_cells + first_cell);
  }
  return sum;
}

// Of the header's bytes as they are written and read (padding included), the checksum's own as 0.
std::uint64_t header_checksum(const Header& h) {
  std::byte bytes[sizeof(Header)];
  std::memcpy(bytes, &h, sizeof h);
  std::memset(bytes + offsetof(Header, checksum), 0, sizeof h.checksum);
  return hash_bytes(bytes, sizeof bytes, ~0ull);
}

std::string system_error(const std::filesystem::path& file, const std::string& what) {
  return file.string() + ": " + what + " (" + std::strerror(errno) + ")";
}

void write_all(int fd, const void* data, std::size_t bytes, std::uint64_t offset, const std::filesystem::path& file) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd, p, std::min<std::size_t>(bytes, std::size_t{1} << 30), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw RuntimeFailure(system_error(file, "writing the checkpoint failed"));
    p += n;
    bytes -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

void read_all(int fd, void* data, std::size_t bytes, std::uint64_t offset, const std::filesystem::path& file) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pread(fd, p, std::min<std::size_t>(bytes, std::size_t{1} << 30), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError("checkpoint", file.string() + ": the checkpoint is shorter than its header says");
    p += n;
    bytes -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

}  // namespace

std::string run_identity(const std::string& input_sha256, const SampleSpec& sample, const FlowSpec& flow) {
  std::ostringstream o;
  o.precision(17);
  const auto& c = sample.volume.crop;
  o << "input " << input_sha256 << "\nlabels " << sample.open_labels().str() << "\ncrop " << c.offset[0] << ' '
    << c.offset[1] << ' ' << c.offset[2] << ' ' << c.size[0] << ' ' << c.size[1] << ' ' << c.size[2] << "\nfilter "
    << sample.percolation_filter << "\ncollision " << static_cast<int>(flow.collision) << "\ntau " << flow.tau
    << "\nmagic " << flow.magic << "\nforce " << flow.force << "\naxis " << flow.flow_axis << "\nlateral "
    << flow.lateral_periodic[0] << flow.lateral_periodic[1] << flow.lateral_periodic[2] << "\ninlet_outlet "
    << to_string(flow.inlet_outlet) << "\nbuffer_layers " << flow.buffer_layers << "\nedges "
    << to_string(flow.edge_contacts) << "\n";
  const std::vector<geometry::GreyPhase> grey = sample.grey();
  if (!grey.empty() || !flow.grey_permeability.empty()) {  // absent before grey phases existed
    o << "grey " << to_string(grey) << "\ngrey_voxel2";
    for (const double k : flow.grey_permeability) o << ' ' << k;
    o << "\n";
  }
  return io::sha256_hex(o.str());
}

void write_checkpoint(const parallel::Comm& comm, const Simulation& simulation, const std::filesystem::path& file,
                      const std::string& identity) {
  const Simulation::State state = simulation.save();
  const Sample& sample = simulation.sample();
  std::filesystem::path tmp = file;
  tmp += ".tmp";
  Header h{};
  std::memcpy(h.magic, magic, sizeof magic);
  h.q = d3q19::q;
  const std::uint64_t slot_bytes = physics::storage_bytes(simulation.storage());
  h.population_bytes = static_cast<decltype(h.population_bytes)>(slot_bytes);
  h.loop_bytes = sizeof(solve::SteadyStateLoop::State);
  h.drive_bytes = sizeof(solve::SampleDrive);
  h.fluid_cells = sample.fluid;
  h.dims[0] = sample.dims.nx;
  h.dims[1] = sample.dims.ny;
  h.dims[2] = sample.dims.nz;
  std::memcpy(h.identity, identity.data(), std::min<std::size_t>(identity.size(), sizeof h.identity));
  h.loop = state.loop;
  h.drive = state.drive;
  h.force = state.force;
  h.drive_adjustments = state.drive_adjustments;
  h.data_offset = 4096;
  // held densities on one rank are held on every rank (the extrapolation's state is global)
  h.held_offset = state.held.empty() ? 0 : h.data_offset + sample.fluid * d3q19::q * slot_bytes;
  const std::uint64_t first = first_global_cell(comm, simulation.rank_lattice());
  const std::uint64_t payload = comm.sum(payload_checksums(state, slot_bytes, sample.fluid, first));
  h.checksum = header_checksum(h) + payload;
  parallel::collectively(comm, [&] {
    if (!comm.root()) return;
    FileDescriptor fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
    if (!fd.valid()) throw RuntimeFailure(system_error(tmp, "the checkpoint cannot be created"));
    write_all(fd.get(), &h, sizeof h, 0, tmp);
    if (!fd.close()) throw RuntimeFailure(system_error(tmp, "closing the checkpoint failed"));
  });
  const std::uint64_t slot = d3q19::q * slot_bytes;
  parallel::collectively(comm, [&] {
    FileDescriptor fd(::open(tmp.c_str(), O_WRONLY));
    if (!fd.valid()) throw RuntimeFailure(system_error(tmp, "the checkpoint cannot be opened"));
    const std::uint64_t offset = h.data_offset + first * slot;
    write_all(fd.get(), state.owned.data(), state.owned.size(), offset, tmp);
    if (h.held_offset != 0) {
      write_all(fd.get(), state.held.data(), state.held.size() * sizeof(float), h.held_offset + first * 2 * sizeof(float),
                tmp);
    }
    if (::fsync(fd.get()) != 0) throw RuntimeFailure(system_error(tmp, "flushing the checkpoint to disk failed"));
    if (!fd.close()) throw RuntimeFailure(system_error(tmp, "closing the checkpoint failed"));
  });
  parallel::collectively(comm, [&] {
    if (!comm.root()) return;
    std::error_code ec;
    std::filesystem::rename(tmp, file, ec);
    if (ec) {
      std::filesystem::remove(tmp, ec);
      throw RuntimeFailure(file.string() + ": the checkpoint cannot be put in place (" + ec.message() + ")");
    }
  });
}

void read_checkpoint(const parallel::Comm& comm, Simulation& simulation, const std::filesystem::path& file,
                     const std::string& identity) {
  Simulation::State state;
  Header h{};
  std::uint64_t first = 0;
  parallel::collectively(comm, [&] {
    const FileDescriptor fd(::open(file.c_str(), O_RDONLY));
    if (!fd.valid()) throw InputError("checkpoint", system_error(file, "the checkpoint cannot be opened"));
    read_all(fd.get(), &h, sizeof h, 0, file);
    const Sample& sample = simulation.sample();
    if (std::memcmp(h.magic, magic, 6) != 0) {
      throw InputError("checkpoint", file.string() + ": not a rockperm checkpoint");
    }
    if (std::memcmp(h.magic, magic, sizeof magic) != 0) {
      // earlier or later: a later format was once called "written by an earlier build"
      const std::string format(h.magic + 6, 2), ours(magic + 6, 2);
      const bool later = format > ours;
      throw InputError("checkpoint", file.string() + ": written by " + (later ? "a later" : "an earlier") +
                                         " rockperm build (format " + format + ", this build reads " + ours +
                                         "); finish the run with that build" +
                                         (later ? " (or update this one)" : "") + ", or start it again");
    }
    if (h.q != d3q19::q || (h.population_bytes != 4 && h.population_bytes != 2) ||
        h.loop_bytes != sizeof(solve::SteadyStateLoop::State) || h.drive_bytes != sizeof(solve::SampleDrive)) {
      throw InputError("checkpoint", file.string() + ": written by a rockperm build of another layout");
    }
    const std::uint64_t slot_bytes = physics::storage_bytes(simulation.storage());
    if (h.population_bytes != slot_bytes) {
      const char* written = h.population_bytes == 2 ? "fp16" : "fp32";
      throw InputError("execution.storage", file.string() + ": written with " + written +
                                                " population storage, this run stores " +
                                                to_string(simulation.storage()) + "; resume it with storage " +
                                                written);
    }
    if (std::string(h.identity, sizeof h.identity) != identity.substr(0, sizeof h.identity)) {
      throw InputError("checkpoint", file.string() + ": belongs to another input, crop, labels or physics; "
                                                     "resume it with the configuration it was written with");
    }
    if (h.fluid_cells != sample.fluid || h.dims[0] != sample.dims.nx || h.dims[1] != sample.dims.ny ||
        h.dims[2] != sample.dims.nz) {
      throw InputError("checkpoint", file.string() + ": written for another lattice (" +
                                         std::to_string(h.fluid_cells) + " fluid cells)");
    }
    const RankLattice& r = simulation.rank_lattice();
    state.owned.resize(static_cast<std::size_t>(r.lattice.owned_end() - r.lattice.owned_begin()) * d3q19::q *
                       slot_bytes);
    first = first_global_cell(comm, r);
    const std::uint64_t offset = h.data_offset + first * d3q19::q * slot_bytes;
    read_all(fd.get(), state.owned.data(), state.owned.size(), offset, file);
    if (h.held_offset != 0) {
      state.held.resize(2 * static_cast<std::size_t>(r.lattice.owned_end() - r.lattice.owned_begin()));
      read_all(fd.get(), state.held.data(), state.held.size() * sizeof(float), h.held_offset + first * 2 * sizeof(float),
               file);
    }
    state.loop = h.loop;
    state.drive = h.drive;
    state.force = h.force;
    state.drive_adjustments = h.drive_adjustments;
  });
  {
    const std::uint64_t payload = comm.sum(
        payload_checksums(state, physics::storage_bytes(simulation.storage()), simulation.sample().fluid, first));
    if (header_checksum(h) + payload != h.checksum) {  // the same on every rank: the sums are reduced
      throw InputError("checkpoint", file.string() +
                                         ": the checkpoint is damaged (its contents do not match their checksum); "
                                         "delete it to start the run from the beginning, or put back an intact copy");
    }
  }
  simulation.restore(state);
}

}  // namespace rockperm::pipeline
