#pragma once
// service.executor = slurm: each job is one sbatch submission of a batch script the service
// writes into state_dir/jobs (rockperm run from the job's INI, or --resume of its run directory
// where a checkpoint is there, started by service.slurm_launcher); squeue (and sacct, once the
// job left the queue) says where it is, scancel cancels it, and its run directory under
// state_dir holds its reports as a local job's does. The commands run without a shell, found on
// PATH; nothing of a job's options reaches their command lines: the options go to the job's INI,
// checked as rockperm run checks them, and sbatch gets the service's settings, the job's GPU
// count (an integer, at most slurm_max_gpus) and the service's own paths.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/service/service_config.hpp"

namespace rockperm::app::service {

// A command's exit code (-1: it could not be started) and its output, stdout and stderr together.
struct CommandOutput {
  int exit_code = -1;
  std::string text;
};
// Runs `args` (args[0] found on PATH) without a shell, with the environment the server started
// with, and waits for it.
CommandOutput run_command(const std::vector<std::string>& args);

// What Slurm says of a job: squeue's %T and %r, or sacct's State and Reason.
struct SlurmState {
  std::string state;   // PENDING, RUNNING, REQUEUED, COMPLETED, TIMEOUT, NODE_FAIL, ...
  std::string reason;  // Priority, Resources, None, ...
  std::string name;    // the job's name (squeue's %j; the service's: rockperm-<job id>)
  bool ended() const;  // a state the job does not leave (it ran, failed or was cancelled)
};

// The sbatch command line of service job `job_id` on `gpus` GPUs (one rank each).
std::vector<std::string> sbatch_command(const ServiceConfig::Slurm& slurm, const std::string& job_id, int gpus,
                                        const std::filesystem::path& script, const std::filesystem::path& log);
// The batch script of a job: rockperm run from `ini` into `run_dir`, or --resume where its
// checkpoint is there (a job Slurm requeued); a clean stop (exit code 6: a checkpoint was
// written on USR1 before the time limit, or on a preemption's TERM) requeues it.
std::string batch_script(const ServiceConfig::Slurm& slurm, const std::filesystem::path& rockperm,
                         const std::filesystem::path& ini, const std::filesystem::path& run_dir);
// The job id of `sbatch --parsable` ("12345" or "12345;cluster"). Throws RuntimeFailure with
// sbatch's own words where it refused the job.
std::string submitted_job_id(const CommandOutput& sbatch);
// squeue's "ID|NAME|STATE|REASON" lines by id; nothing where squeue failed (the controller is down:
// no job is taken for ended on its word).
std::optional<std::map<std::string, SlurmState>> parse_squeue(const CommandOutput& squeue);
// sacct's "STATE|REASON" of a job (its allocation line); nothing where sacct knows nothing
// (accounting off, or the job forgotten).
std::optional<SlurmState> parse_sacct(const CommandOutput& sacct);

// The Slurm commands of the service.
std::string slurm_submit(const std::vector<std::string>& sbatch_args);
std::optional<std::map<std::string, SlurmState>> slurm_queue();  // the service user's jobs
// The id of a job of `queue` named `name` that Slurm still runs or holds, where there is one.
std::optional<std::string> live_job_named(const std::map<std::string, SlurmState>& queue, const std::string& name);
std::optional<SlurmState> slurm_accounting(const std::string& scheduler_id);
void slurm_cancel(const std::string& scheduler_id);

}  // namespace rockperm::app::service
