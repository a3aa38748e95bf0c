#pragma once
// rockperm serve: lab engineers submit scans over HTTP and get k. One process: an HTTP server
// (Boost.Beast) on a configured address serving the API and a web page, a persistent queue
// (app/service/job_store.hpp), a spool directory (app/service/spool.hpp) and a worker per GPU
// (or one on the CPU) that runs the jobs with run_sample, each in its own run directory under
// the state directory. Jobs survive a restart or a kill: the queue is in SQLite, a job that was
// running resumes from its checkpoint.
#include "app/service/service_config.hpp"

namespace rockperm::app::service {

// Serves until SIGINT or SIGTERM: then stops taking requests, lets running jobs checkpoint
// (they are queued again) and returns 0.
int serve(const ServiceConfig& config);

// The web page (app/service/web/index.html, compiled in).
extern const char* const web_page;

}  // namespace rockperm::app::service
