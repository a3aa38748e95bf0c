#pragma once
// The run directory is owned by one run at a time: rank 0 holds a lock on it for the life of
// the run, refuses a directory that holds an earlier result unless asked to overwrite it (then
// removes the old outputs first, fields of other rank counts included) or to resume it, and
// removes report.json before any work, so that report.json, written last, marks a finished run.
#include <filesystem>

#include "lib/base/system.hpp"
#include "lib/parallel/comm.hpp"

namespace rockperm::pipeline {

enum class DirectoryUse {
  fresh,      // refuse a directory with an earlier report or checkpoint
  overwrite,  // remove the earlier outputs
  resume,     // continue from its checkpoint
};

class RunDirectory {
 public:
  // Collective; throws InputError (field "output.dir") on every rank.
  RunDirectory(const Comm& comm, const std::filesystem::path& dir, DirectoryUse use);
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;
  const std::filesystem::path& path() const { return dir_; }

  // Collective. Throws OutputError (on every rank) when the file system of the directory has
  // less than `bytes` free: what a run may still write (a checkpoint, the fields), found before
  // the first step instead of after the last.
  void require_free_space(const Comm& comm, double bytes, const std::string& what) const;

 private:
  void take(const std::filesystem::path& dir, DirectoryUse use);  // rank 0: lock, check, clean
  std::filesystem::path dir_;
  FileDescriptor lock_;  // rank 0; closing it releases the lock
};

}  // namespace rockperm::pipeline
