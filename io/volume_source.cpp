#include "io/volume_source.hpp"


#include <algorithm>
#include <exception>
#include <array>
#include <fstream>
#include <sstream>
#include <thread>

#include "io/raw_source.hpp"
#include "io/tiff_source.hpp"
#include "lib/base/error.hpp"

namespace rockperm::io {

namespace {

std::string lower_extension(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

VolumeFormat detect(const VolumeSpec& spec) {
  std::error_code ec;
  if (std::filesystem::is_directory(spec.path, ec)) return VolumeFormat::tiff;
  const std::string ext = lower_extension(spec.path);
  if (ext == ".nrrd" || ext == ".nhdr") return VolumeFormat::nrrd;
  if (ext == ".mhd" || ext == ".mha") return VolumeFormat::mhd;
  if (ext == ".tif" || ext == ".tiff") return VolumeFormat::tiff;
  return VolumeFormat::raw;
}


// Refuses what is not a regular file or a directory (a named pipe would block the read forever,
// a device would never end), naming `what` and the file.
void require_regular(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || status.type() == std::filesystem::file_type::not_found) {
    std::error_code lec;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, lec))) {
      throw InputError("sample.volume.path", path.string() + ": a symbolic link to a file that does not exist" + what);
    }
    throw InputError("sample.volume.path", path.string() + ": no such file or directory" + what);
  }
  if (status.type() != std::filesystem::file_type::regular && status.type() != std::filesystem::file_type::directory) {
    throw InputError("sample.volume.path", path.string() +
                                               ": not a regular file (a pipe, socket or device)" + what +
                                               "; rockperm reads volumes from files: save it to one first");
  }
}

void confine(const std::filesystem::path& path, const std::filesystem::path& root, const std::string& what) {
  if (root.empty()) return;
  if (!resolves_inside(path, root)) {
    throw InputError("sample.volume.path", what + " " + path.filename().string() +
                                               " lies outside the folder of the scan; a header may only name data "
                                               "files beside it, in the same upload or data root");
  }
}

std::uint64_t read_number_file(const char* path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return 0;
  try {
    return std::stoull(word);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

bool resolves_inside(const std::filesystem::path& path, const std::filesystem::path& root) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::canonical(path, ec);
  if (ec) return false;
  const std::filesystem::path r = std::filesystem::canonical(root, ec);
  if (ec) return false;
  const auto m = std::mismatch(r.begin(), r.end(), p.begin(), p.end());
  return m.first == r.end();
}

std::uint64_t available_memory_bytes() {
  std::uint64_t available = 0;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t value = 0;
  std::string unit;
  while (meminfo >> key >> value) {
    std::getline(meminfo, unit);
    if (key == "MemAvailable:") available = value * 1024;
  }
  const std::uint64_t limit = read_number_file("/sys/fs/cgroup/memory.max");
  if (limit != 0) {
    const std::uint64_t used = read_number_file("/sys/fs/cgroup/memory.current");
    const std::uint64_t left = limit > used ? limit - used : 0;
    available = available == 0 ? left : std::min(available, left);
  }
  return available;
}

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      std::string na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size() - 1));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size() - 1));
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::unique_ptr<SliceSource> open_volume(const VolumeSpec& spec) {
  const VolumeFormat format = spec.format == VolumeFormat::auto_detect ? detect(spec) : spec.format;
  const std::string name = spec.path.string();
  std::error_code ec;
  require_regular(spec.path, "");
  confine(spec.path, spec.confine_to, "the scan");
  // a header's data file: a regular file beside it (in the confined folder, when there is one)
  // Confined (a service's job), a data file that is missing, not a regular file or outside the
  // folder gets one answer: three would tell a client what exists outside it, and of what kind.
  const auto checked = [&](RawLayout l) {
    if (!spec.confine_to.empty()) {
      std::error_code fec;
      if (!resolves_inside(l.data_file, spec.confine_to) || !std::filesystem::is_regular_file(l.data_file, fec)) {
        throw InputError("sample.volume.path",
                         "the header " + spec.path.filename().string() + " names a data file (" +
                             l.data_file.filename().string() +
                             ") that is missing, not a regular file, or outside the folder of the scan (refused "
                             "alike); a header may only name data files beside it, in the same upload or data root");
      }
      return l;
    }
    require_regular(l.data_file, " (the data file named by the header " + spec.path.filename().string() + ")");
    return l;
  };
  try {
    switch (format) {
      case VolumeFormat::tiff:
        if (std::filesystem::is_directory(spec.path, ec)) {
          if (!spec.confine_to.empty()) {
            for (const auto& slice : list_tiff_slices(spec.path)) confine(slice, spec.confine_to, "the slice");
          }
          return open_tiff_directory(spec.path);
        }
        return open_multipage_tiff(spec.path);
      case VolumeFormat::nrrd: return open_raw(checked(parse_nrrd(spec.path)));
      case VolumeFormat::mhd: return open_raw(checked(parse_mhd(spec.path)));
      case VolumeFormat::raw:
      case VolumeFormat::auto_detect: break;
    }
  } catch (const std::logic_error& e) {  // a malformed number in a header
    throw InputError(name + ": malformed header (" + e.what() + ")");
  }
  if (spec.dims.nx == 0) throw InputError("sample.volume.dims", name + ": a raw volume needs its dimensions (NX NY NZ)");
  RawLayout l;
  l.data_file = spec.path;
  l.dims = spec.dims;
  l.bytes_per_sample = spec.bytes_per_sample;
  l.big_endian = spec.big_endian;
  l.header_bytes = spec.header_bytes;
  return open_raw(l);
}

Crop resolve_crop(const Crop& crop, const geometry::Dims& d, const std::string& file) {
  Crop out = crop;
  for (int a = 0; a < 3; ++a) {
    if (out.size[a] == 0) out.size[a] = d[a] - out.offset[a];
    if (out.offset[a] >= d[a] || out.size[a] <= 0 || out.offset[a] + out.size[a] > d[a]) {
      throw InputError("sample.volume.crop", file + ": the crop along " + std::string(1, "xyz"[a]) + " (offset " +
                                                 std::to_string(crop.offset[a]) + ", size " +
                                                 std::to_string(crop.size[a]) + ") leaves the volume of " +
                                                 std::to_string(d[a]) + " voxels");
    }
  }
  return out;
}

LoadedMask load_pore_planes(const VolumeSpec& spec, const geometry::LabelSelection& pore_labels,
                            const std::vector<geometry::GreyPhase>& grey, std::vector<std::int64_t> planes) {
  auto source = open_volume(spec);
  LoadedMask out;
  out.info = source->info();
  const geometry::Dims& d = out.info.dims;
  const std::string name = spec.path.string();
  if (out.info.format != "raw" && spec.dims.nx != 0 && !(spec.dims == d)) {
    throw InputError("sample.volume.dims", name + ": holds " + d.str() + " voxels but the dimensions given are " +
                                               spec.dims.str() + "; leave them out (the file says its size) or correct them");
  }
  out.voxel_size_um = spec.voxel_size_um > 0 ? spec.voxel_size_um : out.info.voxel_size_um;
  if (!(out.voxel_size_um > 0)) {
    throw InputError("sample.volume.voxel_size_um", name + ": the voxel size is unknown; give it in micrometres");
  }
  if (!(out.voxel_size_um >= min_voxel_um && out.voxel_size_um <= max_voxel_um)) {
    throw InputError("sample.volume.voxel_size_um",
                     name + ": the header's voxel size of " + std::to_string(out.voxel_size_um) +
                         " micrometres is not a scan's (0.1 nm to 10 cm); give the voxel size in micrometres");
  }
  out.crop = resolve_crop(spec.crop, d, name);
  const geometry::Dims cropped{out.crop.size[0], out.crop.size[1], out.crop.size[2]};
  if (spec.max_voxels != 0 && cropped.voxels() > spec.max_voxels) {
    throw InputError(name + ": " + cropped.str() + " voxels exceed the limit of " + std::to_string(spec.max_voxels));
  }
  if (planes.empty()) {  // the whole sample
    planes.resize(static_cast<std::size_t>(cropped.nz));
    for (std::size_t z = 0; z < planes.size(); ++z) planes[z] = static_cast<std::int64_t>(z);
  }
  const geometry::Dims part{cropped.nx, cropped.ny, static_cast<std::int64_t>(planes.size())};
  for (const std::int64_t z : planes) {
    if (z < 0 || z >= cropped.nz) throw InputError("internal: plane " + std::to_string(z) + " outside the sample");
  }
  // the mask takes a byte a voxel, and what comes after it (percolation, the lattice) several
  // more: refuse before allocating what the machine (or the job's memory limit) cannot hold
  const std::uint64_t available = available_memory_bytes();
  if (available != 0 && part.voxels() > available) {
    const bool whole = part.nz == cropped.nz;
    throw InputError("sample.volume.path",
                     name + ": " + (whole ? cropped.str() + " voxels need " : part.str() + " voxels of it (this rank's planes) need ") +
                         std::to_string(part.voxels() >> 20) + " MiB for the pore mask alone, but this process may allocate " +
                         std::to_string(available >> 20) + " MiB; crop it (input.crop_offset, input.crop_size), run on a node with more memory" +
                         (whole ? std::string() : " or on more ranks"));
  }
  const std::vector<std::uint8_t> lut = geometry::label_codes(pore_labels, grey);
  out.mask.dims = part;
  out.mask.pore.resize(part.voxels());
  const std::uint64_t plane = static_cast<std::uint64_t>(cropped.nx) * cropped.ny;
  // planes on the threads, each thread with a reader of its own (a raw slice is one read, a TIFF
  // page is decoded where it is read); a failure is the lowest failing plane's, as one reader's
  const auto n = static_cast<std::int64_t>(planes.size());
  std::vector<std::exception_ptr> failed(planes.size());
  out.plane_pore.assign(planes.size(), 0);
  // the calling thread keeps the reader it has; no OpenMP call here, so the readers also build
  // (and run on one thread) without the OpenMP runtime, as the fuzzing harness builds them
  const std::thread::id caller = std::this_thread::get_id();
#pragma omp parallel if (n > 1)
  {
    std::unique_ptr<SliceSource> own;
    std::vector<std::uint16_t> slice;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      try {
        if (!own && std::this_thread::get_id() != caller) own = open_volume(spec);
        SliceSource& reader = own ? *own : *source;
        reader.read_slice(out.crop.offset[2] + planes[static_cast<std::size_t>(i)], out.crop.offset[0],
                          out.crop.offset[1], cropped.nx, cropped.ny, slice);
        std::uint8_t* dst = out.mask.pore.data() + plane * static_cast<std::uint64_t>(i);
        std::uint64_t pore = 0;
        for (std::uint64_t k = 0; k < plane; ++k) {
          dst[k] = lut[slice[k]];
          pore += dst[k] != geometry::PoreMask::solid;
        }
        out.plane_pore[static_cast<std::size_t>(i)] = pore;
      } catch (...) {
        failed[static_cast<std::size_t>(i)] = std::current_exception();
      }
    }
  }
  for (const auto& f : failed)
    if (f) std::rethrow_exception(f);
  return out;
}

std::uint64_t LoadedMask::pore(std::size_t planes) const {
  std::uint64_t n = 0;
  for (std::size_t z = 0; z < planes && z < plane_pore.size(); ++z) n += plane_pore[z];
  return n;
}

void no_voxel_selected(const VolumeSpec& spec, const geometry::LabelSelection& pore_labels, bool grey) {
  throw InputError("sample.pore_labels", spec.path.string() + ": pore labels " + pore_labels.str() +
                                             (grey ? " and grey labels" : "") +
                                             " select no voxel; check them against the segmentation");
}

LoadedMask load_pore_mask(const VolumeSpec& spec, const geometry::LabelSelection& pore_labels,
                          const std::vector<geometry::GreyPhase>& grey) {
  LoadedMask out = load_pore_planes(spec, pore_labels, grey, {});
  if (out.pore(out.plane_pore.size()) == 0) no_voxel_selected(spec, pore_labels, !grey.empty());
  return out;
}

}  // namespace rockperm::io
