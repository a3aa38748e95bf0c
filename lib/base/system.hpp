#pragma once
// Small facts of the running system, and a stream's whole text: one definition each for the
// provenance, the campaign, the service and the tensor (issue 35, "each rule once").
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <istream>
#include <iterator>
#include <cstdlib>
#include <string>
#include <utility>

namespace rockperm {

// Now in UTC, ISO 8601 to the second: 2026-11-26T01:56:17Z.
inline std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

// This host's name (empty where the system gives none).
// The host's name; ROCKPERM_HOST_NAME, where set, stands in for it: one machine playing several
// hosts in tests (each rank given its own through the launcher: mpirun -x), as ranks started in
// UTS namespaces of their own (unshare --uts) do without it.
inline std::string host_name() {
  if (const char* fake = std::getenv("ROCKPERM_HOST_NAME"); fake && *fake) return fake;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

// The most this process has held in memory so far (its peak resident set), in bytes.
inline double peak_resident_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0.0;
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux: kilobytes
}

// An open file descriptor, closed when its owner goes (on every path, exceptions included). Where a
// close can lose written data, call close() and check it.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  ~FileDescriptor() { (void)close(); }
  FileDescriptor(FileDescriptor&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& o) noexcept {
    if (this != &o) {
      (void)close();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Closes it now; false where the close reported an error (errno tells which).
  bool close() {
    const int fd = std::exchange(fd_, -1);
    return fd < 0 || ::close(fd) == 0;
  }

 private:
  int fd_;
};

// Bytes in the unit that shows them best: "312 kB", "4.2 MB", "1.25 GB" (powers of 1000).
inline std::string size_text(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (u < 5 && bytes >= 1000.0) {
    bytes /= 1000.0;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : (bytes < 10 ? "%.2f %s" : "%.1f %s"), bytes, units[u]);
  return text;
}

// Everything left in `in`, as it is.
inline std::string read_all_text(std::istream& in) {
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace rockperm
