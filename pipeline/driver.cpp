#include "pipeline/driver.hpp"

#include <chrono>

#include "pipeline/checkpoint.hpp"

namespace rockperm::pipeline {

namespace {
using Clock = std::chrono::steady_clock;
double minutes_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count() / 60.0; }
}  // namespace

DriveOutcome drive(const parallel::Comm& comm, Simulation& simulation, const DriveSettings& s,
                   const solve::ProgressFn& progress) {
  DriveOutcome out;
  const auto start = Clock::now();
  auto last_checkpoint_time = start;
  std::int64_t last_checkpoint_step = simulation.progress().step;
  double slowest_check = 0;  // minutes, for the wall-time margin
  const auto checkpoint = [&] {
    if (s.checkpoint.empty()) return;
    const auto t = Clock::now();
    write_checkpoint(comm, simulation, s.checkpoint, s.identity ? s.identity() : std::string());
    out.checkpoint_seconds += std::chrono::duration<double>(Clock::now() - t).count();
    ++out.checkpoints;
    last_checkpoint_time = Clock::now();
    last_checkpoint_step = simulation.progress().step;
  };
  while (!simulation.finished()) {
    const auto t = Clock::now();
    simulation.advance();
    slowest_check = std::max(slowest_check, minutes_since(t));
    if (progress) progress(simulation.progress());
    // a stop asked on any rank, or a wall-time limit within reach of the next check and a
    // checkpoint (rank 0's clock decides, so that every rank agrees)
    double stop = s.stop_requested && s.stop_requested() ? 1.0 : 0.0;
    if (comm.root() && s.walltime_minutes > 0 &&
        minutes_since(start) + 2.0 * slowest_check + out.checkpoint_seconds / 60.0 + 0.5 > s.walltime_minutes) {
      stop = std::max(stop, 2.0);
    }
    stop = comm.max(stop);
    if (stop > 0) {
      out.interrupted = true;
      out.reason = stop >= 2.0 ? "the wall-time limit was near" : "a stop signal arrived";
      checkpoint();
      return out;
    }
    if (simulation.finished()) break;
    const bool by_steps = s.checkpoint_interval > 0 &&
                          simulation.progress().step - last_checkpoint_step >= s.checkpoint_interval;
    const bool by_time = s.checkpoint_minutes > 0 &&
                         comm.max(minutes_since(last_checkpoint_time)) >= s.checkpoint_minutes;
    if (by_steps || by_time) checkpoint();
  }
  if (s.checkpoint_at_end) checkpoint();
  return out;
}

}  // namespace rockperm::pipeline
