#include "app/service/runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <omp.h>

#include <chrono>
#include <future>
#include <fstream>
#include <regex>
#include <sstream>

#include "app/campaign.hpp"
#include "app/sample_run.hpp"
#include "app/scheduler.hpp"
#include "app/service/http_server.hpp"
#include "app/service/job_store.hpp"
#include "app/service/retention.hpp"
#include "app/service/spool.hpp"
#include "app/signals.hpp"
#include "io/atomic_file.hpp"
#include "io/volume_source.hpp"
#include "lib/base/error.hpp"
#include "lib/base/system.hpp"
#include "lib/parallel/comm.hpp"

extern char** environ;

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
    RunOptions o = sample_options(config.run_config, {}, config.state_dir / "jobs", sample,
                                  OptionFiles{{folder}, input.parent_path()});
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

// The environment the process was started with, taken before main() (and so before MPI_Init,
// which, in a process started without mpiexec, adds the variables of an MPI singleton that
// would make a child mpiexec believe it runs inside a job and fail).
const std::vector<std::string> initial_environment = [] {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}();

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
  std::vector<std::string> args;
  std::istringstream mpiexec(config_.mpiexec);
  for (std::string word; mpiexec >> word;) args.push_back(word);
  for (const std::string& a : {std::string("-n"), std::to_string(job.gpus), fs::read_symlink("/proc/self/exe").string(),
                               std::string("run")}) {
    args.push_back(a);
  }
  if (options.resume) {
    args.insert(args.end(), {"--resume", dir.string()});
  } else {
    args.insert(args.end(), {"--config", ini.string(), "--overwrite"});
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  // the child starts with no signal blocked or ignored (the service's threads block and ignore some)
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> env_strings = initial_environment;
  std::vector<char*> env;
  for (std::string& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, argv[0], &files, &attributes, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
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
