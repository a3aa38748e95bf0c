#pragma once
// The configuration of rockperm serve: the [service] section of its INI file.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rockperm::app::service {

struct ServiceConfig {
  std::string address = "127.0.0.1";  // loopback unless told otherwise
  int port = 8750;                     // 0: any free port (written to <state_dir>/port)
  std::filesystem::path state_dir;     // jobs.sqlite, jobs/<id>/, uploads/<id>/
  std::filesystem::path tokens;        // see app/service/auth.hpp
  std::vector<std::filesystem::path> data_roots;  // server paths a job may name (none: uploads only)
  std::filesystem::path spool_dir;     // a folder dropped here with a scan and an INI is a job (none: off)
  double spool_settle_s = 5;           // a spool folder is taken once nothing in it changed this long (or it has READY)
  std::filesystem::path run_config;    // base INI of every job (optional)
  int workers = 0;                     // 0: one per visible GPU, or one on a machine without
  std::string mpiexec = "mpiexec";     // starts a job on several GPUs (words split on spaces, no shell)
  double max_upload_mb = 512;          // request bodies above this are refused (413)
  double max_unpacked_mb = 4096;       // what an uploaded archive may unpack to
  std::uint64_t max_files = 20000;     // files an upload may hold (TIFF slices)
  std::uint64_t max_voxels = 2048ull * 2048 * 2048;  // larger scans (after their crop) are refused
  double request_timeout_s = 30;       // reading a request, writing a response
  int max_connections = 64;            // served at once; more are answered 503 at once
  std::vector<std::string> allowed_hosts;  // Host names besides addresses and localhost (lower case)
  int max_connections_per_client = 16; // held at once by one client address (more: 503)
  int max_jobs_per_token = 100;        // queued or running jobs of one token (more: 429)
  double max_stored_mb_per_token = 16384;  // uploads of one token's queued or running jobs (more: 429)
  double retention_days = 30;          // finished and cancelled jobs (reports, uploads) are removed after this; 0: kept
  // Where jobs run: on this host's GPUs (local), or each as a Slurm job (slurm: app/service/slurm.hpp)
  enum class Executor { local, slurm };
  Executor executor = Executor::local;
  struct Slurm {
    std::string partition, account, qos;  // sbatch's --partition, --account, --qos (empty: the site's defaults)
    std::string time_limit;               // sbatch --time (empty: the partition's); MINUTES, H:MM:SS or D-HH:MM:SS
    int max_gpus = 4;                     // GPUs a job may ask for ("gpus")
    bool request_gpus = true;             // sbatch --gpus=N (off: a partition of CPU nodes, run.backend = cpu)
    std::vector<std::string> sbatch_options;     // further sbatch options of the site's, as words (no shell)
    std::string launcher = "srun --mpi=pmix --gpu-bind=none";  // starts the ranks in the allocation
    std::filesystem::path rockperm;       // the binary the jobs run (default: this one; a path every node sees)
    double poll_s = 5;                    // squeue every so many seconds
  } slurm;
};

// Reads the [service] section of an INI file; relative paths are relative to the file.
// Throws InputError naming the key.
ServiceConfig read_service_config(const std::filesystem::path& ini);

// The keys of [service], for messages and --help.
extern const char* const service_keys_help;

}  // namespace rockperm::app::service
