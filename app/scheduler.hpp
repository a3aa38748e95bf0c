#pragma once
// What a campaign (app/campaign_command.cpp) and the service (app/service/runner.cpp) share when
// a worker runs one sample after another (issue 35, one scheduler):
//
//   claim -> start_for (skip what is done, resume a checkpoint, else run afresh) ->
//   read ahead on a thread while the sample before runs -> run -> record
//
// Each keeps its own way to claim (lock files over a manifest; the job store) and to record; the
// decision how a claimed sample starts, the read-ahead and the queue of claims a worker runs and
// keeps ahead are one policy, here, unit-tested on the CPU (tests/app/test_scheduler.cpp).
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <optional>
#include <utility>
#include <vector>

#include "app/campaign.hpp"
#include "app/options.hpp"
#include "app/sample_run.hpp"

namespace rockperm::app {

// How a claimed sample starts, from what its run directory holds (inspect_sample).
enum class Start {
  run,          // run it: options.resume says whether from its checkpoint (else overwrite)
  skip_done,    // a final report of this input and configuration: kept
  skip_failed,  // the same with a failure, kept unless failures are retried
};

// Inspects `options`' run directory and sets options.resume / options.overwrite for a run.
Start start_for(RunOptions& options, bool retry_failed);

// A claimed sample: who claimed it (a campaign's place in its manifest, the service's job), its
// options, and its sample being prepared ahead where that was started.
template <class Ticket>
struct Claim {
  Ticket ticket;
  RunOptions options;
  std::future<PreparedSample> read;
};

// Whether a claim's sample may be prepared ahead: a run on one rank (a tensor reads once itself).
bool can_read_ahead(const RunOptions& options, int ranks);

// Starts preparing `options`' sample (prepare_sample) on a thread of its own, with `threads`
// OpenMP threads (the preparations under way share the worker's cores: OpenMP threads spin while
// they wait, and more of them than cores slows every one, the solver's host thread too).
std::future<PreparedSample> start_read_ahead(const RunOptions& options, int device_slot, int threads);

// The claims a worker keeps ahead of the one it runs, in the order they were claimed: a campaign
// (claims over its manifest) and the service (claims from its job store) run their workers on it.
template <class Ticket>
class ClaimQueue {
 public:
  // `claim(ahead)`: the next claim (its read-ahead started as it sees fit), or none when nothing
  // is left to claim now; `ahead` says whether it is claimed to wait behind the one that runs
  // (the service claims only jobs of one GPU there).
  explicit ClaimQueue(std::function<std::optional<Claim<Ticket>>(bool ahead)> claim) : claim_(std::move(claim)) {}

  // The claim to run now: the oldest waiting, else a new one. None when nothing is left.
  std::optional<Claim<Ticket>> next() {
    if (waiting_.empty()) fill(1, false);
    if (waiting_.empty()) return std::nullopt;
    std::optional<Claim<Ticket>> current(std::move(waiting_.front()));
    waiting_.pop_front();
    return current;
  }

  // Claims until `depth` wait behind the one that runs, prepared while it runs.
  void ahead(std::size_t depth) { fill(depth, true); }

  // The claims not started (a stop), their reads waited for: the caller gives them back.
  std::vector<Claim<Ticket>> drain() {
    std::vector<Claim<Ticket>> out;
    for (Claim<Ticket>& c : waiting_) {
      if (c.read.valid()) c.read.wait();
      out.push_back(std::move(c));
    }
    waiting_.clear();
    return out;
  }

  std::size_t waiting() const { return waiting_.size(); }

 private:
  void fill(std::size_t size, bool ahead) {
    while (waiting_.size() < size) {
      std::optional<Claim<Ticket>> c = claim_(ahead);
      if (!c) break;  // nothing to claim now; asked again at the next next()
      waiting_.push_back(std::move(*c));
    }
  }

  std::function<std::optional<Claim<Ticket>>(bool)> claim_;
  std::deque<Claim<Ticket>> waiting_;
};

}  // namespace rockperm::app
