#include "io/atomic_file.hpp"

#include <fstream>
#include <unistd.h>

#include "lib/base/error.hpp"

namespace rockperm::io {

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path.string() + ": cannot be written; check that the folder exists and is writable");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(tmp);
      throw InputError(path.string() + ": writing failed (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw InputError(path.string() + ": cannot replace the file (" + ec.message() + ")");
  }
}

void ensure_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw InputError("output.dir", dir.string() + ": the directory cannot be created (" + ec.message() + ")");
  }
}

}  // namespace rockperm::io
