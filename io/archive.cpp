#include "io/archive.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <memory>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>

#include "io/atomic_file.hpp"
#include "lib/base/error.hpp"

namespace rockperm::io {

namespace fs = std::filesystem;

namespace {

struct ReaderDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriterDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// libarchive's message for the last error, which may be none (a null pointer).
std::string why(archive* a) {
  const char* text = archive_error_string(a);
  return text ? text : "unknown error";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

bool safe_file_name(const std::string& name) {
  return !name.empty() && name.size() <= 200 && name != "." && name != ".." &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '.' || c == '_' || c == '-';
         });
}

bool is_archive_name(const fs::path& name) {
  const std::string n = lower(name.filename().string());
  for (const char* tail : {".zip", ".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar.zst"}) {
    if (ends_with(n, tail)) return true;
  }
  return false;
}

std::vector<fs::path> unpack_archive(const fs::path& path, const fs::path& dir, const UnpackLimits& limits) {
  const std::string name = path.filename().string();
  std::unique_ptr<archive, ReaderDeleter> a(archive_read_new());
  archive_read_support_filter_all(a.get());
  archive_read_support_format_zip(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_gnutar(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
    throw InputError(name + ": not a zip or tar archive that can be read (" + why(a.get()) + ")");
  }
  std::vector<fs::path> written;
  std::set<std::string> names;
  std::uint64_t total = 0;
  const auto remove_written = [&] {
    std::error_code ec;
    for (const fs::path& f : written) fs::remove(f, ec);
  };
  const auto fail = [&](const std::string& why) {
    remove_written();
    throw InputError(name + ": " + why);
  };
  const auto cannot_write = [&](const fs::path& path) {  // the server's disk, not the archive
    remove_written();
    throw OutputError("cannot write " + path.string() + " (" + std::strerror(errno) + ")");
  };
  std::string buffer(1 << 16, '\0');
  for (;;) {
    archive_entry* entry = nullptr;
    const int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) fail(std::string("cannot be read (") + why(a.get()) + ")");
    const char* entry_path = archive_entry_pathname(entry);
    const std::string inner = entry_path ? entry_path : "";
    const auto type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) continue;
    if (type != AE_IFREG || archive_entry_hardlink(entry) != nullptr) {
      fail("'" + inner + "' is not a plain file (links and devices are refused)");
    }
    const std::string base = fs::path(inner).filename().string();
    if (base.rfind("._", 0) == 0 || inner.rfind("__MACOSX/", 0) == 0) continue;  // macOS resource forks
    if (!safe_file_name(base)) fail("'" + inner + "': file names of letters, digits, '.', '_' and '-' only");
    if (!names.insert(base).second) fail("'" + base + "' is in the archive twice (folders are flattened)");
    if (limits.max_files != 0 && names.size() > limits.max_files) {
      fail("more than " + std::to_string(limits.max_files) + " files");
    }
    if (archive_entry_size_is_set(entry) && limits.max_bytes != 0 &&
        total + static_cast<std::uint64_t>(std::max<la_int64_t>(0, archive_entry_size(entry))) > limits.max_bytes) {
      fail("unpacks to more than " + std::to_string(limits.max_bytes >> 20) + " MB (the service's max_unpacked_mb)");
    }
    const fs::path out_path = dir / base;
    written.push_back(out_path);
    std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
    if (!out) cannot_write(out_path);
    for (;;) {
      const la_ssize_t n = archive_read_data(a.get(), buffer.data(), buffer.size());
      if (n == 0) break;
      if (n < 0) fail("'" + inner + "' cannot be unpacked (" + why(a.get()) + ")");
      total += static_cast<std::uint64_t>(n);
      if (limits.max_bytes != 0 && total > limits.max_bytes) {  // sizes in headers can lie: count what comes out
        fail("unpacks to more than " + std::to_string(limits.max_bytes >> 20) + " MB (the service's max_unpacked_mb)");
      }
      out.write(buffer.data(), n);
    }
    out.close();
    if (!out) cannot_write(out_path);
  }
  if (written.empty()) fail("holds no file");
  return written;
}

void write_zip(const fs::path& zip, const std::vector<fs::path>& files) {
  const fs::path tmp = temporary_name(zip);
  std::unique_ptr<archive, WriterDeleter> a(archive_write_new());
  const auto fail = [&](const std::string& why) {
    discard_temporary(tmp);
    throw OutputError(zip.string() + ": " + why);
  };
  if (archive_write_set_format_zip(a.get()) != ARCHIVE_OK ||
      archive_write_open_filename(a.get(), tmp.c_str()) != ARCHIVE_OK) {
    fail(std::string("cannot be written (") + why(a.get()) + ")");
  }
  std::string buffer(1 << 16, '\0');
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) fail("cannot read " + file.string());
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> entry(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname(entry.get(), file.filename().c_str());
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(fs::file_size(file)));
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    if (archive_write_header(a.get(), entry.get()) != ARCHIVE_OK) {
      fail(std::string("cannot add ") + file.filename().string() + " (" + why(a.get()) + ")");
    }
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      const std::streamsize n = in.gcount();
      if (n > 0 && archive_write_data(a.get(), buffer.data(), static_cast<std::size_t>(n)) != n) {
        fail(std::string("cannot add ") + file.filename().string() + " (" + why(a.get()) + ")");
      }
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) fail(std::string("cannot be closed (") + why(a.get()) + ")");
  a.reset();
  commit_file(tmp, zip);
}

}  // namespace rockperm::io
