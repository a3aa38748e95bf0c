#pragma once
// The spool directory: a second front door of rockperm serve for instruments and scripts
// without HTTP. A folder dropped into it with a scan and an INI (rockperm run's options; its
// input.file, when given, relative to the folder) becomes a job once nothing in it changed for
// spool_settle_s, or at once when it holds a file named READY. The folder then gets
// rockperm.job (JSON: the job's id and state, rewritten as the state changes) and, when the job
// ends, results/ with report.json, report.html, report.csv and config.ini. A folder that cannot
// be a job gets rockperm.job with "state": "refused" and the reason, and is left alone after.
#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace rockperm::app::service {

class JobStore;
struct Job;

class Spool {
 public:
  // Queues a job; returns its id or throws std::exception with the reason it is refused.
  using Submit = std::function<std::string(const std::filesystem::path& input, const nlohmann::ordered_json& options,
                                           const std::filesystem::path& folder)>;
  Spool(std::filesystem::path dir, double settle_s, JobStore& store, Submit submit);
  // Takes the folders that are ready; returns how many became jobs.
  int scan();

 private:
  void take(const std::filesystem::path& folder);
  std::filesystem::path dir_;
  double settle_s_;
  JobStore& store_;
  Submit submit_;
};

// Writes `job`'s marker into its spool folder and, once it has ended, copies its reports from
// `run_dir` into the folder's results/. Failures (the folder was removed) are ignored.
void deliver_to_spool(const Job& job, const std::filesystem::path& run_dir);

}  // namespace rockperm::app::service
