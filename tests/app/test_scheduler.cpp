// The scheduling policy a campaign and the service share (app/scheduler.hpp): the queue of
// claims kept ahead of the running one, and how a claimed sample starts from what its run
// directory holds (fresh, resumed from a checkpoint, kept when done or failed).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "app/sample_run.hpp"
#include "app/scheduler.hpp"
#include "lib/parallel/comm.hpp"
#include "tests/test_support.hpp"

namespace rockperm::app {

namespace {

namespace fs = std::filesystem;

// A queue over tickets 1..n, recording the order of the claims.
struct Counter {
  int n, next = 1;
  std::vector<int> claimed;
  std::optional<Claim<int>> operator()() {
    if (next > n) return std::nullopt;
    claimed.push_back(next);
    Claim<int> c;
    c.ticket = next++;
    return c;
  }
};

RunOptions bundled(const fs::path& dir, const std::string& max_steps) {
  bool help = false;
  return parse_run_options({"--config=" + testing::repo_file("samples/sphere_pack_64.ini").string(),
                            "--input.file=" + testing::repo_file("samples/sphere_pack_64.raw").string(),
                            "--run.backend=cpu", "--output.fields=off", "--run.max_steps=" + max_steps,
                            "--output.dir=" + dir.string()},
                           help);
}

}  // namespace

TEST(ClaimQueue, KeepsItsDepthOfClaimsAheadInTheOrderClaimed) {
  Counter counter{5};
  ClaimQueue<int> queue([&](bool) { return counter(); });
  std::vector<int> ran;
  std::vector<std::size_t> waiting;
  while (auto c = queue.next()) {
    queue.ahead(2);
    ran.push_back(c->ticket);
    waiting.push_back(queue.waiting());
  }
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(waiting, (std::vector<std::size_t>{2, 2, 2, 1, 0}));  // claimed while the one before runs
  EXPECT_EQ(counter.claimed, ran);
  EXPECT_FALSE(queue.next());
}

TEST(ClaimQueue, DepthZeroClaimsOnlyWhenAskedAndAStopHandsTheRestBack) {
  Counter counter{4};
  ClaimQueue<int> none([&](bool) { return counter(); });
  EXPECT_EQ(none.next()->ticket, 1);
  none.ahead(0);
  EXPECT_EQ(none.waiting(), 0u);
  EXPECT_EQ(counter.claimed.size(), 1u);

  Counter more{6};
  ClaimQueue<int> ahead([&](bool) { return more(); });
  EXPECT_EQ(ahead.next()->ticket, 1);
  ahead.ahead(3);
  std::vector<int> back;
  for (Claim<int>& c : ahead.drain()) back.push_back(c.ticket);
  EXPECT_EQ(back, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(ahead.waiting(), 0u);
}

// The claim callback is told whether its claim runs now or waits behind the one that runs (the
// service claims only jobs of one GPU ahead, and counts a worker busy from the claim it runs).
TEST(ClaimQueue, TheClaimKnowsWhetherItRunsNowOrWaitsBehind) {
  std::vector<bool> asked;
  int next = 1;
  ClaimQueue<int> queue([&](bool ahead) -> std::optional<Claim<int>> {
    asked.push_back(ahead);
    if (ahead && next == 3) return std::nullopt;  // a job that may not wait behind: left queued
    Claim<int> c;
    c.ticket = next++;
    return c;
  });
  EXPECT_EQ(queue.next()->ticket, 1);
  queue.ahead(1);
  EXPECT_EQ(queue.next()->ticket, 2);  // the one that waited: no new claim
  queue.ahead(1);                      // refused ahead
  EXPECT_EQ(queue.waiting(), 0u);
  EXPECT_EQ(queue.next()->ticket, 3);  // claimed to run now
  EXPECT_EQ(asked, (std::vector<bool>{false, true, true, false}));
}

// How a claimed sample starts: a fresh directory runs afresh; an interrupted run with its
// checkpoint resumes; a finished run is kept, a failed one kept unless failures are retried.
TEST(Scheduler, AClaimedSampleStartsFromWhatItsDirectoryHolds) {
  const fs::path root = fs::temp_directory_path() / ("rockperm_scheduler_" + std::to_string(::getpid()));
  fs::remove_all(root);
  SampleRunSettings quiet;
  quiet.console = false;

  RunOptions fresh = bundled(root / "fresh", "100000");
  EXPECT_EQ(start_for(fresh, false), Start::run);
  EXPECT_FALSE(fresh.resume);
  EXPECT_TRUE(fresh.overwrite);

  RunOptions done = fresh;
  ASSERT_EQ(run_sample(parallel::Comm(), done, quiet).status, pipeline::RunStatus::converged);
  EXPECT_EQ(start_for(done, false), Start::skip_done);

  RunOptions failed = bundled(root / "failed", "100");  // stops unconverged
  failed.overwrite = true;
  EXPECT_EQ(run_sample(parallel::Comm(), failed, quiet).status, pipeline::RunStatus::not_converged);
  EXPECT_EQ(start_for(failed, false), Start::skip_failed);
  EXPECT_EQ(start_for(failed, true), Start::run);
  EXPECT_TRUE(failed.overwrite);

  RunOptions stopped = bundled(root / "stopped", "100000");
  stopped.overwrite = true;
  SampleRunSettings stop = quiet;
  stop.stop_requested = [] { return true; };  // a signal at the first check: a checkpoint
  EXPECT_EQ(run_sample(parallel::Comm(), stopped, stop).status, pipeline::RunStatus::interrupted);
  EXPECT_EQ(start_for(stopped, false), Start::run);
  EXPECT_TRUE(stopped.resume);
  EXPECT_FALSE(stopped.overwrite);
  fs::remove_all(root);
}

}  // namespace rockperm::app
