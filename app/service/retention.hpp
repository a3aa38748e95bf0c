#pragma once
// A token's share of the service and how long a job's files are kept (issue 49): the quota a
// submission must fit, the upload a cancelled or expired job leaves, and the jobs past
// service.retention_days.
#include <cstddef>
#include <string>

#include "app/service/job_store.hpp"
#include "app/service/service_config.hpp"

namespace rockperm::app::service {

// What a killed service left in uploads/: bodies being spooled, and uploads being unpacked for a
// job that was never queued (uploads of queued jobs stay: they are those jobs' scans). Returns how
// many were removed.
std::size_t remove_unfinished_uploads(const ServiceConfig& config, const JobStore& store);

// Removes a job's upload (state_dir/uploads/<id>), as when it is cancelled or expires.
void remove_upload(const ServiceConfig& config, const std::string& id);

// At most max_jobs_per_token queued or running jobs of `owner`, whose uploads (with job `id`'s)
// hold at most max_stored_mb_per_token; throws HttpError 429 naming the key. The spool folder is
// the operator's, not a token's: it has no quota.
void check_quota(const ServiceConfig& config, const JobStore& store, const std::string& owner, const std::string& id);

// Removes the finished and cancelled jobs that ended more than retention_days ago (0: none): their
// run directories, logs, uploads and entries. Returns how many.
std::size_t expire_old_jobs(const ServiceConfig& config, JobStore& store);

}  // namespace rockperm::app::service
