#pragma once
// Output files that are either whole or absent: written to a temporary name in the same folder
// (unique per process and call), every write and close checked, flushed to disk, then renamed.
// A failed temporary is deleted, never renamed; the error names the final file.
#include <filesystem>
#include <string_view>

namespace rockperm::io {

// Throws OutputError naming `path` on any failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// A unique temporary name next to `path`, for writers that produce the file themselves.
std::filesystem::path temporary_name(const std::filesystem::path& path);
// fsync `tmp` and rename it to `path`; on failure removes `tmp` and throws OutputError.
void commit_file(const std::filesystem::path& tmp, const std::filesystem::path& path);
// Removes a temporary that will not be committed (a failed write).
void discard_temporary(const std::filesystem::path& tmp);
// Unlinks every temporary being written now; async-signal-safe, for a handler that ends the
// process (a second Ctrl-C during the field write left fields.pvti.tmp.<pid>.2 behind).
void remove_temporaries_now();

// Creates the run directory (and parents); throws InputError when that is impossible.
void ensure_directory(const std::filesystem::path& dir);

}  // namespace rockperm::io
