#pragma once
// The interface every volume reader implements (raw, NRRD/MHD through raw, TIFF): what the
// source holds, read from its headers, and one z-slice at a time. The factory that picks a
// reader for a file is io/volume_source.hpp.
#include <cstdint>
#include <string>
#include <vector>

#include "lib/geometry/volume.hpp"

namespace rockperm::io {

// What a source holds, read from its headers without reading the data.
struct VolumeInfo {
  std::string format;  // "raw", "nrrd", "mhd", "tiff slices", "multi-page tiff"
  geometry::Dims dims;           // of the whole volume
  int bytes_per_sample = 1;
  double voxel_size_um = 0;  // 0 when the source does not say
};

// One z-slice at a time, cropped in x and y.
class SliceSource {
 public:
  virtual ~SliceSource() = default;
  virtual const VolumeInfo& info() const = 0;
  // The samples of plane z within [x0, x0+sx) x [y0, y0+sy), x fastest, widened to uint16.
  virtual void read_slice(std::int64_t z, std::int64_t x0, std::int64_t y0, std::int64_t sx, std::int64_t sy,
                          std::vector<std::uint16_t>& out) = 0;
};

// "slice_9.tif" before "slice_10.tif".
bool natural_less(const std::string& a, const std::string& b);

}  // namespace rockperm::io
