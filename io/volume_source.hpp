#pragma once
// The reader factory: segmented volumes as scanners and segmentation tools export them: raw binary (uint8 or
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

#include "io/slice_source.hpp"
#include "lib/base/names.hpp"
#include "lib/geometry/pore_mask.hpp"
#include "lib/geometry/volume.hpp"

namespace rockperm::io {

// A voxel size a scan can have, in micrometres: 0.1 nm to 10 cm (given, or read from a header).
inline constexpr double min_voxel_um = 1e-4, max_voxel_um = 1e5;

enum class VolumeFormat { auto_detect, raw, nrrd, mhd, tiff };
inline constexpr std::array<Named<VolumeFormat>, 5> volume_format_names{
    {{"auto", VolumeFormat::auto_detect}, {"raw", VolumeFormat::raw}, {"nrrd", VolumeFormat::nrrd},
     {"mhd", VolumeFormat::mhd}, {"tiff", VolumeFormat::tiff}}};

struct Crop {
  std::array<std::int64_t, 3> offset{0, 0, 0};
  std::array<std::int64_t, 3> size{0, 0, 0};  // 0: to the end of the volume
};

struct VolumeSpec {
  std::filesystem::path path;  // a file, or a directory of TIFF slices
  VolumeFormat format = VolumeFormat::auto_detect;
  // raw only (NRRD, MHD and TIFF say it themselves)
  geometry::Dims dims;
  int bytes_per_sample = 1;  // 1 (uint8) or 2 (uint16)
  bool big_endian = false;
  std::uint64_t header_bytes = 0;
  double voxel_size_um = 0;  // 0: take it from the header (NRRD/MHD); required otherwise
  Crop crop;
  std::uint64_t max_voxels = 0;  // refuse larger (cropped) volumes; 0: no limit (the fuzzer sets one)
  // When set, every file read (the path, an NRRD/MHD header's data file, each TIFF slice) must
  // resolve inside this folder, symbolic links followed: the service confines a job to its
  // upload or to the data root it named, so that a header cannot name another file.
  std::filesystem::path confine_to;
};

// Whether `path`, resolved (symbolic links followed), lies inside `root` (resolved too). False
// when either does not exist.
bool resolves_inside(const std::filesystem::path& path, const std::filesystem::path& root);

// The bytes this process may still allocate: the smaller of MemAvailable and what the cgroup's
// memory.max leaves (a Slurm job's or a container's limit); 0 when neither can be read.
std::uint64_t available_memory_bytes();

// Opens the source and reads its headers. Throws InputError naming the file and what is wrong.
std::unique_ptr<SliceSource> open_volume(const VolumeSpec& spec);

struct LoadedMask {
  geometry::PoreMask mask;   // the cropped region
  VolumeInfo info;           // of the whole volume
  Crop crop;                 // resolved: sizes filled in
  double voxel_size_um = 0;  // from the spec, else from the header
  std::vector<std::uint64_t> plane_pore;  // pore (and grey) voxels of each plane read, counted as it was read
  std::uint64_t pore(std::size_t planes) const;  // of the first `planes` of them
};

// The crop with its sizes filled in (0: to the end of the volume of `dims`). Throws InputError
// (field sample.volume.crop) naming `file` when it leaves the volume.
Crop resolve_crop(const Crop& crop, const geometry::Dims& dims, const std::string& file);

// Streams the volume through `pore_labels` into a mask. Throws InputError when the crop lies
// outside the volume, the voxel size is unknown, or no voxel is pore.
// `grey`: labels whose voxels are grey phases (PoreMask codes).
LoadedMask load_pore_mask(const VolumeSpec& spec, const geometry::LabelSelection& pore_labels,
                          const std::vector<geometry::GreyPhase>& grey = {});
// Some planes of it: `planes` (z of the cropped volume, in the order the mask holds them; empty:
// every plane), for a rank that prepares its own slab. The same checks, except that a part may hold no pore voxel
// (the caller checks the whole: no_voxel_selected); the memory check is the part's.
LoadedMask load_pore_planes(const VolumeSpec& spec, const geometry::LabelSelection& pore_labels,
                            const std::vector<geometry::GreyPhase>& grey, std::vector<std::int64_t> planes);
// Throws the InputError of a volume whose labels select no voxel.
[[noreturn]] void no_voxel_selected(const VolumeSpec& spec, const geometry::LabelSelection& pore_labels, bool grey);

}  // namespace rockperm::io
