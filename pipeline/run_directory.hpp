#pragma once
// The run directory is owned by one run at a time: rank 0 holds a lock on it for the life of
// the run, refuses a directory that holds an earlier result unless asked to overwrite it (then
// removes the old outputs first, fields of other rank counts included) or to resume it, and
// removes report.json before any work, so that report.json, written last, marks a finished run.
#include <filesystem>

#include <string>

#include "lib/base/system.hpp"
#include "lib/parallel/comm.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::pipeline {

enum class DirectoryUse {
  fresh,      // refuse a directory with an earlier report or checkpoint
  overwrite,  // remove the earlier outputs
  resume,     // continue from its checkpoint
};

class RunDirectory {
 public:
  // Collective; throws InputError (field "output.dir") on every rank.
  RunDirectory(const parallel::Comm& comm, const std::filesystem::path& dir, DirectoryUse use);
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;
  const std::filesystem::path& path() const { return dir_; }

  // Collective. Throws OutputError (on every rank) when the file system of the directory has
  // less than `bytes` free: what a run may still write (a checkpoint, the fields), found before
  // the first step instead of after the last.
  void require_free_space(const parallel::Comm& comm, double bytes, const std::string& what) const;

 private:
  void take(const std::filesystem::path& dir, DirectoryUse use);  // rank 0: lock, check, clean
  std::filesystem::path dir_;
  FileDescriptor lock_;  // rank 0; closing it releases the lock
  std::filesystem::path lock_path_;  // rank 0: removed at the end, while the lock is still held
};

// What a run directory holds against a run of `spec` whose configuration (config.ini) is
// `config_ini`: a campaign, the service and a resumed tensor skip what is done and continue what
// was stopped.
enum class RunState {
  fresh,   // nothing, or results of another input or configuration: run it (again)
  resume,  // a checkpoint of this configuration (a tensor: an axis not finished): continue it
  done,    // a final report of this input and configuration
  failed,  // the same, with a failure (not converged, diverged, a bad input...)
};
const char* to_string(RunState s);

// Reads spec.output.dir's config.ini and report.json; where the report gives its input's hash,
// matches it with `input_sha256` (where known: a volume read once, a mask in memory), else hashes
// spec.sample.volume (a report of other bytes counts as none).
RunState inspect_run(const RunSpec& spec, const std::string& config_ini, const std::string& input_sha256 = "");

}  // namespace rockperm::pipeline
