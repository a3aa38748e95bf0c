#include "app/service/server.hpp"

#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "app/campaign.hpp"
#include "app/options.hpp"
#include "app/service/auth.hpp"
#include "app/service/client_json.hpp"
#include "app/service/http_server.hpp"
#include "app/service/job_store.hpp"
#include "app/service/multipart.hpp"
#include "app/service/retention.hpp"
#include "app/service/runner.hpp"
#include "app/service/spool.hpp"
#include "app/service/uploads.hpp"
#include "app/signals.hpp"
#include "io/archive.hpp"
#include "io/atomic_file.hpp"
#include "io/volume_source.hpp"
#include "lib/base/error.hpp"
#include "lib/base/system.hpp"
#include "rockperm/config.hpp"
#if ROCKPERM_HAVE_CUDA
#include "cuda/device_info.hpp"
#endif

namespace rockperm::app::service {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::string new_job_id() {
  std::string id = random_hex(8);
  id.insert(0, 1, 'j');  // an id is never all digits
  return id;
}

// The path of a request's target, without its query.
std::string path_of(const http::request_header<>& h) {
  const std::string target(h.target());
  return target.substr(0, target.find('?'));
}

// The queue's database in `state_dir`, made first (InputError when it cannot be).
fs::path state_file(const fs::path& state_dir) {
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  if (ec) throw InputError("service.state_dir " + state_dir.string() + ": cannot be created (" + ec.message() + ")");
  return state_dir / "jobs.sqlite";
}

// The state directory's lock: one rockperm serve at a time on it (a second would requeue the
// first's running jobs). InputError when another holds it.
FileLock lock_state_dir(const fs::path& state_dir) {
  state_file(state_dir);  // made first
  std::optional<FileLock> lock = FileLock::try_take(state_dir / "serve.lock");
  if (!lock) {
    throw InputError("service.state_dir " + state_dir.string() +
                     ": another rockperm serve uses it; stop that one first, or give this one its own state_dir");
  }
  return std::move(*lock);
}

// service.workers, or one per visible GPU, or one on a machine without.
int count_workers(const ServiceConfig& config) {
  if (config.executor == ServiceConfig::Executor::slurm) return config.slurm.max_gpus;  // GPUs a job may ask for
  if (config.workers > 0) return config.workers;
#if ROCKPERM_HAVE_CUDA
  return std::max<int>(1, static_cast<int>(cuda::list_devices().devices.size()));
#else
  return 1;
#endif
}

class Service final : public RequestHandler {
 public:
  explicit Service(const ServiceConfig& config)
      : config_(config),
        lock_(lock_state_dir(config.state_dir)),
        tokens_(config.tokens),
        store_(state_file(config.state_dir)),
        workers_(count_workers(config)),
        runner_(config_, store_, workers_) {
    std::error_code ec;
    tokens_time_ = fs::last_write_time(config.tokens, ec);
    for (const fs::path& root : config.data_roots) {
      std::error_code ec;
      const fs::path resolved = fs::canonical(root, ec);
      if (ec || !fs::is_directory(resolved)) {
        throw InputError("service.data_root " + root.string() + ": not a directory");
      }
      roots_.push_back(resolved);
    }
  }

  // retention_days: at the start and every hour (run())
  void expire_old_jobs_now() {
    const std::size_t n = expire_old_jobs(config_, store_);
    if (n > 0) {
      std::cout << "rockperm serve: removed " << n << " job" << (n > 1 ? "s" : "")
                << " ended more than service.retention_days = " << config_.retention_days << " days ago\n" << std::flush;
    }
  }

  int run() {
    if (const std::size_t removed = remove_unfinished_uploads(config_, store_)) {
      std::cout << "rockperm serve: removed " << removed << " unfinished upload" << (removed > 1 ? "s" : "")
                << " left by an earlier stop\n";
    }
    expire_old_jobs_now();
    const bool slurm = config_.executor == ServiceConfig::Executor::slurm;
    const int requeued = store_.requeue_running(slurm);  // those in Slurm are followed again by their ids
    TransportLimits limits;
    limits.request_timeout_s = config_.request_timeout_s;
    limits.max_upload_bytes = static_cast<std::uint64_t>(config_.max_upload_mb * 1048576.0);
    limits.spool_dir = config_.state_dir / "uploads";
    limits.max_connections = config_.max_connections;
    limits.max_connections_per_client = config_.max_connections_per_client;
    HttpServer server(config_.address, config_.port, limits, *this);
    const int port = server.port();
    io::write_file_atomically(config_.state_dir / "port", std::to_string(port) + "\n");
    std::cout << "rockperm serve: http://" << config_.address << ":" << port << "/ ("
              << (slurm ? "jobs through Slurm, " + std::to_string(store_.scheduled().size()) + " of them submitted"
                        : std::to_string(workers_) + " worker" + (workers_ > 1 ? "s" : ""))
              << ", state in " << config_.state_dir.string() << ", "
              << store_.count(JobState::queued) << " queued"
              << (requeued > 0 ? ", " + std::to_string(requeued) + " of them resumed after a stop" : std::string())
              << ")\n"
              << std::flush;

    runner_.start();
    std::vector<std::thread> workers;
    if (!config_.spool_dir.empty()) {
      workers.emplace_back([this] {
        Spool spool(config_.spool_dir, config_.spool_settle_s, store_,
                    [this](const fs::path& input, const Json& options, const fs::path& folder) {
                      return enqueue(new_job_id(), "spool", input, options, folder).id;
                    });
        while (!StopSignals::requested()) {
          spool.scan();
          for (int i = 0; i < 10 && !StopSignals::requested(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      });
    }
    workers.emplace_back([this] {  // housekeeping: expired jobs, every hour
      for (auto last = std::chrono::steady_clock::now(); !StopSignals::requested();
           std::this_thread::sleep_for(std::chrono::milliseconds(200))) {
        if (std::chrono::steady_clock::now() - last < std::chrono::hours(1)) continue;
        last = std::chrono::steady_clock::now();
        try {
          expire_old_jobs_now();
        } catch (const std::exception& e) {
          std::cerr << "rockperm serve: removing expired jobs failed (" << e.what() << "); tried again in an hour\n";
        }
      }
    });
    server.serve([] { return StopSignals::requested(); });
    std::cout << (slurm ? "rockperm serve: stopping; the jobs in Slurm go on and are followed again at the next start\n"
                        : "rockperm serve: stopping; running jobs checkpoint and stay queued\n")
              << std::flush;
    runner_.stop();
    for (std::thread& t : workers) t.join();
    return 0;
  }

 private:
  bool is_upload(const http::request_header<>& h) const override {
    return h.method() == http::verb::post && path_of(h) == "/api/jobs" &&
           std::string(h[http::field::content_type]).rfind("application/json", 0) != 0;
  }

  bool needs_token(const http::request_header<>& h) const override {
    const std::string path = path_of(h);
    return path.rfind("/api/", 0) == 0 && path != "/api/health";
  }

  Reply handle(const Incoming& in) override {
    try {
      return route(in);
    } catch (const InputError& e) {  // the request named something that is not right
      throw HttpError{http::status::bad_request, client_text(option_message(e))};
    } catch (const HttpError& e) {
      throw HttpError{e.status, client_text(e.message)};
    } catch (const OutputError& e) {  // the server's disk (full, or not writable): not the client's fault
      throw HttpError{http::status::insufficient_storage,
                      "the service cannot store this request now (" + client_text(e.what()) + "); try again later"};
    } catch (const std::exception& e) {
      throw HttpError{http::status::internal_server_error, "the service failed: " + client_text(e.what())};
    }
  }

  // A message for a client, without the server's own paths: the state directory's and the data
  // roots' prefixes are cut, so that a file is named as the client named it.
  std::string client_text(std::string message) const {
    std::vector<std::string> prefixes;
    for (const fs::path& root : roots_) prefixes.push_back((root / "").string());
    for (const fs::path& root : config_.data_roots) prefixes.push_back((root / "").string());
    std::error_code ec;
    const fs::path state = fs::weakly_canonical(config_.state_dir, ec);
    for (const fs::path& p : {config_.state_dir, state}) {
      prefixes.push_back((p / "uploads" / "").string());
      prefixes.push_back((p / "").string());
    }
    if (!config_.spool_dir.empty()) prefixes.push_back((config_.spool_dir / "").string());
    for (const std::string& prefix : prefixes) {
      for (auto at = message.find(prefix); at != std::string::npos; at = message.find(prefix)) {
        message.erase(at, prefix.size());
      }
    }
    // a job's upload folder: "<id>/file" reads as "file"
    static const std::regex upload_folder(R"(\bj[0-9a-f]{16}/)");
    return std::regex_replace(message, upload_folder, "");
  }

  // The owner of the request's token. The token file is read again when it changed, so that
  // tokens are added and revoked without a restart (a file that then fails to parse is ignored,
  // with a message, and the tokens read before stay).
  std::string authenticate(const http::request_header<>& head) override {
    const auto header = head.find(http::field::authorization);
    if (header == head.end()) throw HttpError{http::status::unauthorized, "an Authorization: Bearer <token> header is needed"};
    const std::string value(header->value());
    if (value.rfind("Bearer ", 0) != 0) throw HttpError{http::status::unauthorized, "the Authorization header must be 'Bearer <token>'"};
    const std::lock_guard lock(tokens_mutex_);
    std::error_code ec;
    const auto changed = fs::last_write_time(config_.tokens, ec);
    if (!ec && changed != tokens_time_) {
      tokens_time_ = changed;
      try {
        tokens_ = TokenStore(config_.tokens);
      } catch (const Error& e) {
        std::cerr << "rockperm serve: the tokens file changed but cannot be used (" << e.what()
                  << "); the tokens read before stay\n";
      }
    }
    const std::optional<std::string> owner = tokens_.owner(value.substr(7));
    if (!owner) throw HttpError{http::status::forbidden, "unknown token"};
    return *owner;
  }

  Reply route(const Incoming& in) {
    check_host(in.head, config_.allowed_hosts);
    const std::string path = path_of(in.head);
    const http::verb method = in.head.method();
    if ((path == "/" || path == "/index.html" || path == "/api/health") && method != http::verb::get &&
        method != http::verb::head) {
      throw HttpError{http::status::method_not_allowed, "use GET on " + path};
    }
    if (path == "/" || path == "/index.html") {
      Reply r;
      r.response = Response{http::status::ok, 11};
      r.response.set(http::field::content_type, "text/html; charset=utf-8");
      r.response.set(http::field::cache_control, "no-store");
      r.response.body() = web_page;
      return r;
    }
    if (path == "/api/health") {
      return json_reply({{"status", "ok"},
                         {"queued", store_.count(JobState::queued)},
                         {"preparing", store_.count(JobState::preparing)},
                         {"running", store_.count(JobState::running)},
                         {"workers", workers_}});
    }
    if (path.rfind("/api/", 0) != 0) throw HttpError{http::status::not_found, "no such resource: " + path};
    const std::string owner = in.owner.empty() ? authenticate(in.head) : in.owner;
    if (path == "/api/jobs") {
      if (method == http::verb::post) return submit(in, owner);
      if (method == http::verb::get) {
        Json list = Json::array();
        for (const Job& j : store_.list(owner)) list.push_back(describe(j));
        return json_reply({{"jobs", list}});
      }
      throw HttpError{http::status::method_not_allowed, "use GET or POST on /api/jobs"};
    }
    const std::string prefix = "/api/jobs/";
    if (path.rfind(prefix, 0) != 0) throw HttpError{http::status::not_found, "no such resource: " + path};
    const std::string rest = path.substr(prefix.size());
    const std::string id = rest.substr(0, rest.find('/'));
    const std::string file = rest.find('/') == std::string::npos ? "" : rest.substr(rest.find('/') + 1);
    const std::optional<Job> job = store_.get(id);
    if (!job || job->owner != owner) throw HttpError{http::status::not_found, "no job " + id + " of yours"};
    if (file.empty()) {
      if (method == http::verb::get) return json_reply(describe(*job));
      if (method == http::verb::delete_) {
        store_.cancel(id, owner);
        const Job now = *store_.get(id);
        if (now.state == JobState::cancelled) remove_upload(config_, id);  // a running one: when it stops
        return json_reply(describe(now));
      }
      throw HttpError{http::status::method_not_allowed, "use GET or DELETE on a job"};
    }
    if (method != http::verb::get) throw HttpError{http::status::method_not_allowed, "use GET"};
    return job_file(*job, file);
  }

  // A file of a job's run directory: its reports, or its fields as one zip (made on the first request).
  Reply job_file(const Job& job, const std::string& file) {
    const char* type = file == "report.json"   ? "application/json"
                       : file == "report.html" ? "text/html; charset=utf-8"
                       : file == "report.csv"  ? "text/csv"
                       : file == "fields.zip"  ? "application/zip"
                                               : nullptr;
    if (!type) throw HttpError{http::status::not_found, "a job has report.json, report.html, report.csv and fields.zip"};
    const fs::path dir = job_dir(job.id);
    fs::path path = dir / file;
    if (file == "fields.zip") {
      if (job.state != JobState::finished) {
        throw HttpError{http::status::not_found, "the fields of job " + job.id + " are written when it ends (state " +
                                                     to_string(job.state) + ")"};
      }
      const std::lock_guard lock(zip_mutex_);
      if (!fs::exists(path)) {
        std::vector<fs::path> fields;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir, ec)) {
          const std::string n = e.path().filename().string();
          // the flow fields, and the phases of each two-phase point (capillary.curves)
          const bool flow = n.rfind("fields", 0) == 0 && (e.path().extension() == ".vti" || e.path().extension() == ".pvti");
          const bool phases = n.rfind("phases_", 0) == 0 && e.path().extension() == ".vti" && e.is_regular_file(ec);
          if (flow || phases) {
            fields.push_back(e.path());
          }
        }
        if (fields.empty()) {
          throw HttpError{http::status::not_found, "job " + job.id + " wrote no fields (output.fields = off)"};
        }
        std::sort(fields.begin(), fields.end());
        io::write_zip(path, fields);
      }
    }
    if (!fs::exists(path)) {
      throw HttpError{http::status::not_found, file + " of job " + job.id + " is not written yet (state " +
                                                   to_string(job.state) + ")"};
    }
    Reply r;
    r.response = Response{http::status::ok, 11};
    r.response.set(http::field::content_type, type);
    if (file == "fields.zip") {
      r.response.set(http::field::content_disposition, "attachment; filename=\"" + job.id + "-fields.zip\"");
      r.file = path;
      return r;
    }
    // the reports name the scan and run directory by the server's paths: a client sees them as
    // it named them (the upload's file, the path inside the data root)
    std::ifstream in(path, std::ios::binary);
    r.response.body() = client_text(read_all_text(in));
    return r;
  }

  fs::path job_dir(const std::string& id) const { return config_.state_dir / "jobs" / id; }

  Json describe(const Job& j) const {
    Json d;
    d["id"] = j.id;
    d["state"] = to_string(j.state);
    d["input"] = fs::path(j.input).filename().string();
    d["submitted_utc"] = j.submitted_utc;
    if (!j.started_utc.empty()) d["started_utc"] = j.started_utc;
    if (!j.finished_utc.empty()) d["finished_utc"] = j.finished_utc;
    d["options"] = Json::parse(j.options, nullptr, false);
    if (j.state == JobState::running) {
      Json p{{"step", j.step}, {"max_steps", j.max_steps}, {"k_mD", j.k_md}, {"error_estimate", j.error_estimate},
             {"seconds", j.seconds}};
      // a run stops when k is steady, usually long before max_steps: a time from max_steps
      // would mislead, and the convergence rate gives no honest one before it is nearly steady
      p["eta_seconds"] = nullptr;
      d["progress"] = p;
    }
    if (j.state == JobState::finished) {
      d["status"] = j.status;
      if (j.status == "converged" && j.k_md > 0) d["k_mD"] = j.k_md;  // none for F alone (run.formation_factor = only)
      if (j.porosity > 0) d["porosity"] = j.porosity;
      // a run's messages name files by the server's paths: shown as the client named them
      if (!j.message.empty()) d["message"] = client_text(j.message);
      Json details = Json::parse(j.details, nullptr, false);
      if (details.is_object()) {
        if (details.contains("warnings") && details["warnings"].is_array()) {
          for (Json& w : details["warnings"]) {
            if (w.is_object() && w.contains("message") && w["message"].is_string()) {
              w["message"] = client_text(w["message"].get<std::string>());
            }
          }
        }
        for (const auto& [key, value] : details.items()) d[key] = value;
      }
      d["report"] = "/api/jobs/" + j.id + "/report.json";
      d["report_html"] = "/api/jobs/" + j.id + "/report.html";
      d["fields"] = "/api/jobs/" + j.id + "/fields.zip";
    }
    if (j.gpus > 1) d["gpus"] = std::min(j.gpus, workers_);
    if (j.gpus > workers_) d["host_cores"] = true;  // too large for the GPUs: a rank on the host's cores beside them
    if (!j.results_to.empty()) d["spool_folder"] = fs::path(j.results_to).filename().string();
    if (!j.scheduler_id.empty()) {  // service.executor = slurm: where the job is in Slurm
      Json s{{"system", "slurm"}, {"job_id", j.scheduler_id}};
      if (!j.scheduler_state.empty()) s["state"] = j.scheduler_state;
      if (!j.scheduler_reason.empty() && j.scheduler_reason != "None") s["reason"] = j.scheduler_reason;
      d["scheduler"] = s;
    }
    if (j.cancel_requested && (j.state == JobState::running || j.state == JobState::preparing)) d["cancelling"] = true;
    return d;
  }

  // POST /api/jobs: JSON {"path": <a scan inside a data root>, "options": {...}}; or the scan as
  // the body (application/octet-stream, or application/zip / x-tar) with the headers
  // X-Rockperm-Filename and X-Rockperm-Options (JSON); or multipart/form-data with the scan's
  // file(s) and an "options" field (what the web page and `curl -F` send).
  Reply submit(const Incoming& in, const std::string& owner) {
    const std::string type(in.head[http::field::content_type]);
    const std::string id = new_job_id();
    if (type.rfind("application/json", 0) == 0) {
      const Json body = parse_client_json(in.body, "the JSON body");
      if (body.is_discarded() || !body.is_object()) throw HttpError{http::status::bad_request, "the body is not a JSON object"};
      if (!body.contains("path") || !body["path"].is_string()) {
        throw HttpError{http::status::bad_request, "give \"path\": the scan's path inside a data root of the server"};
      }
      const Json options = body.contains("options") ? body["options"] : Json::object();
      const int gpus = body.contains("gpus") ? gpus_asked(json_scalar(body["gpus"], "\"gpus\"")) : 1;
      return json_reply(
          describe(enqueue(id, owner, resolve_server_path(body["path"].get<std::string>()), options, {}, gpus)),
          http::status::created);
    }
    const fs::path dir = config_.state_dir / "uploads" / id;
    fs::create_directories(dir);
    try {
      Json options = Json::object();
      int gpus = 1;
      std::vector<fs::path> files;
      if (type.rfind("multipart/form-data", 0) == 0) {
        FormData form;
        try {
          form = parse_form_data(in.body_file, type, dir, [](const std::string& n) { return upload_file_name(n); },
                                 config_.max_files);
        } catch (const TooManyParts& e) {
          throw HttpError{http::status::payload_too_large, e.what()};
        } catch (const MalformedMultipart& e) {
          throw HttpError{http::status::bad_request, e.what()};
        }
        if (form.fields.count("options") && !form.fields["options"].empty()) {
          options = parse_client_json(form.fields["options"], "the \"options\" field");
        }
        if (form.fields.count("path")) throw HttpError{http::status::bad_request, "\"path\" is for JSON submissions"};
        if (form.fields.count("gpus")) gpus = gpus_asked(form.fields["gpus"]);
        files = form.files;
        if (files.empty()) throw HttpError{http::status::bad_request, "the form holds no file (a part with a filename)"};
      } else if (type.rfind("application/octet-stream", 0) == 0 || type.rfind("application/zip", 0) == 0 ||
                 type.rfind("application/x-tar", 0) == 0 || type.rfind("application/gzip", 0) == 0) {
        const std::string name(in.head["X-Rockperm-Filename"]);
        if (!io::safe_file_name(name)) {
          throw HttpError{http::status::bad_request,
                          "X-Rockperm-Filename: a file name of letters, digits, '.', '_', '-' (its extension tells the "
                          "format: .raw .tif .nrrd .mhd, or .zip .tar .tar.gz of TIFF slices)"};
        }
        const std::string header(in.head["X-Rockperm-Options"]);
        if (!header.empty()) options = parse_client_json(header, "X-Rockperm-Options");
        if (!in.head["X-Rockperm-GPUs"].empty()) gpus = gpus_asked(std::string(in.head["X-Rockperm-GPUs"]));
        if (fs::file_size(in.body_file) == 0) throw HttpError{http::status::bad_request, "the upload is empty"};
        fs::rename(in.body_file, dir / name);
        files.push_back(dir / name);
      } else {
        throw HttpError{http::status::unsupported_media_type,
                        "send application/json {\"path\", \"options\"}, multipart/form-data, or the scan as "
                        "application/octet-stream"};
      }
      fs::path input;
      try {
        input = unpack_upload(dir, files, {static_cast<std::uint64_t>(config_.max_unpacked_mb * 1048576.0), config_.max_files});
      } catch (const InputError& e) {
        throw HttpError{http::status::unprocessable_entity, e.what()};
      }
      return json_reply(describe(enqueue(id, owner, input, options, {}, gpus)), http::status::created);
    } catch (const HttpError& e) {
      std::error_code ec;
      fs::remove_all(dir, ec);  // nothing of a refused upload stays
      std::string message = e.message;  // the file as the user named it, not where the server keeps it
      const std::string where = (dir / "").string();
      for (auto at = message.find(where); at != std::string::npos; at = message.find(where)) message.erase(at, where.size());
      throw HttpError{e.status, message};
    } catch (...) {
      std::error_code ec;
      fs::remove_all(dir, ec);
      throw;
    }
  }

  // A number or string of a JSON request as text (what gpus_asked() reads); other types are refused.
  static std::string json_scalar(const Json& value, const std::string& what) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number()) return value.dump();
    throw HttpError{http::status::bad_request, what + ": give a number, not a JSON " + std::string(value.type_name())};
  }

  // "gpus": how many GPUs (workers) a job runs on, 1 to service.workers.
  int gpus_asked(const std::string& text) const {
    int n = 0;
    try {
      std::size_t used = 0;
      n = std::stoi(text, &used);
      if (used != text.size()) n = 0;
    } catch (const std::exception&) {
      n = 0;
    }
    if (n < 1 || n > workers_) {
      throw HttpError{http::status::bad_request, "\"gpus\": give 1 to " + std::to_string(workers_) +
                                                     " (the GPUs, or workers, of this service), not " + text};
    }
    return n;
  }

  // Checks a job (its options, and its scan's header) and queues it; throws HttpError.
  Job enqueue(const std::string& id, const std::string& owner, const fs::path& input, const Json& options,
              const fs::path& results_to, int gpus = 1) {
    if (options.is_discarded() || !options.is_object()) {
      throw HttpError{http::status::bad_request, "\"options\" must be a JSON object"};
    }
    const RunOptions run = job_run_options(config_, id, input, options);
    check_quota(config_, store_, owner, id);
    try {
      check_scan(run.spec.sample.volume, config_.max_voxels);
    } catch (const InputError& e) {
      throw HttpError{http::status::unprocessable_entity, option_message(e)};
    }
    Job job;
    job.id = id;
    job.owner = owner;
    job.input = input.string();
    job.options = options.dump();
    job.results_to = results_to.string();
    job.gpus = gpus;
    store_.insert(job);
    runner_.notify();
    return *store_.get(id);
  }

  fs::path resolve_server_path(const std::string& text) const {
    if (roots_.empty()) throw HttpError{http::status::forbidden, "this server takes uploads only (no service.data_root)"};
    const fs::path asked(text);
    for (const auto& part : asked) {
      if (part == "..") throw HttpError{http::status::forbidden, "'..' is not allowed in a path"};
    }
    for (const fs::path& root : roots_) {
      const fs::path candidate = asked.is_absolute() ? asked : root / asked;
      std::error_code ec;
      const fs::path resolved = fs::canonical(candidate, ec);  // symbolic links followed
      if (ec) continue;
      if (!io::resolves_inside(resolved, root)) continue;
      return resolved;
    }
    // a file outside the roots (named, or reached through a link) and a missing one get one answer:
    // a different one would tell a client what exists on the server outside them
    throw HttpError{http::status::forbidden,
                    text + " is no file inside the data roots of this server (a missing file and one outside them are "
                           "refused alike); name a scan by its path inside a data root"};
  }

  ServiceConfig config_;
  FileLock lock_;
  std::mutex tokens_mutex_;
  TokenStore tokens_;
  fs::file_time_type tokens_time_;
  std::mutex zip_mutex_;
  JobStore store_;
  int workers_ = 1;
  Runner runner_;
  std::vector<fs::path> roots_;
};

}  // namespace

int serve(const ServiceConfig& config) {
  // the queue, tokens, uploads and reports are the service's own, as under its systemd unit
  // (they were 644/755 when started by hand); results copied into a spool folder are made readable
  // as before (deliver_to_spool)
  ::umask(077);
  const StopSignals signals;
  Service service(config);
  return service.run();
}

}  // namespace rockperm::app::service
