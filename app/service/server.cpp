#include "app/service/server.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <utility>  // before Boost.Asio 1.74, which uses std::exchange without it
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/program_options.hpp>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/campaign.hpp"
#include "app/options.hpp"
#include "app/sample_run.hpp"
#include "app/service/auth.hpp"
#include "app/service/job_store.hpp"
#include "app/signals.hpp"
#include "io/atomic_file.hpp"
#include "lib/base/error.hpp"
#include "lib/parallel/comm.hpp"
#include "rockperm/config.hpp"
#if ROCKPERM_HAVE_CUDA
#include "cuda/device_info.hpp"
#endif

namespace rockperm::app::service {

namespace {

namespace fs = std::filesystem;
namespace http = boost::beast::http;
namespace po = boost::program_options;
using tcp = boost::asio::ip::tcp;
using Json = nlohmann::ordered_json;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// An HTTP error with its status and a message for the client (JSON {"error": ...}).
struct HttpError {
  http::status status;
  std::string message;
};

std::string new_job_id() { return "j" + random_hex(8); }

bool valid_file_name(const std::string& name) {
  return !name.empty() && name.size() <= 200 && name != "." && name != ".." &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '.' || c == '_' || c == '-';
         });
}

// `inner` (resolved: symbolic links followed) lies inside `root` (resolved too).
bool inside(const fs::path& inner, const fs::path& root) {
  const auto r = std::mismatch(root.begin(), root.end(), inner.begin(), inner.end());
  return r.first == root.end();
}

// The queue's database in `state_dir`, made first (InputError when it cannot be).
fs::path state_file(const fs::path& state_dir) {
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  if (ec) throw InputError("service.state_dir " + state_dir.string() + ": cannot be created (" + ec.message() + ")");
  return state_dir / "jobs.sqlite";
}

class Service {
 public:
  explicit Service(const ServiceConfig& config)
      : config_(config), tokens_(config.tokens), store_(state_file(config.state_dir)) {
    for (const fs::path& root : config.data_roots) {
      std::error_code ec;
      const fs::path resolved = fs::canonical(root, ec);
      if (ec || !fs::is_directory(resolved)) {
        throw InputError("service.data_root " + root.string() + ": not a directory");
      }
      roots_.push_back(resolved);
    }
    workers_ = config.workers;
    if (workers_ <= 0) {
      workers_ = 1;
#if ROCKPERM_HAVE_CUDA
      workers_ = std::max<int>(1, static_cast<int>(cuda::list_devices().devices.size()));
#endif
    }
  }

  int run() {
    const int requeued = store_.requeue_running();
    boost::asio::io_context io;
    tcp::acceptor acceptor(io);
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(config_.address, ec);
    if (ec) throw InputError("service.listen: '" + config_.address + "' is not an IP address");
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(config_.port));
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(boost::asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
    if (ec) {
      throw InputError("service.listen: cannot listen on " + config_.address + ":" + std::to_string(config_.port) +
                       " (" + ec.message() + ")");
    }
    const int port = acceptor.local_endpoint().port();
    io::write_file_atomically(config_.state_dir / "port", std::to_string(port) + "\n");
    std::cout << "rockperm serve: http://" << config_.address << ":" << port << "/ (" << workers_ << " worker"
              << (workers_ > 1 ? "s" : "") << ", state in " << config_.state_dir.string() << ", "
              << store_.count(JobState::queued) << " queued"
              << (requeued > 0 ? ", " + std::to_string(requeued) + " of them resumed after a stop" : std::string())
              << ")\n"
              << std::flush;

    std::vector<std::thread> workers;
    for (int w = 0; w < workers_; ++w) workers.emplace_back([this, w] { work(w); });
    while (!StopSignals::requested()) {
      pollfd p{acceptor.native_handle(), POLLIN, 0};
      if (::poll(&p, 1, 200) <= 0) continue;
      tcp::socket socket(io);
      acceptor.accept(socket, ec);
      if (ec) continue;
      {
        std::unique_lock lock(connections_mutex_);
        connections_cv_.wait(lock, [this] { return connections_ < config_.max_connections; });
        ++connections_;
      }
      std::thread([this, s = std::move(socket)]() mutable {
        session(std::move(s));
        const std::lock_guard lock(connections_mutex_);
        --connections_;
        connections_cv_.notify_one();
      }).detach();
    }
    std::cout << "rockperm serve: stopping; running jobs checkpoint and stay queued\n" << std::flush;
    acceptor.close();
    queue_cv_.notify_all();
    for (std::thread& t : workers) t.join();
    // the connections' threads use this object: wait for them (an idle one ends at its timeout)
    std::unique_lock lock(connections_mutex_);
    connections_cv_.wait(lock, [this] { return connections_ == 0; });
    return 0;
  }

 private:
  // One connection: requests until the client closes, a timeout or an error.
  void session(tcp::socket socket) {
    timeval timeout{};
    timeout.tv_sec = static_cast<long>(config_.request_timeout_s);
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    boost::beast::flat_buffer buffer;
    boost::system::error_code ec;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(16 * 1024);
      parser.body_limit(static_cast<std::uint64_t>(config_.max_upload_mb * 1048576.0));
      http::read(socket, buffer, parser, ec);
      if (ec == http::error::end_of_stream || ec == boost::asio::error::eof) break;
      Response response;
      bool keep_alive = false;
      if (ec == http::error::body_limit) {
        response = error_response(http::status::payload_too_large, 11,
                                  "the upload is larger than service.max_upload_mb = " +
                                      std::to_string(static_cast<long>(config_.max_upload_mb)) + " MB");
      } else if (ec) {
        if (ec == boost::asio::error::would_block || ec == boost::asio::error::timed_out) break;  // too slow
        response = error_response(http::status::bad_request, 11, "malformed HTTP request: " + ec.message());
      } else {
        const Request& request = parser.get();
        keep_alive = request.keep_alive();
        response = handle(request);
        response.version(request.version());
      }
      response.keep_alive(keep_alive);
      response.set(http::field::server, "rockperm/" ROCKPERM_VERSION);
      response.prepare_payload();
      http::write(socket, response, ec);
      if (ec || !keep_alive) break;
    }
    socket.shutdown(tcp::socket::shutdown_send, ec);
  }

  static Response error_response(http::status status, unsigned version, const std::string& message) {
    Response r{status, version};
    r.set(http::field::content_type, "application/json");
    r.body() = Json{{"error", message}}.dump() + "\n";
    return r;
  }

  static Response json_response(const Json& j, http::status status = http::status::ok) {
    Response r{status, 11};
    r.set(http::field::content_type, "application/json");
    r.body() = j.dump(2) + "\n";
    return r;
  }

  Response handle(const Request& request) {
    try {
      return route(request);
    } catch (const HttpError& e) {
      Response r = error_response(e.status, 11, e.message);
      if (e.status == http::status::unauthorized) r.set(http::field::www_authenticate, "Bearer realm=\"rockperm\"");
      return r;
    } catch (const std::exception& e) {
      return error_response(http::status::internal_server_error, 11, e.what());
    }
  }

  std::string authenticate(const Request& request) const {
    const auto header = request.find(http::field::authorization);
    if (header == request.end()) throw HttpError{http::status::unauthorized, "an Authorization: Bearer <token> header is needed"};
    const std::string value(header->value());
    if (value.rfind("Bearer ", 0) != 0) throw HttpError{http::status::unauthorized, "the Authorization header must be 'Bearer <token>'"};
    const std::optional<std::string> owner = tokens_.owner(value.substr(7));
    if (!owner) throw HttpError{http::status::forbidden, "unknown token"};
    return *owner;
  }

  Response route(const Request& request) {
    const std::string target(request.target());
    const std::string path = target.substr(0, target.find('?'));
    if (path == "/api/health") {
      return json_response({{"status", "ok"},
                            {"queued", store_.count(JobState::queued)},
                            {"running", store_.count(JobState::running)},
                            {"workers", workers_}});
    }
    if (path.rfind("/api/", 0) != 0) throw HttpError{http::status::not_found, "no such resource: " + path};
    const std::string owner = authenticate(request);
    if (path == "/api/jobs") {
      if (request.method() == http::verb::post) return submit(request, owner);
      if (request.method() == http::verb::get) {
        Json list = Json::array();
        for (const Job& j : store_.list(owner)) list.push_back(describe(j));
        return json_response({{"jobs", list}});
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
      if (request.method() == http::verb::get) return json_response(describe(*job));
      if (request.method() == http::verb::delete_) {
        store_.cancel(id, owner);
        return json_response(describe(*store_.get(id)));
      }
      throw HttpError{http::status::method_not_allowed, "use GET or DELETE on a job"};
    }
    if (request.method() != http::verb::get) throw HttpError{http::status::method_not_allowed, "use GET"};
    const char* type = file == "report.json" ? "application/json" : file == "report.html" ? "text/html; charset=utf-8"
                                                                 : file == "report.csv"  ? "text/csv"
                                                                                         : nullptr;
    if (!type) throw HttpError{http::status::not_found, "a job has report.json, report.html and report.csv"};
    std::ifstream in(job_dir(id) / file, std::ios::binary);
    if (!in) throw HttpError{http::status::not_found, file + " of job " + id + " is not written yet (state " +
                                                           to_string(job->state) + ")"};
    Response r{http::status::ok, 11};
    r.set(http::field::content_type, type);
    r.body().assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
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
    if (j.state == JobState::running || j.step > 0) {
      Json p{{"step", j.step}, {"max_steps", j.max_steps}, {"k_mD", j.k_md}, {"error_estimate", j.error_estimate},
             {"seconds", j.seconds}};
      if (j.state == JobState::running && j.step > 0 && j.max_steps > j.step) {
        p["eta_seconds_at_most"] = j.seconds / static_cast<double>(j.step) * static_cast<double>(j.max_steps - j.step);
      }
      d["progress"] = p;
    }
    if (j.state == JobState::finished) {
      d["status"] = j.status;
      if (j.status == "converged") d["k_mD"] = j.k_md;
      if (!j.message.empty()) d["message"] = j.message;
      d["report"] = "/api/jobs/" + j.id + "/report.json";
      d["report_html"] = "/api/jobs/" + j.id + "/report.html";
    }
    if (j.cancel_requested && j.state == JobState::running) d["cancelling"] = true;
    return d;
  }

  // The run options of a job, checked as rockperm run checks them (HttpError 400 otherwise).
  RunOptions job_options(const std::string& id, const fs::path& input, const Json& options) const {
    CampaignSample sample;
    sample.id = id;
    sample.input = input;
    for (const auto& [key, value] : options.items()) {
      if (key == "input.file" || key == "output.dir") {
        throw HttpError{http::status::bad_request, "option '" + key + "' is set by the service"};
      }
      if (!is_run_option(key)) {
        throw HttpError{http::status::bad_request, "'" + key + "' is not an option of rockperm run"};
      }
      if (!value.is_string() && !value.is_number() && !value.is_boolean()) {
        throw HttpError{http::status::bad_request, "option '" + key + "': give a string, number or boolean"};
      }
      sample.overrides.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
    }
    try {
      RunOptions o = sample_options(config_.run_config, {}, config_.state_dir / "jobs", sample);
      validate_run_options(o);
      return o;
    } catch (const InputError& e) {
      throw HttpError{http::status::bad_request, option_message(e)};
    }
  }

  // POST /api/jobs: JSON {"path": <a scan inside a data root>, "options": {...}}, or the scan
  // itself as the body (application/octet-stream) with the headers X-Rockperm-Filename and
  // X-Rockperm-Options (JSON).
  Response submit(const Request& request, const std::string& owner) {
    const std::string type(request[http::field::content_type]);
    const std::string id = new_job_id();
    fs::path input;
    Json options = Json::object();
    if (type.rfind("application/json", 0) == 0) {
      const Json body = Json::parse(request.body(), nullptr, false);
      if (body.is_discarded() || !body.is_object()) throw HttpError{http::status::bad_request, "the body is not a JSON object"};
      if (!body.contains("path") || !body["path"].is_string()) {
        throw HttpError{http::status::bad_request, "give \"path\": the scan's path inside a data root of the server"};
      }
      if (body.contains("options")) options = body["options"];
      input = resolve_server_path(body["path"].get<std::string>());
    } else if (type.rfind("application/octet-stream", 0) == 0) {
      const std::string name(request["X-Rockperm-Filename"]);
      if (!valid_file_name(name)) {
        throw HttpError{http::status::bad_request, "X-Rockperm-Filename: a file name of letters, digits, '.', '_', '-' "
                                                   "(its extension tells the format: .raw .tif .nrrd .mhd)"};
      }
      const std::string header(request["X-Rockperm-Options"]);
      if (!header.empty()) options = Json::parse(header, nullptr, false);
      if (request.body().empty()) throw HttpError{http::status::bad_request, "the upload is empty"};
      input = config_.state_dir / "uploads" / id / name;
    } else {
      throw HttpError{http::status::unsupported_media_type,
                      "send application/json {\"path\", \"options\"} or the scan as application/octet-stream"};
    }
    if (options.is_discarded() || !options.is_object()) throw HttpError{http::status::bad_request, "\"options\" must be a JSON object"};
    if (type.rfind("application/octet-stream", 0) == 0) {
      fs::create_directories(input.parent_path());
      io::write_file_atomically(input, request.body());
    }
    try {
      job_options(id, input, options);  // checked before anything is queued
    } catch (...) {
      std::error_code ec;
      if (type.rfind("application/octet-stream", 0) == 0) fs::remove_all(input.parent_path(), ec);
      throw;
    }
    Job job;
    job.id = id;
    job.owner = owner;
    job.input = input.string();
    job.options = options.dump();
    store_.insert(job);
    queue_cv_.notify_one();
    return json_response(describe(*store_.get(id)), http::status::created);
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
      if (!inside(resolved, root)) continue;
      return resolved;
    }
    for (const fs::path& root : roots_) {
      std::error_code ec;
      const fs::path resolved = fs::canonical(asked.is_absolute() ? asked : root / asked, ec);
      if (!ec) throw HttpError{http::status::forbidden, text + " lies outside the data roots of this server"};
    }
    throw HttpError{http::status::bad_request, text + ": no such file inside the data roots"};
  }

  // A worker: the next queued job, run to its end (or to a stop), its outcome recorded.
  void work(int slot) {
    while (!StopSignals::requested()) {
      std::optional<Job> job = store_.claim_next();
      if (!job) {
        std::unique_lock lock(queue_mutex_);
        queue_cv_.wait_for(lock, std::chrono::milliseconds(500));
        continue;
      }
      run_job(*job, slot);
    }
  }

  void run_job(const Job& job, int slot) {
    RunOptions options;
    try {
      options = job_options(job.id, job.input, Json::parse(job.options));
    } catch (const HttpError& e) {  // the configuration changed since it was submitted
      store_.finish(job.id, JobState::finished, "input_error", 0, e.message);
      return;
    }
    const SampleState state = inspect_sample(options);
    if (state == SampleState::done || state == SampleState::failed) {  // finished before a stop
      record(job, options);
      return;
    }
    options.resume = state == SampleState::resume;
    options.overwrite = !options.resume;
    SampleRunSettings settings;
    settings.console = false;
    settings.command_line = "rockperm serve (job " + job.id + ")";
    settings.device_slot = slot;
    auto last_poll = std::chrono::steady_clock::now();
    bool cancelled = false;
    settings.stop_requested = [&] {
      if (StopSignals::requested()) return true;
      const auto now = std::chrono::steady_clock::now();
      if (now - last_poll > std::chrono::milliseconds(250)) {
        last_poll = now;
        cancelled = cancelled || store_.cancel_requested(job.id);
      }
      return cancelled;
    };
    auto last_progress = std::chrono::steady_clock::now() - std::chrono::hours(1);
    settings.progress = [&](const Progress& p) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_progress < std::chrono::milliseconds(500)) return;
      last_progress = now;
      store_.update_progress(job.id, p.step, p.max_steps, p.k.k_md, p.error_estimate, p.seconds);
    };
    try {
      run_sample(Comm(), options, settings);
    } catch (const Error&) {
      // recorded in the job's report.json, read below
    }
    if (cancelled) {
      store_.finish(job.id, JobState::cancelled, "cancelled", 0, "cancelled by its owner");
      return;
    }
    if (StopSignals::requested()) {
      store_.requeue(job.id);  // checkpointed: resumes when the service starts again
      return;
    }
    record(job, options);
  }

  // The job's outcome from its report.json.
  void record(const Job& job, const RunOptions& options) {
    std::ifstream in(options.spec.output.dir / "report.json");
    const Json report = Json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()),
                                    nullptr, false);
    if (report.is_discarded() || !report.is_object()) {
      store_.finish(job.id, JobState::finished, "runtime_error", 0, "the run left no readable report.json");
      return;
    }
    double k = 0;
    if (report.contains("permeability") && report["permeability"].contains("mD") &&
        report["permeability"]["mD"].is_number()) {
      k = report["permeability"]["mD"].get<double>();
    }
    store_.finish(job.id, JobState::finished, report.value("status", "runtime_error"), k, report.value("message", ""));
  }

  ServiceConfig config_;
  TokenStore tokens_;
  JobStore store_;
  std::vector<fs::path> roots_;
  int workers_ = 1;
  std::mutex queue_mutex_;
  std::condition_variable queue_cv_;
  std::mutex connections_mutex_;
  std::condition_variable connections_cv_;
  int connections_ = 0;
};

}  // namespace

ServiceConfig read_service_config(const fs::path& ini) {
  std::ifstream in(ini);
  if (!in) throw InputError("--config " + ini.string() + ": cannot be read");
  po::options_description d;
  d.add_options()("service.listen", po::value<std::string>())("service.state_dir", po::value<std::string>())(
      "service.tokens", po::value<std::string>())("service.data_root", po::value<std::vector<std::string>>()->composing())(
      "service.run_config", po::value<std::string>())("service.workers", po::value<int>())(
      "service.max_upload_mb", po::value<double>())("service.request_timeout_s", po::value<double>())(
      "service.max_connections", po::value<int>());
  po::variables_map vm;
  try {
    po::store(po::parse_config_file(in, d, false), vm);
  } catch (const po::error& e) {
    throw InputError(ini.string() + ": " + e.what() + " (keys of [service]: listen, state_dir, tokens, data_root, "
                     "run_config, workers, max_upload_mb, request_timeout_s, max_connections)");
  }
  const fs::path base = fs::absolute(ini).parent_path();
  const auto path = [&](const std::string& text) { return fs::path(text).is_absolute() ? fs::path(text) : base / text; };
  ServiceConfig c;
  if (vm.count("service.listen")) {
    const std::string listen = vm["service.listen"].as<std::string>();
    const auto colon = listen.rfind(':');
    if (colon == std::string::npos) throw InputError("service.listen: give ADDRESS:PORT, e.g. 127.0.0.1:8750");
    c.address = listen.substr(0, colon);
    try {
      c.port = std::stoi(listen.substr(colon + 1));
    } catch (const std::exception&) {
      c.port = -1;
    }
    if (c.port < 0 || c.port > 65535) throw InputError("service.listen: the port must be 0 to 65535");
  }
  if (!vm.count("service.state_dir")) throw InputError("service.state_dir: needed (where the queue and the jobs live)");
  c.state_dir = path(vm["service.state_dir"].as<std::string>());
  c.tokens = vm.count("service.tokens") ? path(vm["service.tokens"].as<std::string>()) : c.state_dir / "tokens";
  if (vm.count("service.data_root")) {
    for (const std::string& r : vm["service.data_root"].as<std::vector<std::string>>()) c.data_roots.push_back(path(r));
  }
  if (vm.count("service.run_config")) c.run_config = path(vm["service.run_config"].as<std::string>());
  if (vm.count("service.workers")) c.workers = vm["service.workers"].as<int>();
  if (vm.count("service.max_upload_mb")) c.max_upload_mb = vm["service.max_upload_mb"].as<double>();
  if (vm.count("service.request_timeout_s")) c.request_timeout_s = vm["service.request_timeout_s"].as<double>();
  if (vm.count("service.max_connections")) c.max_connections = vm["service.max_connections"].as<int>();
  if (c.workers < 0 || c.max_upload_mb <= 0 || c.request_timeout_s < 1 || c.max_connections < 1) {
    throw InputError(ini.string() + ": service.workers >= 0, max_upload_mb > 0, request_timeout_s >= 1, "
                     "max_connections >= 1");
  }
  return c;
}

int serve(const ServiceConfig& config) {
  const StopSignals signals;
  Service service(config);
  return service.run();
}

}  // namespace rockperm::app::service
