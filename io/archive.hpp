#pragma once
// Archives through libarchive: scans uploaded as a zip or tar of TIFF slices are unpacked with
// limits (a zip bomb is refused while it is read, not after it filled the disk), and a run's
// fields are handed out as one zip.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rockperm::io {

struct UnpackLimits {
  std::uint64_t max_bytes = 0;  // uncompressed, all entries together
  std::uint64_t max_files = 0;  // regular files
};

// Whether `name` ends like an archive this reader opens (.zip .tar .tar.gz .tgz .tar.xz .tar.bz2 .tar.zst).
bool is_archive_name(const std::filesystem::path& name);

// Unpacks the regular files of `archive` (zip or tar, compressed or not) into `dir`, each under
// its base name (folders inside the archive are flattened; names are checked as
// safe_file_name does). Links, devices and names that repeat are refused. Stops and throws
// InputError naming the archive as soon as a limit is passed; what was unpacked is then removed.
// Returns the files written.
std::vector<std::filesystem::path> unpack_archive(const std::filesystem::path& archive, const std::filesystem::path& dir,
                                                  const UnpackLimits& limits);

// `files` into a zip at `zip` (deflate), each under its base name; whole or absent
// (written to a temporary and renamed). Throws OutputError.
void write_zip(const std::filesystem::path& zip, const std::vector<std::filesystem::path>& files);

// A file name of letters, digits, '.', '_' and '-' (not "." or ".."), at most 200 characters.
bool safe_file_name(const std::string& name);

}  // namespace rockperm::io
