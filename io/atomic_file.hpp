#pragma once
#include <filesystem>
#include <string_view>

namespace rockperm::io {

// Writes `content` to `path` through a temporary file in the same folder and a rename, so a
// crash never leaves a half-written file. Throws InputError when the folder is not writable.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Creates the run directory (and parents); throws InputError when that is impossible.
void ensure_directory(const std::filesystem::path& dir);

}  // namespace rockperm::io
