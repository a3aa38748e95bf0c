#include <gtest/gtest.h>

#include <fstream>

#include "lib/base/error.hpp"
#include "pipeline/run_directory.hpp"

namespace rockperm::pipeline {

namespace {
std::filesystem::path fresh(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("rockperm_rundir_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}
void touch(const std::filesystem::path& file) { std::ofstream(file) << "x"; }
}  // namespace

TEST(RunDirectory, IsLockedWhileARunUsesIt) {
  const auto dir = fresh("lock");
  const RunDirectory first(parallel::Comm(), dir, DirectoryUse::fresh);
  try {
    const RunDirectory second(parallel::Comm(), dir, DirectoryUse::overwrite);
    ADD_FAILURE() << "a second run got the directory";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("another rockperm run"), std::string::npos) << e.what();
  }
}

TEST(RunDirectory, AnEarlierResultIsRefusedReplacedOrResumed) {
  const auto dir = fresh("result");
  std::filesystem::create_directories(dir / "fields_9.vti.d");
  for (const char* f : {"report.json", "report.csv", "config.ini", "fields.pvti", "fields_7.vti", "notes.txt"}) {
    touch(dir / f);
  }
  EXPECT_THROW(RunDirectory(parallel::Comm(), dir, DirectoryUse::fresh), InputError);
  EXPECT_THROW(RunDirectory(parallel::Comm(), dir, DirectoryUse::resume), InputError);  // no checkpoint
  { const RunDirectory d(parallel::Comm(), dir, DirectoryUse::overwrite); }
  for (const char* f : {"report.json", "report.csv", "config.ini", "fields.pvti", "fields_7.vti"}) {
    EXPECT_FALSE(std::filesystem::exists(dir / f)) << f;
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "notes.txt"));  // not a run's output
  EXPECT_TRUE(std::filesystem::exists(dir / "fields_9.vti.d"));
  touch(dir / "checkpoint.rpk");
  touch(dir / "config.ini");
  touch(dir / "report.json");
  { const RunDirectory d(parallel::Comm(), dir, DirectoryUse::resume); }
  EXPECT_TRUE(std::filesystem::exists(dir / "checkpoint.rpk"));
  EXPECT_TRUE(std::filesystem::exists(dir / "config.ini"));
  EXPECT_FALSE(std::filesystem::exists(dir / "report.json"));  // written last by the resumed run
}

TEST(RunDirectory, TooLittleFreeSpaceIsAnOutputErrorBeforeTheRun) {
  const auto dir = fresh("space");
  const RunDirectory d(parallel::Comm(), dir, DirectoryUse::fresh);
  EXPECT_NO_THROW(d.require_free_space(parallel::Comm(), 1e3, "a report"));
  EXPECT_THROW(d.require_free_space(parallel::Comm(), 1e21, "a checkpoint and the fields"), OutputError);
  try {  // sizes in a unit that shows them (the audit saw "0.00 GB free, but the run may write 0.00 GB")
    d.require_free_space(parallel::Comm(), 1e21, "the fields");
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("may write 1000000.0 PB"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("0.00 GB"), std::string::npos) << e.what();
  }
}

}  // namespace rockperm::pipeline
