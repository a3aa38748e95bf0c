#include "app/service/retention.hpp"

#include <ctime>
#include <filesystem>
#include <vector>

#include "app/service/http_server.hpp"
#include "lib/base/system.hpp"

namespace rockperm::app::service {

namespace fs = std::filesystem;

std::size_t remove_unfinished_uploads(const ServiceConfig& config, const JobStore& store) {
  std::error_code ec;
  std::size_t removed = 0;
  for (const auto& e : fs::directory_iterator(config.state_dir / "uploads", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(".incoming-", 0) == 0 || !store.get(name)) {
      std::error_code rec;
      removed += fs::remove_all(e.path(), rec) > 0 ? 1 : 0;
    }
  }
  return removed;
}

void remove_upload(const ServiceConfig& config, const std::string& id) {
  std::error_code ec;
  fs::remove_all(config.state_dir / "uploads" / id, ec);
}

void check_quota(const ServiceConfig& config, const JobStore& store, const std::string& owner, const std::string& id) {
  if (owner == "spool") return;
  const std::vector<std::string> active = store.active_ids(owner);  // one token submitted 1000 jobs at 103/s
  if (static_cast<std::int64_t>(active.size()) >= config.max_jobs_per_token) {
    throw HttpError{http::status::too_many_requests,
                    "your token has " + std::to_string(active.size()) +
                        " jobs queued or running (service.max_jobs_per_token = " +
                        std::to_string(config.max_jobs_per_token) + "); submit more when some have ended, or cancel some"};
  }
  std::uint64_t bytes = 0;
  const auto add = [&](const std::string& job) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(config.state_dir / "uploads" / job, ec), end; !ec && it != end;
         it.increment(ec)) {
      std::error_code fe;
      if (it->is_regular_file(fe)) bytes += it->file_size(fe);
    }
  };
  for (const std::string& job : active) add(job);
  add(id);
  const auto limit = static_cast<std::uint64_t>(config.max_stored_mb_per_token * 1048576.0);
  if (bytes > limit) {
    throw HttpError{http::status::too_many_requests,
                    "your token's queued and running jobs would hold " + size_text(static_cast<double>(bytes)) +
                        " of uploads (service.max_stored_mb_per_token = " + size_text(static_cast<double>(limit)) +
                        "); submit it when some have ended"};
  }
}

std::size_t expire_old_jobs(const ServiceConfig& config, JobStore& store) {
  if (!(config.retention_days > 0)) return 0;
  const std::time_t before = std::time(nullptr) - static_cast<std::time_t>(config.retention_days * 86400.0);
  std::tm parts{};
  gmtime_r(&before, &parts);
  char utc[32];
  std::strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", &parts);  // as utc_timestamp() writes them
  const std::vector<std::string> expired = store.ended_before(utc);
  for (const std::string& id : expired) {
    std::error_code ec;
    fs::remove_all(config.state_dir / "jobs" / id, ec);
    for (const char* side : {".log", ".ini", ".sbatch"}) {  // a job's on several GPUs, or through Slurm
      fs::remove(config.state_dir / "jobs" / (id + side), ec);
    }
    remove_upload(config, id);
    store.remove(id);
  }
  return expired.size();
}

}  // namespace rockperm::app::service
