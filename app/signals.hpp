#pragma once
// The stop signals of a batch job: SIGTERM (a scheduler's end, `scancel`), SIGINT (Ctrl-C),
// SIGHUP (a closed terminal) and SIGUSR1 (what Slurm sends ahead of the time limit with
// `--signal=USR1@120`). While a StopSignals lives, they set a flag that the run polls at every
// convergence check (pipeline/driver.hpp) instead of ending the process; a second SIGINT
// ends it at once. SIGXFSZ is ignored, so that a file size limit is a write error to report,
// not a kill.
namespace rockperm::app {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  static bool requested();  // a stop signal arrived
  static int signal();      // which (0: none)
};

}  // namespace rockperm::app
