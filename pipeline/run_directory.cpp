#include "pipeline/run_directory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "io/sha256.hpp"
#include "lib/base/error.hpp"
#include "lib/base/system.hpp"
#include "pipeline/checkpoint.hpp"

namespace rockperm::pipeline {

namespace {

// What a run writes into its directory (and leftovers of interrupted writes).
bool is_output(const std::string& name) {
  const auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  return starts("report.json") || starts("report.csv") || starts("report.html") || starts("config.ini") ||
         starts("fields.pvti") ||
         (starts("fields_") && name.find(".vti") != std::string::npos) || starts(checkpoint_name);
}

void remove_outputs(const std::filesystem::path& dir, bool keep_checkpoint_and_config) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !is_output(name)) continue;  // only files a run wrote
    if (keep_checkpoint_and_config && (name == checkpoint_name || name == "config.ini")) continue;
    std::error_code ec;
    std::filesystem::remove(entry.path(), ec);
    if (ec) throw InputError("output.dir", entry.path().string() + ": cannot be removed (" + ec.message() + ")");
  }
}

}  // namespace

RunDirectory::RunDirectory(const parallel::Comm& comm, const std::filesystem::path& dir, DirectoryUse use) : dir_(dir) {
  const auto release = [this] {  // before the other ranks hear of the failure
    if (lock_.valid() && !lock_path_.empty()) ::unlink(lock_path_.c_str());
    (void)lock_.close();
  };
  collectively(comm, [&] {
    if (!comm.root()) return;
    try {
      take(dir, use);
    } catch (...) {
      release();
      throw;
    }
  });
}

void RunDirectory::take(const std::filesystem::path& dir, DirectoryUse use) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw InputError("output.dir", dir.string() + ": the run directory cannot be created (" +
                                       (ec ? ec.message() : std::string("a file of that name exists")) + ")");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw InputError("output.dir", dir.string() + ": the run directory is not writable");
  }
  // the lock file lives while the run does: a run that ends removes it before it lets go, so a
  // run that took the lock of a file already removed (it opened the file just before) tries again
  const std::filesystem::path lock = dir / ".rockperm.lock";
  for (int attempt = 0;; ++attempt) {
    lock_ = FileDescriptor(::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!lock_.valid() || ::flock(lock_.get(), LOCK_EX | LOCK_NB) != 0) {
      throw InputError("output.dir", dir.string() + ": another rockperm run is using this directory");
    }
    struct stat held {}, named {};
    if (::fstat(lock_.get(), &held) == 0 && ::stat(lock.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      break;
    }
    if (attempt == 8) throw InputError("output.dir", dir.string() + ": another rockperm run is using this directory");
  }
  lock_path_ = lock;
  const bool has_report = std::filesystem::exists(dir / "report.json");
  const bool has_checkpoint = std::filesystem::exists(dir / checkpoint_name);
  switch (use) {
    case DirectoryUse::fresh:
      if (has_report || has_checkpoint) {
        throw InputError("output.dir", dir.string() + " holds the " +
                                           (has_report ? "report" : "checkpoint") +
                                           " of an earlier run; choose another directory, replace it with "
                                           "--overwrite, or continue it with --resume " + dir.string());
      }
      remove_outputs(dir, false);  // fields of an earlier run that left no report
      break;
    case DirectoryUse::overwrite: remove_outputs(dir, false); break;
    case DirectoryUse::resume:
      if (!has_checkpoint) {
        throw InputError("output.dir", dir.string() + " holds no checkpoint to resume (" + checkpoint_name + ")");
      }
      remove_outputs(dir, true);
      break;
  }
}

void RunDirectory::require_free_space(const parallel::Comm& comm, double bytes, const std::string& what) const {
  collectively(comm, [&] {
    if (!comm.root()) return;
    struct statvfs fs {};
    if (::statvfs(dir_.c_str(), &fs) != 0) return;  // cannot tell: the writes will say
    const double free = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
    if (free < bytes) {
      throw OutputError(dir_.string() + ": " + size_text(free) + " free, but the run may write " + size_text(bytes) +
                        " (" + what + "); free some space or choose another run directory");
    }
  });
}

RunDirectory::~RunDirectory() {
  if (lock_.valid() && !lock_path_.empty()) ::unlink(lock_path_.c_str());  // while held: see take()
  (void)lock_.close();  // releases the lock
}

const char* to_string(RunState s) {
  switch (s) {
    case RunState::fresh: return "fresh";
    case RunState::resume: return "resume";
    case RunState::done: return "done";
    case RunState::failed: return "failed";
  }
  return "?";
}

RunState inspect_run(const RunSpec& spec, const std::string& config_ini, const std::string& input_sha256) {
  namespace fs = std::filesystem;
  const fs::path dir = spec.output.dir;
  const auto text = [](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return read_all_text(in);
  };
  std::error_code ec;
  if (!fs::is_regular_file(dir / "config.ini", ec) || text(dir / "config.ini") != config_ini) {
    return RunState::fresh;  // another configuration (or none): its results do not count
  }
  const bool checkpoint = fs::is_regular_file(dir / checkpoint_name, ec);
  if (!fs::is_regular_file(dir / "report.json", ec)) return checkpoint ? RunState::resume : RunState::fresh;
  using Json = nlohmann::json;
  Json report;
  try {
    report = Json::parse(text(dir / "report.json"));
  } catch (const Json::exception&) {
    return RunState::fresh;
  }
  const std::string status = report.is_object() ? report.value("status", "") : "";
  if (status == "interrupted") {  // a tensor's checkpoints are those of its axes (<dir>/x, y, z)
    return checkpoint || spec.all_axes ? RunState::resume : RunState::fresh;
  }
  // a report of this configuration: done where it was made from the same bytes
  const Json& input = report["input"];
  const std::string sha = input.is_object() ? input.value("sha256", "") : "";
  if (!sha.empty()) {
    try {
      if ((input_sha256.empty() ? io::hash_volume(spec.sample.volume.path) : input_sha256) != sha) return RunState::fresh;
    } catch (const InputError&) {
      return RunState::fresh;  // the input cannot be read now: run it again, and let that run report why
    }
  } else if (status == "converged") {
    return RunState::fresh;  // a result without the hash of its input cannot be matched
  }
  return status == "converged" ? RunState::done : RunState::failed;
}

}  // namespace rockperm::pipeline
