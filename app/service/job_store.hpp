#pragma once
// The service's queue: every job in an SQLite database (WAL mode, one file in the state
// directory), so that nothing submitted is lost when the server stops, is restarted or is
// killed. A job's run directory holds its config, checkpoint and reports, as a campaign's do.
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace rockperm::app::service {

// preparing: claimed by a worker that reads its sample while it finishes the job before
enum class JobState { queued, preparing, running, finished, cancelled };
const char* to_string(JobState s);

struct Job {
  std::string id;
  std::string owner;    // the token's name: a job is seen by its owner only
  JobState state = JobState::queued;
  std::string input;    // absolute path of the scan (inside a data root, or the uploaded copy)
  std::string options;  // JSON object: rockperm run option key -> value (strings)
  std::string submitted_utc, started_utc, finished_utc;
  bool cancel_requested = false;
  // while running: the last check; when finished: the run's status (converged, ...) and k
  std::int64_t step = 0, max_steps = 0;
  double k_md = 0, error_estimate = 0, seconds = 0;
  std::string status, message;
  double porosity = 0;      // of the simulated sample, when finished
  std::string results_to;   // a spool folder the reports are copied into when the job ends ("" for HTTP jobs)
  int gpus = 1;             // GPUs (workers) it runs on; more than one: by mpiexec, when the others are idle
  std::string details = "{}";  // JSON from its report when finished: the verdict and the warnings
  // service.executor = slurm: its Slurm job (while it is submitted) and what squeue last said of it
  std::string scheduler_id, scheduler_state, scheduler_reason;
};

class JobStore {
 public:
  // Opens or creates `file`. Throws InputError when it cannot (naming the file and SQLite's reason).
  explicit JobStore(const std::filesystem::path& file);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  void insert(const Job& job);
  std::optional<Job> get(const std::string& id) const;
  std::vector<Job> list(const std::string& owner) const;  // newest first
  std::optional<Job> find_by_results_to(const std::string& folder) const;  // the job of a spool folder
  std::int64_t count(JobState state) const;
  // The jobs of `owner` queued, being prepared or running (the per-token quota counts them).
  std::vector<std::string> active_ids(const std::string& owner) const;
  // Finished and cancelled jobs that ended before `utc` (ISO 8601, as utc_timestamp()): expired.
  std::vector<std::string> ended_before(const std::string& utc) const;
  // Forgets a finished or cancelled job (its files are the caller's to remove).
  void remove(const std::string& id);
  // The oldest queued job, now running (one transaction: no job is taken twice). With
  // `one_gpu_only`, nothing when the oldest is a job on several GPUs (it keeps its turn).
  // `preparing`: claimed ahead (state preparing until mark_running).
  std::optional<Job> claim_next(bool one_gpu_only = false, bool preparing = false);
  void mark_running(const std::string& id);
  // Jobs left running or preparing by a server that stopped: queued again (they resume from their
  // checkpoint); with `keep_scheduled`, not those submitted to Slurm (tracked again from their ids).
  int requeue_running(bool keep_scheduled = false);
  // A job submitted to Slurm: its id there and the scheduler's state and reason (squeue's %T, %r).
  void set_scheduled(const std::string& id, const std::string& scheduler_id, const std::string& state,
                     const std::string& reason);
  std::vector<Job> scheduled() const;  // running jobs submitted to Slurm, oldest first
  void update_progress(const std::string& id, std::int64_t step, std::int64_t max_steps, double k_md,
                       double error_estimate, double seconds);
  void finish(const std::string& id, JobState state, const std::string& status, double k_md,
              const std::string& message, double porosity = 0, const std::string& details = "{}");
  void requeue(const std::string& id);  // a run stopped by the server's own shutdown
  // A running job found too large for one GPU: queued again, first in line, to run on `gpus`.
  void requeue_on(const std::string& id, int gpus);
  // Cancels the job of `owner`: a queued one at once, a running one at its next check.
  // Returns false when there is no such job of that owner.
  bool cancel(const std::string& id, const std::string& owner);
  bool cancel_requested(const std::string& id) const;

 private:
  void exec(const std::string& sql) const;
  // the ids a query with one text parameter selects
  std::vector<std::string> ids_where(const char* sql, const std::string& value) const;
  sqlite3* db_ = nullptr;
  mutable std::mutex mutex_;  // one connection, used by the HTTP threads and the workers
};

}  // namespace rockperm::app::service
