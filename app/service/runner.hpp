#pragma once
// The service's workers: one per GPU (or one on the CPU), each taking the oldest queued job and
// running it in-process with run_sample on its GPU. A job on several GPUs (asked for with
// "gpus", or found too large for one GPU's memory when it was tried) waits until the other
// workers are idle and runs as `mpiexec -n N rockperm run` over that many GPUs — the Z-slab MPI
// of rockperm run, started without a shell. Every job ends recorded in the queue: converged, an
// error status with its message, cancelled, or queued again when the service stops (it then
// resumes from its checkpoint).
#include <condition_variable>
#include <filesystem>
#include <future>
#include <optional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/options.hpp"
#include "app/sample_run.hpp"
#include "app/scheduler.hpp"
#include "app/service/job_store.hpp"
#include "app/service/service_config.hpp"
#include "app/service/slurm.hpp"

namespace rockperm::app::service {

class JobStore;

// A job's run options, checked as rockperm run checks them, with the service's base
// configuration, the job's run directory and the service's voxel limit. Throws HttpError (400).
RunOptions job_run_options(const ServiceConfig& config, const std::string& id, const std::filesystem::path& input,
                           const nlohmann::ordered_json& options);

class Runner {
 public:
  Runner(const ServiceConfig& config, JobStore& store, int workers);
  ~Runner();  // joins (call stop() first)
  void start();
  void notify();  // a job was queued
  void stop();    // after StopSignals: running jobs checkpoint and are queued again; joins

 private:
  // A claimed job with its options, and (one GPU) its sample being prepared ahead.
  using Claimed = Claim<Job>;
  // The job's options and state; nothing when it ended already (recorded here).
  std::optional<Claimed> resolve(const Job& job);
  // The next queued job for worker `slot`, to run now (the worker is busy from here; a job on
  // several GPUs waits for the other workers to be idle) or, `ahead`, to wait behind the one that
  // runs (jobs of one GPU only, their sample prepared on a thread of its own). Nothing when none
  // is queued (after waiting up to half a second for one, to run now) or a gang waits.
  std::optional<Claimed> claim(int slot, bool ahead);
  void release(bool several);  // the worker is idle again
  void work(int slot);
  void run_here(Claimed& claimed, int slot);
  // `mpiexec -n N rockperm run` over the job's run directory: N = its gpus, where N beyond the
  // workers (GPUs) adds a rank on the host's cores (run.host_share) for a sample the GPUs cannot hold
  void run_on_several(Claimed& claimed);
  // A job too large for the ranks it ran on: queued first again, on `ranks` ranks, afresh.
  void requeue_larger(const Job& job, const RunOptions& options, int ranks);
  void record(const Job& job, const RunOptions& options);
  // service.executor = slurm (app/service/slurm.hpp): one thread submits each queued job with
  // sbatch and follows the submitted ones through squeue until they end, when their reports are
  // read as a local job's are. A stop of the server leaves them to Slurm; a restart follows them
  // again by their Slurm ids (kept in the queue).
  void follow_slurm();
  // `queue`: squeue's view, taken once for the jobs submitted together
  void submit_to_slurm(const Job& job, const std::map<std::string, SlurmState>& queue);
  void track_slurm();
  void conclude_slurm(const Job& job, const std::string& state, const std::string& reason);

  const ServiceConfig& config_;
  JobStore& store_;
  int workers_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int busy_ = 0;       // workers with a job
  bool gang_ = false;  // a job on several GPUs waits for (or holds) every worker
};

}  // namespace rockperm::app::service
