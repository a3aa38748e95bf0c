#include "app/service/spool.hpp"

#include <boost/program_options.hpp>
#include <chrono>
#include <fstream>
#include <vector>

#include "app/service/job_store.hpp"
#include "app/service/uploads.hpp"
#include "io/atomic_file.hpp"
#include "lib/base/error.hpp"
#include "lib/base/system.hpp"

namespace rockperm::app::service {

namespace fs = std::filesystem;
namespace po = boost::program_options;
using Json = nlohmann::ordered_json;

namespace {

constexpr const char* marker = "rockperm.job";

bool is_ini(const fs::path& p) { return p.extension() == ".ini"; }

// The files of a folder a user dropped (not what the service writes into it).
std::vector<fs::path> dropped_files(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(folder)) {
    const std::string name = e.path().filename().string();
    if (name == marker || name == "results" || name == "READY" || name.rfind('.', 0) == 0) continue;
    files.push_back(e.path());
  }
  return files;
}

// Seconds since anything in the folder changed.
double quiet_seconds(const fs::path& folder) {
  auto newest = fs::last_write_time(folder);
  for (const auto& e : fs::recursive_directory_iterator(folder)) newest = std::max(newest, e.last_write_time());
  return std::chrono::duration<double>(fs::file_time_type::clock::now() - newest).count();
}

// What the service writes into a spool folder is for whoever dropped it there: readable as a
// plain file is (the service itself runs with umask 077)
constexpr auto readable = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;

void write_marker(const fs::path& folder, const Json& content) {
  io::write_file_atomically(folder / marker, content.dump(2) + "\n");
  std::error_code ec;
  fs::permissions(folder / marker, readable, ec);
}

}  // namespace

Spool::Spool(fs::path dir, double settle_s, JobStore& store, Submit submit)
    : dir_(std::move(dir)), settle_s_(settle_s), store_(store), submit_(std::move(submit)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_)) throw InputError("service.spool_dir " + dir_.string() + ": cannot be made");
}

int Spool::scan() {
  int taken = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const fs::path folder = e.path();
    if (!e.is_directory() || folder.filename().string().rfind('.', 0) == 0) continue;
    if (fs::exists(folder / marker)) continue;
    try {
      const std::optional<Job> known = store_.find_by_results_to(folder.string());
      if (known) {  // queued before a stop that came before its marker was written
        deliver_to_spool(*known, {});
        continue;
      }
      const std::vector<fs::path> files = dropped_files(folder);
      if (std::none_of(files.begin(), files.end(), is_ini)) continue;  // not (yet) a job
      if (!fs::exists(folder / "READY") && quiet_seconds(folder) < settle_s_) continue;  // still being copied
      take(folder);
      ++taken;
    } catch (const std::exception&) {
      // the folder changed under us (removed, renamed): looked at again at the next scan
    }
  }
  return taken;
}

void Spool::take(const fs::path& folder) {
  try {
    std::vector<fs::path> files = dropped_files(folder);
    std::vector<fs::path> inis;
    for (const fs::path& f : files) {
      if (is_ini(f)) inis.push_back(f);
    }
    if (inis.size() != 1) throw InputError("the folder holds " + std::to_string(inis.size()) + " INI files; give one");
    std::ifstream in(inis.front());
    po::options_description none;
    po::parsed_options parsed(&none);
    try {
      parsed = po::parse_config_file(in, none, true);
    } catch (const po::error& e) {
      throw InputError(inis.front().filename().string() + ": " + e.what());
    }
    Json options = Json::object();
    fs::path input;
    for (const po::option& o : parsed.options) {
      const std::string value = o.value.empty() ? "" : o.value.front();
      if (o.string_key == "input.file") {
        input = fs::weakly_canonical(folder / value);
        if (fs::path(value).is_absolute() || !fs::exists(input) ||
            std::mismatch(folder.begin(), folder.end(), input.begin(), input.end()).first != folder.end()) {
          throw InputError("input.file = " + value + ": not a file inside the folder");
        }
      } else if (o.string_key != "output.dir") {  // the results go into the folder
        options[o.string_key] = value;
      }
    }
    if (input.empty()) {
      files.erase(std::remove_if(files.begin(), files.end(), is_ini), files.end());
      input = pick_scan(folder, files);
    }
    const std::string id = submit_(input, options, folder);
    write_marker(folder, {{"id", id}, {"state", "queued"}});
  } catch (const std::exception& e) {
    write_marker(folder, {{"state", "refused"}, {"error", e.what()}});
  }
}

void deliver_to_spool(const Job& job, const fs::path& run_dir) {
  const fs::path folder = job.results_to;
  std::error_code ec;
  if (folder.empty() || !fs::is_directory(folder, ec)) return;
  try {
    Json m{{"id", job.id}, {"state", to_string(job.state)}};
    if (job.state == JobState::finished) {
      m["status"] = job.status;
      if (job.status == "converged") m["k_mD"] = job.k_md;
      if (!job.message.empty()) m["message"] = job.message;
    }
    if (!run_dir.empty() && (job.state == JobState::finished || job.state == JobState::cancelled)) {
      fs::create_directories(folder / "results");
      std::error_code ec;
      fs::permissions(folder / "results", readable | fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, ec);
      for (const char* name : {"report.json", "report.html", "report.csv", "config.ini"}) {
        std::ifstream in(run_dir / name, std::ios::binary);
        if (!in) continue;
        io::write_file_atomically(folder / "results" / name,
                                  read_all_text(in));
        fs::permissions(folder / "results" / name, readable, ec);
      }
    }
    write_marker(folder, m);  // last: a reader that sees "finished" finds the results
  } catch (const std::exception&) {
    // the folder went away or is not writable: the job's results stay in the service's state
  }
}

}  // namespace rockperm::app::service
