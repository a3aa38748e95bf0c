#include "io/volume_source.hpp"

#include <algorithm>
#include <array>
#include <sstream>

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


}  // namespace

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
  if (!std::filesystem::exists(spec.path, ec)) {
    throw InputError("sample.volume.path", name + ": no such file or directory");
  }
  try {
    switch (format) {
      case VolumeFormat::tiff:
        return std::filesystem::is_directory(spec.path, ec) ? open_tiff_directory(spec.path)
                                                            : open_multipage_tiff(spec.path);
      case VolumeFormat::nrrd: return open_raw(parse_nrrd(spec.path));
      case VolumeFormat::mhd: return open_raw(parse_mhd(spec.path));
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

LoadedMask load_pore_mask(const VolumeSpec& spec, const LabelSelection& pore_labels) {
  auto source = open_volume(spec);
  LoadedMask out;
  out.info = source->info();
  const Dims& d = out.info.dims;
  const std::string name = spec.path.string();
  if (out.info.format != "raw" && spec.dims.nx != 0 && !(spec.dims == d)) {
    throw InputError("sample.volume.dims", name + ": holds " + d.str() + " voxels but the dimensions given are " +
                                               spec.dims.str() + "; leave them out (the file says its size) or correct them");
  }
  out.voxel_size_um = spec.voxel_size_um > 0 ? spec.voxel_size_um : out.info.voxel_size_um;
  if (!(out.voxel_size_um > 0)) {
    throw InputError("sample.volume.voxel_size_um", name + ": the voxel size is unknown; give it in micrometres");
  }
  out.crop = spec.crop;
  for (int a = 0; a < 3; ++a) {
    if (out.crop.size[a] == 0) out.crop.size[a] = d[a] - out.crop.offset[a];
    if (out.crop.offset[a] >= d[a] || out.crop.size[a] <= 0 || out.crop.offset[a] + out.crop.size[a] > d[a]) {
      throw InputError(name + ": the crop along " + std::string(1, "xyz"[a]) + " (offset " +
                       std::to_string(spec.crop.offset[a]) + ", size " + std::to_string(spec.crop.size[a]) +
                       ") leaves the volume of " + std::to_string(d[a]) + " voxels");
    }
  }
  const Dims cropped{out.crop.size[0], out.crop.size[1], out.crop.size[2]};
  if (spec.max_voxels != 0 && cropped.voxels() > spec.max_voxels) {
    throw InputError(name + ": " + cropped.str() + " voxels exceed the limit of " + std::to_string(spec.max_voxels));
  }
  std::vector<std::uint8_t> lut(65536);
  for (int v = 0; v < 65536; ++v) lut[v] = pore_labels.contains(v) ? 1 : 0;
  out.mask.dims = cropped;
  out.mask.pore.resize(cropped.voxels());
  std::vector<std::uint16_t> slice;
  const std::uint64_t plane = static_cast<std::uint64_t>(cropped.nx) * cropped.ny;
  std::uint64_t pore = 0;
  for (std::int64_t z = 0; z < cropped.nz; ++z) {
    source->read_slice(out.crop.offset[2] + z, out.crop.offset[0], out.crop.offset[1], cropped.nx, cropped.ny, slice);
    std::uint8_t* dst = out.mask.pore.data() + plane * z;
    for (std::uint64_t k = 0; k < plane; ++k) {
      dst[k] = lut[slice[k]];
      pore += dst[k];
    }
  }
  if (pore == 0) {
    throw InputError("sample.pore_labels", name + ": pore labels " + pore_labels.str() +
                                               " select no voxel; check them against the segmentation");
  }
  return out;
}

}  // namespace rockperm::io
