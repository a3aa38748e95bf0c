#pragma once
// Drives a Simulation to its end the way a batch job needs it: checkpoints every so many steps
// or minutes, a clean stop on request (a signal on any rank, agreed by all at the next check)
// or before a wall-time limit, with a checkpoint written before it returns.
#include <filesystem>
#include <functional>
#include <string>

#include "lib/parallel/comm.hpp"
#include "pipeline/simulation.hpp"

namespace rockperm::pipeline {

struct DriveSettings {
  std::filesystem::path checkpoint;  // where checkpoints go; empty: never written
  // run_identity() of the sample and physics, asked for (collectively) when a checkpoint is
  // written: the input's hash may still be worked out beside the first steps
  std::function<std::string()> identity;
  std::int64_t checkpoint_interval = 0;  // steps between checkpoints (0: not by steps)
  double checkpoint_minutes = 0;         // wall minutes between checkpoints (0: not by time)
  bool checkpoint_at_end = false;        // also when the run ends by itself
  double walltime_minutes = 0;           // stop cleanly before this much wall time (0: no limit)
  std::function<bool()> stop_requested;  // this process's view: a signal arrived
};

struct DriveOutcome {
  bool interrupted = false;
  std::string reason;          // why it stopped early
  int checkpoints = 0;
  double checkpoint_seconds = 0;  // wall time spent writing them
};

// Collective. Runs to the end (converged or the step limit) unless stopped early.
DriveOutcome drive(const parallel::Comm& comm, Simulation& simulation, const DriveSettings& settings,
                   const solve::ProgressFn& progress = {});

}  // namespace rockperm::pipeline
