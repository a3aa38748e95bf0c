#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "lib/base/error.hpp"

namespace rockperm::io {

namespace {
std::string reason() { return std::strerror(errno); }

// The temporaries being written, for remove_temporaries_now() in a signal handler: fixed slots of
// plain characters (no allocation there), each free (0), being filled (1) or live (2).
constexpr int temporary_slots = 16;
struct Slot {
  std::atomic<int> state{0};
  char path[4096] = {};
};
Slot slots[temporary_slots];

void remember(const std::filesystem::path& tmp) {
  const std::string& text = tmp.native();
  if (text.size() >= sizeof slots[0].path) return;
  for (Slot& s : slots) {
    int free = 0;
    if (!s.state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(s.path, text.c_str(), text.size() + 1);
    s.state.store(2);
    return;
  }  // all taken: this one is not removed by a signal (a later run's directory check removes it)
}

void forget(const std::filesystem::path& tmp) {
  for (Slot& s : slots) {
    if (s.state.load() == 2 && tmp.native() == s.path) {
      s.state.store(0);
      return;
    }
  }
}

// Forgets `tmp` when the writer returns, committed or not (on every path, exceptions included).
struct Forgotten {
  const std::filesystem::path& tmp;
  ~Forgotten() { forget(tmp); }
};
}  // namespace

std::filesystem::path temporary_name(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  remember(tmp);
  return tmp;
}

void discard_temporary(const std::filesystem::path& tmp) {
  std::error_code ec;
  std::filesystem::remove(tmp, ec);
  forget(tmp);
}

void remove_temporaries_now() {
  for (Slot& s : slots) {
    if (s.state.load() == 2) ::unlink(s.path);
  }
}

void commit_file(const std::filesystem::path& tmp, const std::filesystem::path& path) {
  const Forgotten forgotten{tmp};
  std::error_code ec;
  const int fd = ::open(tmp.c_str(), O_RDONLY);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  const std::string why = synced ? std::string() : reason();
  if (fd >= 0) ::close(fd);
  if (!synced) {
    std::filesystem::remove(tmp, ec);
    throw OutputError(path.string() + ": flushing to disk failed (" + why + ")");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw OutputError(path.string() + ": cannot replace the file (" + ec.message() + ")");
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path tmp = temporary_name(path);
  const Forgotten forgotten{tmp};
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) throw OutputError(path.string() + ": cannot be written (" + reason() + ")");
  const char* p = content.data();
  std::size_t left = content.size();
  std::string failure;
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failure = n < 0 ? reason() : std::string("no space written");
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (failure.empty() && ::fsync(fd) != 0) failure = reason();
  if (::close(fd) != 0 && failure.empty()) failure = reason();
  if (!failure.empty()) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);  // never renamed: no partial file under the final name
    throw OutputError(path.string() + ": writing failed (" + failure + ")");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw OutputError(path.string() + ": cannot replace the file (" + ec.message() + ")");
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
