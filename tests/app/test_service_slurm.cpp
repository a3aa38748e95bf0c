// service.executor = slurm (app/service/slurm.hpp): what the service reads from sbatch, squeue and
// sacct, and the batch script it writes, including paths that a shell would read otherwise.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/service/slurm.hpp"
#include "lib/base/error.hpp"

namespace rockperm::app::service {

TEST(ServiceSlurm, ReadsTheJobIdOfSbatchAndItsRefusal) {
  EXPECT_EQ(submitted_job_id({0, "4242\n"}), "4242");
  EXPECT_EQ(submitted_job_id({0, "4243;cluster2\n"}), "4243");
  EXPECT_EQ(submitted_job_id({0, "sbatch: warning: a note\n4244\n"}), "4244");
  try {
    submitted_job_id({1, "sbatch: error: invalid partition specified: nope\n"});
    FAIL() << "a refusal was read as an id";
  } catch (const RuntimeFailure& e) {
    EXPECT_NE(std::string(e.what()).find("invalid partition specified: nope"), std::string::npos) << e.what();
  }
  EXPECT_THROW(submitted_job_id({0, "Submitted batch job\n"}), RuntimeFailure);
  EXPECT_THROW(submitted_job_id({-1, "cannot start 'sbatch': No such file or directory"}), RuntimeFailure);
}

TEST(ServiceSlurm, ReadsSqueueAndSacctAndTrustsNoFailedSqueue) {
  const auto jobs = parse_squeue(
      {0, "101|rockperm-j1|PENDING|Resources\n102|a|b name|RUNNING|None\nsqueue: warning\n103|x|TIMEOUT|None\n"});
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 3u);
  EXPECT_EQ(jobs->at("101").reason, "Resources");
  EXPECT_EQ(jobs->at("102").name, "a|b name");
  EXPECT_EQ(live_job_named(*jobs, "rockperm-j1"), std::optional<std::string>("101"));
  EXPECT_FALSE(live_job_named(*jobs, "x"));  // ended
  EXPECT_FALSE(jobs->at("101").ended());
  EXPECT_FALSE(jobs->at("102").ended());
  EXPECT_TRUE(jobs->at("103").ended());
  EXPECT_FALSE((SlurmState{"REQUEUED", ""}.ended()));
  EXPECT_FALSE(parse_squeue({1, "slurm_load_jobs error: Unable to contact slurm controller\n"}));
  const auto done = parse_sacct({0, "CANCELLED by 1000|None\n"});
  ASSERT_TRUE(done);
  EXPECT_EQ(done->state, "CANCELLED");
  EXPECT_TRUE(done->ended());
  EXPECT_FALSE(parse_sacct({0, ""}));
  EXPECT_FALSE(parse_sacct({1, "sacct: error: Slurm accounting storage is disabled\n"}));
}

TEST(ServiceSlurm, TheSbatchLineHoldsTheSettingsAndNothingElse) {
  ServiceConfig::Slurm s;
  s.partition = "gpu";
  s.time_limit = "1-00:00:00";
  s.sbatch_options = {"--constraint=h100"};
  const auto a = sbatch_command(s, "j1", 2, "/state/jobs/j1.sbatch", "/state/jobs/j1.log");
  const std::vector<std::string> want{"sbatch", "--parsable", "--job-name=rockperm-j1", "--output=/state/jobs/j1.log",
                                      "--open-mode=append", "--requeue", "--signal=USR1@180", "--ntasks=2", "--gpus=2",
                                      "--partition=gpu", "--time=1-00:00:00", "--constraint=h100",
                                      "/state/jobs/j1.sbatch"};
  EXPECT_EQ(a, want);
  s.request_gpus = false;
  const auto cpu = sbatch_command(s, "j1", 2, "/s", "/l");
  EXPECT_EQ(std::count(cpu.begin(), cpu.end(), std::string("--gpus=2")), 0);
}

// The script runs under bash with the server's paths as single words, whatever they hold.
TEST(ServiceSlurm, TheBatchScriptQuotesItsPathsAndResumesWhereACheckpointIs) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "rockperm_slurm_script" / "it's $(here) `x`";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir / "run");
  ServiceConfig::Slurm s;
  s.launcher = "echo";  // prints what would start
  const fs::path script = dir / "job.sbatch";
  std::ofstream(script) << batch_script(s, "/opt/rock perm/bin/rockperm", dir / "job.ini", dir / "run");
  const auto run = [&] {
    const CommandOutput out = run_command({"bash", script.string()});
    EXPECT_EQ(out.exit_code, 0) << out.text;
    return out.text;
  };
  EXPECT_EQ(run(), "/opt/rock perm/bin/rockperm run --config " + (dir / "job.ini").string() + " --overwrite\n");
  std::ofstream(dir / "run" / "checkpoint.rpk") << "x";
  std::ofstream(dir / "run" / "config.ini") << "x";
  EXPECT_EQ(run(), "/opt/rock perm/bin/rockperm run --resume " + (dir / "run").string() + "\n");
  EXPECT_FALSE(fs::exists(dir.parent_path() / "here"));
  fs::remove_all(dir.parent_path());
}

}  // namespace rockperm::app::service
