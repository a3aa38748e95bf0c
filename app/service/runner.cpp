#include "app/service/runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <omp.h>

#include <chrono>
#include <future>
#include <fstream>
#include <iostream>
#include <regex>

#include "app/campaign.hpp"
#include "app/sample_run.hpp"
#include "app/scheduler.hpp"
#include "app/service/http_server.hpp"
#include "app/service/job_store.hpp"
#include "app/service/process.hpp"
#include "app/service/slurm.hpp"
#include "app/service/retention.hpp"
#include "app/service/spool.hpp"
#include "app/signals.hpp"
#include "io/atomic_file.hpp"
#include "io/volume_source.hpp"
#include "lib/base/error.hpp"
#include "lib/base/system.hpp"
#include "lib/parallel/comm.hpp"

namespace rockperm::app::service {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using namespace std::chrono_literals;

// The folder a job may read: its upload, the spool folder or the data root its scan lies in.
static fs::path job_folder(const ServiceConfig& config, const std::string& id, const fs::path& input) {
  std::vector<fs::path> folders{config.state_dir / "uploads" / id};
  if (!config.spool_dir.empty()) folders.push_back(config.spool_dir);
  for (const fs::path& root : config.data_roots) folders.push_back(root);
  for (const fs::path& folder : folders) {
    if (io::resolves_inside(input, folder)) return fs::canonical(folder);
  }
  throw HttpError{http::status::forbidden, "the scan lies outside this job's upload and the server's data roots"};
}

// Whether the job may run with a rank on the host's cores (run.host_share is not off).
static bool host_cores_allowed(const RunOptions& options) {
  return options.spec.execution.host_share.mode != parallel::HostShare::Mode::off;
}

RunOptions job_run_options(const ServiceConfig& config, const std::string& id, const fs::path& input, const Json& options) {
  CampaignSample sample;
  sample.id = id;
  sample.input = input;
  for (const auto& [key, value] : options.items()) {
    if (key == "input.file" || key == "output.dir") {
      throw HttpError{http::status::bad_request, "option '" + key + "' is set by the service"};
    }
    if (!is_run_option(key)) throw HttpError{http::status::bad_request, "'" + key + "' is not an option of rockperm run"};
    if (!value.is_string() && !value.is_number() && !value.is_boolean()) {
      throw HttpError{http::status::bad_request, "option '" + key + "': give a string, number or boolean"};
    }
    sample.overrides.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
  }
  // the job reads its scan and the files its options name (input.grey_labels = @FILE, relative to
  // the scan's folder) inside one folder: its upload, the spool folder or the scan's data root
  const fs::path folder = job_folder(config, id, input);
  try {
    std::error_code ec;  // a stack of slices is a folder: its files are its own folder's
    const fs::path scan_folder = fs::is_directory(input, ec) ? input : input.parent_path();
    RunOptions o = sample_options(config.run_config, {}, config.state_dir / "jobs", sample,
                                  OptionFiles{{folder}, scan_folder});
    validate_run_options(o);
    o.spec.sample.volume.max_voxels = config.max_voxels;
    o.spec.sample.volume.confine_to = folder;
    return o;
  } catch (const InputError& e) {
    throw HttpError{http::status::bad_request, option_message(e)};
  }
}

Runner::Runner(const ServiceConfig& config, JobStore& store, int workers)
    : config_(config), store_(store), workers_(workers) {}

Runner::~Runner() { stop(); }

void Runner::start() {
  if (config_.executor == ServiceConfig::Executor::slurm) {
    threads_.emplace_back([this] { follow_slurm(); });
    return;
  }
  for (int w = 0; w < workers_; ++w) threads_.emplace_back([this, w] { work(w); });
}

void Runner::notify() { cv_.notify_all(); }

void Runner::stop() {
  cv_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

std::optional<Runner::Claimed> Runner::resolve(const Job& job) {
  Claimed c;
  c.ticket = job;
  try {
    c.options = job_run_options(config_, job.id, job.input, Json::parse(job.options));
  } catch (const HttpError& e) {  // the configuration changed since it was submitted
    store_.finish(job.id, JobState::finished, "input_error", 0, e.message);
    deliver_to_spool(*store_.get(job.id), {});
    return std::nullopt;
  }
  deliver_to_spool(job, {});  // "running" in a spool folder's marker
  if (start_for(c.options, false) != Start::run) {  // finished before a stop
    record(job, c.options);
    return std::nullopt;
  }
  return c;
}

std::optional<Runner::Claimed> Runner::claim(int slot, bool ahead) {
  for (;;) {
    std::optional<Job> job;
    {
      std::unique_lock lock(mutex_);
      if (!gang_) job = store_.claim_next(ahead, ahead);
      if (!job) {
        if (!ahead) cv_.wait_for(lock, 500ms);
        return std::nullopt;
      }
      if (!ahead) {
        ++busy_;
        if (job->gpus > 1) {
          gang_ = true;
          cv_.wait(lock, [this] { return busy_ == 1 || StopSignals::requested(); });
        }
      }
    }
    std::optional<Claimed> c;
    try {
      c = resolve(*job);
    } catch (const std::exception& e) {
      store_.finish(job->id, JobState::finished, "runtime_error", 0, std::string("the service failed: ") + e.what());
    }
    if (!c) {  // it ended already: the next one
      if (!ahead) release(job->gpus > 1);
      continue;
    }
    if (ahead && can_read_ahead(c->options, 1) && !c->options.resume) {
      c->read = start_read_ahead(c->options, slot, omp_get_max_threads());
    }
    return c;
  }
}

void Runner::release(bool several) {
  const std::lock_guard lock(mutex_);
  --busy_;
  if (several) gang_ = false;
  cv_.notify_all();
}

// A worker: the next queued job, run to its end (or to a stop), its outcome recorded, on the
// scheduler's queue of claims (app/scheduler.hpp, as a campaign's worker). While a job on one GPU
// runs, the next one is claimed and its sample read and its lattice built (host work, as a
// campaign's read-ahead), so that the GPU waits less between jobs. While a job on several GPUs is
// waiting, no worker takes a new job; it starts once the others are idle.
void Runner::work(int slot) {
  ClaimQueue<Job> queue([this, slot](bool ahead) { return claim(slot, ahead); });
  while (!StopSignals::requested()) {
    std::optional<Claimed> current = queue.next();
    if (!current) continue;  // none queued: claim() waited for one
    const bool several = current->ticket.gpus > 1;
    if (!several) queue.ahead(1);  // the next job of one GPU, prepared while this one runs
    try {
      several ? run_on_several(*current) : run_here(*current, slot);
    } catch (const std::exception& e) {  // a failure of the service's own (a disk full): recorded, the service goes on
      try {
        store_.finish(current->ticket.id, JobState::finished, "runtime_error", 0,
                      std::string("the service failed: ") + e.what());
      } catch (const std::exception&) {
      }
    }
    if (StopSignals::requested()) {
      for (Claimed& c : queue.drain()) store_.requeue(c.ticket.id);  // not started: queued again as they were
    }
    if (queue.waiting() == 0) release(several);  // else the job claimed ahead keeps the worker busy
  }
}

void Runner::run_here(Claimed& claimed, int slot) {
  const Job& job = claimed.ticket;
  RunOptions& options = claimed.options;
  SampleRunSettings settings;
  settings.console = false;
  settings.command_line = "rockperm serve (job " + job.id + ")";
  settings.device_slot = slot;
  if (claimed.read.valid()) settings.read = [&] { return claimed.read.get(); };
  store_.mark_running(job.id);
  auto last_poll = std::chrono::steady_clock::now();
  bool cancelled = store_.cancel_requested(job.id);  // cancelled while it was prepared
  settings.stop_requested = [&] {
    if (StopSignals::requested()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_poll > 250ms) {
      last_poll = now;
      cancelled = cancelled || store_.cancel_requested(job.id);
    }
    return cancelled;
  };
  auto last_progress = std::chrono::steady_clock::now() - std::chrono::hours(1);
  settings.progress = [&](const solve::Progress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_progress < 500ms) return;
    last_progress = now;
    store_.update_progress(job.id, p.step, p.max_steps, p.k.k_md, p.error_estimate, p.seconds);
  };
  try {
    if (!cancelled) run_sample(parallel::Comm(), options, settings);
  } catch (const CapacityError& e) {
    // too large for one GPU: again, on all of them (as a campaign does), or beside the host's cores
    const int ranks = workers_ > 1 ? workers_ : (host_cores_allowed(options) ? workers_ + 1 : 0);
    if (ranks > 0) {
      requeue_larger(job, options, ranks);
      return;
    }
  } catch (const Error&) {
    // recorded in the job's report.json, read below
  }
  if (cancelled) {
    store_.finish(job.id, JobState::cancelled, "cancelled", 0, "cancelled by its owner");
    remove_upload(config_, job.id);
    deliver_to_spool(*store_.get(job.id), {});
    return;
  }
  if (StopSignals::requested()) {
    store_.requeue(job.id);  // checkpointed: resumes when the service starts again
    return;
  }
  record(job, options);
}

namespace {

// The last progress line of a run's log ("step N  k = K mD  error E ..."), if any.
bool last_progress(const fs::path& log, std::int64_t& step, double& k, double& error) {
  std::ifstream in(log, std::ios::binary);
  if (!in) return false;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - 4096));
  const std::string tail = read_all_text(in);
  static const std::regex line(R"(step\s+(\d+)\s+k =\s+(\S+) mD\s+error\s+(\S+))");
  bool found = false;
  for (auto it = std::sregex_iterator(tail.begin(), tail.end(), line); it != std::sregex_iterator(); ++it) {
    try {
      step = std::stoll((*it)[1]);
      k = std::stod((*it)[2]);
      error = (*it)[3] == "?" ? 0 : std::stod((*it)[3]);
      found = true;
    } catch (const std::exception&) {
    }
  }
  return found;
}

// A run's report.json, or a discarded value where it left none readable.
Json read_report(const fs::path& dir) {
  std::ifstream in(dir / "report.json");
  return Json::parse(read_all_text(in), nullptr, false);
}

// The "reason" of a run's report ("capacity": the sample needs more GPU memory than its ranks
// hold), or nothing.
std::string report_reason(const Json& report) {
  return report.is_object() && report.contains("reason") && report["reason"].is_string() ? report["reason"].get<std::string>()
                                                                                       : std::string();
}

}  // namespace

void Runner::requeue_larger(const Job& job, const RunOptions& options, int ranks) {
  // the report of the attempt that did not fit would mark the run failed when the job is claimed
  // again (app/scheduler.hpp: start_for): without it the run starts afresh
  std::error_code ec;
  fs::remove(options.spec.output.dir / "report.json", ec);
  store_.requeue_on(job.id, ranks);
}

// `mpiexec -n gpus rockperm run` over the job's run directory, its output in run.log there; the
// ranks take the GPUs by host name (rank r of the host: GPU r), which are idle while it runs.
void Runner::run_on_several(Claimed& claimed) {
  const Job& job = claimed.ticket;
  const RunOptions& options = claimed.options;
  const fs::path dir = options.spec.output.dir;
  fs::create_directories(config_.state_dir / "jobs");
  const fs::path ini = config_.state_dir / "jobs" / (job.id + ".ini");
  io::write_file_atomically(ini, to_ini(options));
  const fs::path log = config_.state_dir / "jobs" / (job.id + ".log");
  std::vector<std::string> args = command_words(config_.mpiexec);
  for (const std::string& a : {std::string("-n"), std::to_string(job.gpus), fs::read_symlink("/proc/self/exe").string(),
                               std::string("run")}) {
    args.push_back(a);
  }
  if (options.resume) {
    args.insert(args.end(), {"--resume", dir.string()});
  } else {
    args.insert(args.end(), {"--config", ini.string(), "--overwrite"});
  }
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  pid_t pid = 0;
  const int spawned = spawn(args, files, pid);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) {
    store_.finish(job.id, JobState::finished, "runtime_error", 0,
                  "cannot start '" + args[0] + "' (" + std::strerror(spawned) + "); set service.mpiexec");
    deliver_to_spool(*store_.get(job.id), {});
    return;
  }
  bool cancelled = false, stopping = false;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (!cancelled && !stopping) {
      cancelled = store_.cancel_requested(job.id);
      stopping = StopSignals::requested();
      if (cancelled || stopping) ::kill(pid, SIGTERM);  // mpiexec passes it on: the ranks checkpoint and stop
    }
    std::int64_t step = 0;
    double k = 0, error = 0;
    if (last_progress(log, step, k, error)) {
      store_.update_progress(job.id, step, options.spec.execution.max_steps, k, error, 0);
    }
    std::this_thread::sleep_for(250ms);
  }
  if (cancelled) {
    store_.finish(job.id, JobState::cancelled, "cancelled", 0, "cancelled by its owner");
    remove_upload(config_, job.id);
    deliver_to_spool(*store_.get(job.id), {});
  } else if (stopping) {
    store_.requeue(job.id);
  } else if (job.gpus == workers_ && host_cores_allowed(options) && report_reason(read_report(dir)) == "capacity") {
    requeue_larger(job, options, workers_ + 1);  // too large for all the GPUs: again, with the host's cores beside them
  } else {
    record(job, options);
  }
}

// The job's outcome from its report.json.
void Runner::record(const Job& job, const RunOptions& options) {
  const Json report = read_report(options.spec.output.dir);
  if (report.is_discarded() || !report.is_object()) {
    store_.finish(job.id, JobState::finished, "runtime_error", 0,
                  "the run left no readable report.json" +
                      (job.gpus > 1 ? "; see " + (config_.state_dir / "jobs" / (job.id + ".log")).string() : ""));
  } else {
    double k = 0, porosity = 0;
    if (report.contains("permeability") && report["permeability"].contains("mD") &&
        report["permeability"]["mD"].is_number()) {
      k = report["permeability"]["mD"].get<double>();
    }
    if (report.contains("porosity") && report["porosity"].is_number()) porosity = report["porosity"].get<double>();
    Json details = Json::object();
    if (report.contains("trust") && report["trust"].is_object() && report["trust"].contains("verdict")) {
      details["verdict"] = report["trust"]["verdict"];
    }
    if (report.contains("conduction") && report["conduction"].is_object()) {  // run.formation_factor
      const Json& c = report["conduction"];
      for (const char* key : {"formation_factor", "formation_factor_error", "cementation_exponent"}) {
        if (c.contains(key) && c[key].is_number()) details[key] = c[key];
      }
    }
    if (report.contains("two_phase") && report["two_phase"].is_object()) {  // capillary.curves: the summary
      const Json& t = report["two_phase"];
      for (const char* key : {"entry_pressure_Pa", "breakthrough_pressure_Pa", "residual_wetting_saturation",
                              "residual_nonwetting_saturation"}) {
        if (t.contains(key) && t[key].is_number()) details[key] = t[key];
      }
      if (t.contains("relative_permeability") && t["relative_permeability"].is_array()) {
        details["relative_permeability_points"] = t["relative_permeability"].size();
      }
    }
    if (report.contains("forchheimer") && report["forchheimer"].is_object()) {  // forchheimer.sweep: the summary
      const Json& f = report["forchheimer"];
      if (f.contains("fit") && f["fit"].is_object()) {
        for (const auto& [key, name] : {std::pair{"k_mD", "forchheimer_k_mD"}, std::pair{"beta_per_m", "forchheimer_beta_per_m"},
                                        std::pair{"c_F", "forchheimer_c_F"}}) {
          if (f["fit"].contains(key) && f["fit"][key].is_number()) details[name] = f["fit"][key];
        }
      }
      for (const char* key : {"reynolds_1pct", "reynolds_10pct"}) {
        if (f.contains(key) && f[key].is_number()) details[key] = f[key];
      }
      if (f.contains("points") && f["points"].is_object() && f["points"].contains("reynolds")) {
        details["forchheimer_points"] = f["points"]["reynolds"].size();
      }
    }
    details["warnings"] = Json::array();
    if (report.contains("warnings") && report["warnings"].is_array()) {
      for (const Json& w : report["warnings"]) {
        if (w.is_object()) details["warnings"].push_back({{"code", w.value("code", "")}, {"message", w.value("message", "")}});
      }
    }
    store_.finish(job.id, JobState::finished, report.value("status", "runtime_error"), k, report.value("message", ""),
                  porosity, details.dump());
  }
  deliver_to_spool(*store_.get(job.id), options.spec.output.dir);
}

}  // namespace rockperm::app::service

namespace rockperm::app::service {

void Runner::follow_slurm() {
  const auto poll = std::chrono::duration<double>(config_.slurm.poll_s);
  auto last_poll = std::chrono::steady_clock::now() - std::chrono::hours(1);
  bool said = false;  // a failure of the service's own, said once until it clears
  while (!StopSignals::requested()) {
    try {
      // one squeue for the jobs submitted now: a job of the service's name already in Slurm
      std::optional<std::map<std::string, SlurmState>> queue;
      while (!StopSignals::requested()) {
        std::optional<Job> job = store_.claim_next();
        if (!job) break;
        if (!queue) queue = slurm_queue();
        if (!queue) {  // squeue fails: nothing submitted that may be there already
          store_.requeue(job->id);
          throw RuntimeFailure("squeue failed: the queued jobs wait for it");
        }
        try {
          submit_to_slurm(*job, *queue);
        } catch (const std::exception& e) {
          store_.finish(job->id, JobState::finished, "runtime_error", 0, std::string("the service failed: ") + e.what());
          deliver_to_spool(*store_.get(job->id), {});
        }
      }
      if (std::chrono::steady_clock::now() - last_poll >= poll) {
        last_poll = std::chrono::steady_clock::now();
        track_slurm();
      }
      said = false;
    } catch (const std::exception& e) {
      if (!said) std::cerr << "rockperm serve: following the Slurm jobs failed (" << e.what() << "); tried again\n";
      said = true;
    }
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, std::min<std::chrono::duration<double>>(poll, 500ms));
  }
}

void Runner::submit_to_slurm(const Job& job, const std::map<std::string, SlurmState>& queue) {
  std::optional<Claimed> claimed = resolve(job);  // its options checked again; a job ended already is recorded
  if (!claimed) return;
  const RunOptions& options = claimed->options;
  // claimed again after a stop of the server between sbatch and the id's record: the job
  // already in Slurm is the one followed
  if (const auto live = live_job_named(queue, "rockperm-" + job.id)) {
    store_.set_scheduled(job.id, *live, "", "");
    return;
  }
  const fs::path jobs = config_.state_dir / "jobs";
  fs::create_directories(jobs);
  const fs::path ini = jobs / (job.id + ".ini"), script = jobs / (job.id + ".sbatch"), log = jobs / (job.id + ".log");
  const fs::path rockperm =
      config_.slurm.rockperm.empty() ? fs::read_symlink("/proc/self/exe") : config_.slurm.rockperm;
  io::write_file_atomically(ini, to_ini(options));
  io::write_file_atomically(script, batch_script(config_.slurm, rockperm, ini, options.spec.output.dir));
  const int gpus = std::clamp(job.gpus, 1, config_.slurm.max_gpus);
  std::string id;
  try {
    id = slurm_submit(sbatch_command(config_.slurm, job.id, gpus, script, log));
  } catch (const RuntimeFailure& e) {
    store_.finish(job.id, JobState::finished, "runtime_error", 0,
                  std::string(e.what()) + " (the server's service.slurm_* settings, or the cluster, refuse it)");
    deliver_to_spool(*store_.get(job.id), {});
    return;
  }
  store_.set_scheduled(job.id, id, "PENDING", "");
}

void Runner::track_slurm() {
  const std::vector<Job> jobs = store_.scheduled();
  if (jobs.empty()) return;
  const auto queue = slurm_queue();
  if (!queue) throw RuntimeFailure("squeue failed: no job is taken for ended on its word");
  for (const Job& job : jobs) {
    const auto it = queue->find(job.scheduler_id);
    if (job.cancel_requested) {
      slurm_cancel(job.scheduler_id);
      store_.finish(job.id, JobState::cancelled, "cancelled", 0, "cancelled by its owner");
      remove_upload(config_, job.id);
      deliver_to_spool(*store_.get(job.id), {});
      continue;
    }
    if (it != queue->end() && !it->second.ended()) {
      if (it->second.state != job.scheduler_state || it->second.reason != job.scheduler_reason) {
        store_.set_scheduled(job.id, job.scheduler_id, it->second.state, it->second.reason);
      }
      std::int64_t step = 0;
      double k = 0, error = 0;
      if (last_progress(config_.state_dir / "jobs" / (job.id + ".log"), step, k, error)) {
        store_.update_progress(job.id, step, job.max_steps, k, error, 0);
      }
      continue;
    }
    // it ended: squeue's last word, else sacct's (a job gone from squeue's memory); a job that
    // squeue left out while sacct still has it pending or running is followed on, not ended
    SlurmState last = it != queue->end() ? it->second : slurm_accounting(job.scheduler_id).value_or(SlurmState{});
    if (it == queue->end() && !last.state.empty() && !last.ended()) continue;
    conclude_slurm(job, last.state, last.reason);
  }
}

void Runner::conclude_slurm(const Job& job, const std::string& state, const std::string& reason) {
  RunOptions options;
  try {
    options = job_run_options(config_, job.id, job.input, Json::parse(job.options));
  } catch (const HttpError& e) {
    store_.finish(job.id, JobState::finished, "input_error", 0, e.message);
    deliver_to_spool(*store_.get(job.id), {});
    return;
  }
  const Json report = read_report(options.spec.output.dir);
  const std::string status = report.is_object() ? report.value("status", "") : "";
  const std::string how = state.empty() ? "left Slurm's queue (sacct knows no more of it)"
                                        : "ended " + state + (reason.empty() || reason == "None" ? "" : " (" + reason + ")");
  if (state == "CANCELLED") {  // scancel by someone other than the service: the job's end, said as it was
    store_.finish(job.id, JobState::cancelled, "cancelled", 0,
                  "Slurm job " + job.scheduler_id + " was cancelled in Slurm (scancel)" +
                      (status == "interrupted" ? "; its checkpoint is kept in its run directory" : ""));
    deliver_to_spool(*store_.get(job.id), {});
    return;
  }
  if (status == "interrupted") {  // stopped with a checkpoint, and Slurm did not run it again: submitted again, resumed
    store_.requeue(job.id);
    return;
  }
  if (!status.empty()) {
    if (report_reason(report) == "capacity" && job.gpus < config_.slurm.max_gpus) {
      requeue_larger(job, options, std::min(config_.slurm.max_gpus, 2 * job.gpus));  // afresh, on more GPUs
      return;
    }
    record(job, options);
    return;
  }
  const Json details{{"scheduler_state", state}, {"scheduler_reason", reason}, {"warnings", Json::array()}};
  store_.finish(job.id, JobState::finished, "runtime_error", 0,
                "Slurm job " + job.scheduler_id + " " + how + " before rockperm wrote its report; see " +
                    (config_.state_dir / "jobs" / (job.id + ".log")).string(),
                0, details.dump());
  deliver_to_spool(*store_.get(job.id), {});
}

}  // namespace rockperm::app::service
