#pragma once
// Raw binary volumes and the NRRD and MetaImage headers that describe them.
#include <filesystem>
#include <memory>

#include "io/slice_source.hpp"

namespace rockperm::io {

struct RawLayout {
  std::filesystem::path data_file;
  geometry::Dims dims;
  int bytes_per_sample = 1;
  bool big_endian = false;
  std::uint64_t header_bytes = 0;
  double voxel_size_um = 0;
  std::string format = "raw";
};

std::unique_ptr<SliceSource> open_raw(const RawLayout& layout);

// Parse a header (attached NRRD data follows the header's blank line). Throw InputError.
RawLayout parse_nrrd(const std::filesystem::path& file);
RawLayout parse_mhd(const std::filesystem::path& file);

}  // namespace rockperm::io
