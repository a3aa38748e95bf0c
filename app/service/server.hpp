#pragma once
// rockperm serve: lab engineers submit scans over HTTP and get k. One process: an HTTP server
// (Boost.Beast) on a configured address, a persistent queue (app/service/job_store.hpp), and a
// worker per GPU (or one on the CPU) that runs the jobs with run_sample, each in its own run
// directory under the state directory. Jobs survive a restart or a kill: the queue is in
// SQLite, a job that was running resumes from its checkpoint.
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
  std::filesystem::path run_config;    // base INI of every job (optional)
  int workers = 0;                     // 0: one per visible GPU, or one on a machine without
  double max_upload_mb = 512;          // request bodies above this are refused (413)
  double request_timeout_s = 30;       // reading a request, writing a response
  int max_connections = 64;            // served at once; more wait in the kernel's backlog
};

// Reads the [service] section of an INI file; relative paths are relative to the file.
// Throws InputError naming the key.
ServiceConfig read_service_config(const std::filesystem::path& ini);

// Serves until SIGINT or SIGTERM: then stops taking requests, lets running jobs checkpoint
// (they are queued again) and returns 0.
int serve(const ServiceConfig& config);

}  // namespace rockperm::app::service
