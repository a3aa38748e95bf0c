// Output files whole or absent (io/atomic_file.hpp): the temporaries a process is writing are
// known, so that a handler ending the process (a second Ctrl-C) removes them (issue 49: a second
// SIGINT during the field write left fields.pvti.tmp.<pid>.2 in the run directory).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/atomic_file.hpp"

namespace rockperm::io {

TEST(AtomicFile, TemporariesBeingWrittenAreRemovedByTheSignalSafeSweepAndCommittedOnesAreNot) {
  const auto dir = std::filesystem::temp_directory_path() / ("rockperm_atomic_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path writing = temporary_name(dir / "fields.pvti");
  std::ofstream(writing) << "half";
  const std::filesystem::path done = temporary_name(dir / "report.json");
  std::ofstream(done) << "{}";
  commit_file(done, dir / "report.json");
  write_file_atomically(dir / "config.ini", "[input]\n");
  const std::filesystem::path failed = temporary_name(dir / "fields.zip");
  std::ofstream(failed) << "x";
  discard_temporary(failed);
  remove_temporaries_now();
  EXPECT_FALSE(std::filesystem::exists(writing));  // before: left behind
  EXPECT_TRUE(std::filesystem::exists(dir / "report.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "config.ini"));
  EXPECT_FALSE(std::filesystem::exists(failed));
  // the slots are given back: many more temporaries than slots come and go
  for (int i = 0; i < 100; ++i) write_file_atomically(dir / "config.ini", "[input]\n");
  const std::filesystem::path late = temporary_name(dir / "fields_0.vti");
  std::ofstream(late) << "half";
  remove_temporaries_now();
  EXPECT_FALSE(std::filesystem::exists(late));
  std::filesystem::remove_all(dir);
}

}  // namespace rockperm::io
