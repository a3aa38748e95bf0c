#pragma once
// Segmented volumes as scanners and segmentation tools export them: raw binary (uint8 or
// uint16, either byte order, with a header to skip), raw with an NRRD or MetaImage (.mhd)
// header, a directory of 2-D TIFF slices, or one multi-page TIFF. Every source is read slice by
// slice through the label map straight into the pore mask, so peak memory is the mask plus
// one slice, and the crop is applied before anything of full size is allocated.
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "lib/geometry/pore_mask.hpp"
#include "lib/geometry/volume.hpp"

namespace rockperm::io {

enum class VolumeFormat { auto_detect, raw, nrrd, mhd, tiff };

struct Crop {
  std::array<std::int64_t, 3> offset{0, 0, 0};
  std::array<std::int64_t, 3> size{0, 0, 0};  // 0: to the end of the volume
};

struct VolumeSpec {
  std::filesystem::path path;  // a file, or a directory of TIFF slices
  VolumeFormat format = VolumeFormat::auto_detect;
  // raw only (NRRD, MHD and TIFF say it themselves)
  Dims dims;
  int bytes_per_sample = 1;  // 1 (uint8) or 2 (uint16)
  bool big_endian = false;
  std::uint64_t header_bytes = 0;
  double voxel_size_um = 0;  // 0: take it from the header (NRRD/MHD); required otherwise
  Crop crop;
  std::uint64_t max_voxels = 0;  // refuse larger (cropped) volumes; 0: no limit (the fuzzer sets one)
};

// What a source holds, read from its headers without reading the data.
struct VolumeInfo {
  std::string format;  // "raw", "nrrd", "mhd", "tiff slices", "multi-page tiff"
  Dims dims;           // of the whole volume
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

// Opens the source and reads its headers. Throws InputError naming the file and what is wrong.
std::unique_ptr<SliceSource> open_volume(const VolumeSpec& spec);

struct LoadedMask {
  PoreMask mask;             // the cropped region
  VolumeInfo info;           // of the whole volume
  Crop crop;                 // resolved: sizes filled in
  double voxel_size_um = 0;  // from the spec, else from the header
};

// Streams the volume through `pore_labels` into a mask. Throws InputError when the crop lies
// outside the volume, the voxel size is unknown, or no voxel is pore.
LoadedMask load_pore_mask(const VolumeSpec& spec, const LabelSelection& pore_labels);

// "slice_9.tif" before "slice_10.tif".
bool natural_less(const std::string& a, const std::string& b);

}  // namespace rockperm::io
