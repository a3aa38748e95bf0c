#pragma once
// What the service makes of an uploaded scan, before anything is queued: archives unpacked
// within limits, the scan among the files found, and its header read so that a file that cannot
// be read, or a volume larger than the service takes (a TIFF bomb), is refused at submission.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/archive.hpp"
#include "io/volume_source.hpp"

namespace rockperm::app::service {

// The name an uploaded file is stored under: its base name, with every character other than
// letters, digits, '.', '_' and '-' replaced by '_'. Throws InputError for an empty name.
std::string upload_file_name(const std::string& given);

// The scan among `files` (all in `dir`): the one NRRD (.nrrd/.nhdr) or MetaImage (.mhd/.mha)
// header, else the one TIFF (multi-page), else `dir` when every file is a TIFF slice, else the
// one file (raw). Throws InputError saying what was found when that does not pick one scan.
std::filesystem::path pick_scan(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& files);

// Unpacks the archives among `files` (all in `dir`; each archive removed once unpacked) and
// returns pick_scan of what is then there.
std::filesystem::path unpack_upload(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& files,
                                    const io::UnpackLimits& limits);

// Opens `volume` as the run will (headers only) and refuses a volume of more than
// `max_voxels` after its crop (0: no limit). Throws InputError naming the file.
void check_scan(const io::VolumeSpec& volume, std::uint64_t max_voxels);

}  // namespace rockperm::app::service
