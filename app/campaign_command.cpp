// rockperm campaign: the samples of a manifest (or a directory of scans), each run as `rockperm
// run` runs one, into <campaign>/<id>/, with campaign.csv and campaign.json rewritten after
// every sample (app/campaign.hpp). Over MPI every rank is a worker with its own samples, one
// per GPU (the ranks of a host take its GPUs by host name); Slurm array tasks take every n-th
// sample. Re-running the same command continues: done samples are skipped, interrupted ones
// resumed, failed ones re-run with --retry-failed.
#include <omp.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "app/campaign.hpp"
#include "app/scheduler.hpp"
#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/sample_run.hpp"
#include "app/signals.hpp"
#include "io/atomic_file.hpp"
#include "lib/base/error.hpp"
#include "lib/base/system.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/parallel/device_assignment.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/report.hpp"
#include "pipeline/sample.hpp"

namespace rockperm::app {

namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;

// The exit code of a campaign that ran to its end with samples that failed (docs/manual/campaigns.md).
constexpr int partial_exit_code = 9;

struct CampaignOptions {
  fs::path manifest, scans, base_ini, dir;
  std::string subvolumes;  // --subvolumes: cubes cut from every sample
  bool retry_failed = false;
  int array_index = 0, array_size = 1;
  int read_ahead = 2;  // samples prepared on other threads while one runs (one-rank workers)
  std::vector<std::pair<std::string, std::string>> common;  // --section.key=value for every sample
};

std::string campaign_help() {
  return "usage: rockperm campaign (--manifest FILE.csv | --scans DIR) [--config BASE.ini] [--dir DIR]\n"
         "                         [--retry-failed] [--subvolumes E1,E2,...] [--array-index I --array-size N]\n"
         "                         [--read-ahead K]\n"
         "                         [--section.key=value ...]\n\n"
         "Runs every sample of the manifest as 'rockperm run' would, each in DIR/<id>/, and keeps DIR/campaign.csv\n"
         "and DIR/campaign.json up to date after every sample. The same command again continues: samples whose\n"
         "report matches their input (SHA-256) and configuration are skipped, interrupted ones resume from their\n"
         "checkpoint, failed ones run again only with --retry-failed.\n\n"
         "  --manifest FILE.csv   one row per sample: columns id, input (relative to the CSV's folder) and any\n"
         "                        option of rockperm run by its key (e.g. lbm.flow_axis, input.dims) whose\n"
         "                        non-empty cells override the base configuration for that sample\n"
         "  --scans DIR           every volume in DIR (.raw .nrrd .nhdr .mhd .tif .tiff, sub-directories of\n"
         "                        slices), id = file name without extension\n"
         "  --config BASE.ini     the configuration every sample starts from (as for rockperm run)\n"
         "  --dir DIR             the campaign directory (default: <manifest or scans name>.campaign)\n"
         "  --retry-failed        run again the samples that failed (not converged, diverged, bad input, ...)\n"
         "  --subvolumes E1,E2    cut every sample into the cubes of these edges (voxels) that fit, each a sample\n"
         "                        of its own; centred:E1,E2,... one centred cube per edge (a growing sequence);\n"
         "                        DIR/subvolumes.csv gives k and porosity per edge: mean, spread, cubes\n"
         "  --array-index I       with --array-size N: take samples I, I+N, I+2N, ... (0-based; Slurm job\n"
         "  --array-size N        arrays: --array-index $SLURM_ARRAY_TASK_ID)\n"
         "  --read-ahead K        samples each worker reads and prepares (percolation, pore analysis, lattice) on\n"
         "                        other threads while its current one runs (default 2; 0: none); each holds\n"
         "                        its volume and lattice in host memory\n"
         "  --section.key=value   an option of rockperm run for every sample (rows override it)\n\n"
         "Over MPI ranks (mpiexec -n G rockperm campaign ...) every rank runs its own samples, one per GPU.\n"
         "Exit codes, of what this command knows: 0 every sample it ran converged; 9 partial (a sample it ran\n"
         "failed, or one of its share failed before and was kept; campaign.csv says which and why); samples\n"
         "another process still runs are not counted. 6 interrupted by a signal (run the same command again\n"
         "to continue); 2 a bad manifest or option in any row (nothing was run).\n";
}

CampaignOptions parse_campaign_options(const std::vector<std::string>& args, bool& help) {
  po::options_description known;
  known.add_options()("manifest", po::value<std::string>())("scans", po::value<std::string>())(
      "config", po::value<std::string>())("dir", po::value<std::string>())("retry-failed", "")(
      "subvolumes", po::value<std::string>())(
      "array-index", po::value<int>())("array-size", po::value<int>())("read-ahead", po::value<int>())("help,h", "");
  po::variables_map vm;
  po::parsed_options parsed({});
  try {
    parsed = po::command_line_parser(args).options(known).allow_unregistered().positional({}).run();
    po::store(parsed, vm);
  } catch (const po::error& e) {
    throw InputError(std::string("command line: ") + e.what() + "; see rockperm campaign --help");
  }
  CampaignOptions o;
  help = vm.count("help") > 0;
  if (help) return o;
  for (const std::string& a : po::collect_unrecognized(parsed.options, po::include_positional)) {
    const auto eq = a.find('=');
    const std::string key = a.rfind("--", 0) == 0 ? a.substr(2, eq == std::string::npos ? eq : eq - 2) : "";
    if (key.empty() || eq == std::string::npos || !is_run_option(key)) {
      throw InputError("command line: '" + a + "' is not an option of rockperm campaign nor a --section.key=value "
                       "option of rockperm run; see rockperm campaign --help");
    }
    if (key == "input.file" || key == "output.dir") {
      throw InputError("command line: --" + key + " is set for each sample by the campaign; use --manifest or "
                       "--scans, and --dir");
    }
    o.common.emplace_back(key, a.substr(eq + 1));
  }
  if (vm.count("manifest") == vm.count("scans")) {
    throw InputError("command line: give either --manifest FILE.csv or --scans DIR; see rockperm campaign --help");
  }
  if (vm.count("manifest")) o.manifest = vm["manifest"].as<std::string>();
  if (vm.count("scans")) o.scans = vm["scans"].as<std::string>();
  if (vm.count("config")) o.base_ini = fs::absolute(vm["config"].as<std::string>());
  o.retry_failed = vm.count("retry-failed") > 0;
  if (vm.count("subvolumes")) o.subvolumes = vm["subvolumes"].as<std::string>();
  if (vm.count("array-index") != vm.count("array-size")) {
    throw InputError("command line: --array-index and --array-size go together");
  }
  if (vm.count("array-size")) {
    o.array_index = vm["array-index"].as<int>();
    o.array_size = vm["array-size"].as<int>();
    if (o.array_size < 1 || o.array_index < 0 || o.array_index >= o.array_size) {
      throw InputError("command line: --array-index must be in [0, --array-size) and --array-size at least 1 (got " +
                       std::to_string(o.array_index) + " of " + std::to_string(o.array_size) + ")");
    }
  }
  if (vm.count("read-ahead")) {
    o.read_ahead = vm["read-ahead"].as<int>();
    if (o.read_ahead < 0 || o.read_ahead > 64) {
      throw InputError("command line: --read-ahead must be 0 to 64 samples (got " + std::to_string(o.read_ahead) + ")");
    }
  }
  const fs::path source = o.manifest.empty() ? o.scans : o.manifest;
  o.dir = vm.count("dir") ? fs::path(vm["dir"].as<std::string>())
                          : fs::current_path() / (source.lexically_normal().filename().stem().string() + ".campaign");
  o.dir = fs::absolute(o.dir).lexically_normal();
  return o;
}

// One line on a sample's outcome: k and steps, or (a tensor, a failure) the status and message.
std::string result_line(const pipeline::SampleResult& r) {
  if (r.steps == 0) return std::string(to_string(r.status)) + ": " + r.message;
  std::ostringstream o;
  o.precision(6);
  o << to_string(r.status) << ": k = " << r.k.k_md << " mD after " << r.steps << " steps";
  return o.str();
}

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char text[32];
  std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return text;
}

// A sample whose options cannot even be formed (a bad cell of the manifest) gets a report too.
void report_bad_options(const fs::path& dir, const CampaignSample& sample, const InputError& e) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  pipeline::SampleResult r;
  r.status = pipeline::RunStatus::input_error;
  r.message = option_message(e);
  r.input.path = sample.input;
  r.input.name = sample.input.filename().string();
  pipeline::write_reports(dir, r);
}

}  // namespace

int campaign_command(const std::vector<std::string>& args) {
  const parallel::Comm world = parallel::Comm::world();
  bool help = false;
  CampaignOptions options;
  Manifest manifest;
  parallel::collectively(world, [&] {
    options = parse_campaign_options(args, help);
    if (help) return;
    manifest = options.manifest.empty() ? scan_directory(options.scans) : read_manifest(options.manifest);
    if (!options.subvolumes.empty()) {
      manifest = cut_subvolumes(manifest, options.subvolumes, options.base_ini, options.common, options.dir);
    }
    // every sample's options (the common ones and its row's) are checked before any work: a bad
    // value in any row stops the campaign with exit 2 before a sample runs
    const std::string from = options.manifest.empty() ? "scans directory " + options.scans.string()
                                                      : "manifest " + options.manifest.string();
    for (const CampaignSample& sample : manifest.samples) {
      try {
        validate_run_options(sample_options(options.base_ini, options.common, options.dir, sample));
      } catch (const InputError& e) {
        throw InputError(from + ", sample '" + sample.id + "': " + option_message(e) + "; no sample was run");
      } catch (const PhysicsError& e) {
        throw PhysicsError(from + ", sample '" + sample.id + "': " + e.what() + "; no sample was run");
      }
    }
    std::error_code ec;
    fs::create_directories(options.dir / ".locks", ec);
    if (ec) throw InputError("--dir " + options.dir.string() + ": cannot be created (" + ec.message() + ")");
  });
  if (help) {
    if (world.root()) std::cout << campaign_help();
    return 0;
  }
  const StopSignals signals;
  const parallel::Comm worker = world.split(world.rank(), 0);  // one rank, one GPU, one sample at a time
  // the host work of the workers of a host (reading, percolation, pore analysis) shares its
  // cores: each takes its part unless OMP_NUM_THREADS says otherwise
  const std::vector<std::string> hosts = parallel::every_rank(world, host_name());
  const int workers_here = static_cast<int>(std::count(hosts.begin(), hosts.end(), host_name()));
  const int device_slot = parallel::assign_devices(hosts)[static_cast<std::size_t>(world.rank())];  // place on its host
  const std::size_t host_count = std::set<std::string>(hosts.begin(), hosts.end()).size();
  // a rank beyond its host's GPUs (started for the host's cores, run.host_share) finds no GPU for
  // a sample of its own: it claims none, and joins the samples too large for one GPU, which run
  // on every rank together, as the rank on the host's cores
  const int gpus_here = pipeline::usable_gpus();
  const bool host_worker = gpus_here > 0 && device_slot >= gpus_here;
  const int host_workers = static_cast<int>(world.sum(host_worker ? 1.0 : 0.0));
  if (!std::getenv("OMP_NUM_THREADS") && workers_here > 1) omp_set_num_threads(std::max(1, omp_get_num_procs() / workers_here));
  // the workers of this command mark what they took with one token, so that a worker behind
  // does not inspect (hash) again what another has just finished
  std::vector<std::uint8_t> token_bytes;
  if (world.root()) {
    const std::string t = std::to_string(::getpid()) + "-" +
                          std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
    token_bytes.assign(t.begin(), t.end());
  }
  world.broadcast(token_bytes);
  const std::string token(token_bytes.begin(), token_bytes.end());
  std::vector<std::size_t> share;
  for (std::size_t i = static_cast<std::size_t>(options.array_index); i < manifest.samples.size();
       i += static_cast<std::size_t>(options.array_size)) {
    share.push_back(i);
  }
  if (world.root()) {
    std::cout << "campaign    " << manifest.samples.size() << " samples from " << manifest.source.string();
    if (options.array_size > 1) {
      std::cout << "; array task " << options.array_index << " of " << options.array_size << ": " << share.size();
    }
    std::cout << "\ndirectory   " << options.dir.string() << " (campaign.csv, campaign.json, <id>/report.json)\n"
              << "workers     " << world.size() - host_workers << " rank(s)"
              << (host_count > 1 ? " on " + std::to_string(host_count) + " hosts" : std::string())
              << ", one sample each at a time"
              << (host_workers > 0 ? "; " + std::to_string(host_workers) +
                                         " beyond their host's GPUs join only the samples too large for one GPU, on "
                                         "the host's cores"
                                   : std::string())
              << "\n"
              << std::flush;
  }
  std::string command_line = "rockperm campaign";
  for (const std::string& a : args) command_line += " " + a;

  const auto started = std::chrono::steady_clock::now();
  int ran = 0, skipped = 0, kept_failed = 0, failed_here = 0;  // failed_here: run by this worker, not converged
  double run_seconds = 0, solver_seconds = 0, summary_seconds = 0;  // this worker's
  const auto update_summary = [&] {
    const FileLock lock = FileLock::wait(options.dir / ".locks" / "campaign.lock");
    return write_campaign_summary(options.dir, manifest);
  };
  // The next sample this worker runs, from the next position of its share on: claimed (lock
  // file), inspected (app/scheduler.hpp: skipped where done, resumed where checkpointed), and, on
  // a worker of one rank, already being prepared on a thread of its own while the current sample
  // computes (prepare_sample: read, percolation, pore analysis, lattice).
  struct Ticket {
    std::size_t position = 0;
    const CampaignSample* sample = nullptr;
    std::optional<FileLock> lock;
  };
  std::size_t scan = 0;  // the next position of the share to claim from
  const auto claim_next = [&](bool) -> std::optional<Claim<Ticket>> {
    for (; scan < share.size() && !StopSignals::requested() && !host_worker; ++scan) {
      Claim<Ticket> c;
      c.ticket.position = scan;
      c.ticket.sample = &manifest.samples[share[scan]];
      const CampaignSample& s = *c.ticket.sample;
      c.ticket.lock = FileLock::try_take(options.dir / ".locks" / (s.id + ".lock"));
      if (!c.ticket.lock) continue;  // another worker has it
      const fs::path taken = options.dir / ".locks" / (s.id + ".taken-" + token);
      std::error_code ec;
      if (fs::exists(taken, ec)) continue;  // another worker of this command had it
      io::write_file_atomically(taken, "");
      try {
        c.options = sample_options(options.base_ini, options.common, options.dir, s);
      } catch (const InputError& e) {
        report_bad_options(options.dir / s.id, s, e);
        std::cout << "  " << s.id << ": input_error: " << option_message(e) << "\n" << std::flush;
        update_summary();
        continue;
      }
      const Start start = start_for(c.options, options.retry_failed);
      if (start != Start::run) {
        (start == Start::skip_done ? skipped : kept_failed) += 1;
        continue;
      }
      if (can_read_ahead(c.options, worker.size()) && options.read_ahead > 0) {
        c.read = start_read_ahead(c.options, device_slot, omp_get_max_threads() / options.read_ahead);
      }
      ++scan;
      return c;
    }
    return std::nullopt;
  };
  std::vector<std::size_t> deferred;  // samples that need several GPUs
  // the current sample and up to --read-ahead claimed after it, being prepared
  ClaimQueue<Ticket> queue(claim_next);
  while (!StopSignals::requested()) {
    std::optional<Claim<Ticket>> current = queue.next();
    if (!current) break;
    queue.ahead(static_cast<std::size_t>(options.read_ahead));
    const CampaignSample& sample = *current->ticket.sample;
    SampleRunSettings settings;
    settings.console = false;
    settings.command_line = command_line;
    settings.device_slot = device_slot;
    if (current->read.valid()) settings.read = [&] { return current->read.get(); };
    const auto t0 = std::chrono::steady_clock::now();
    std::string line;
    try {
      const pipeline::SampleResult r = run_sample(worker, current->options, settings);
      // a resumed run's solve time counts the runs before the stop too: this worker's share of it
      // is at most the sample's own wall time here
      solver_seconds += std::min(r.timings.solve,
                                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      line = result_line(r);
      if (r.status != pipeline::RunStatus::converged) ++failed_here;
    } catch (const CapacityError& e) {  // too large for one GPU: all ranks together, after the others
      line = world.size() > 1 ? "too large for one GPU; runs on all " + std::to_string(world.size()) +
                                    " ranks once the others are done"
                              : std::string("input_error: ") + e.what();
      if (world.size() > 1) {
        deferred.push_back(share[current->ticket.position]);
      } else {
        ++failed_here;
      }
    } catch (const InputError& e) {
      line = std::string("input_error: ") + option_message(e);
      ++failed_here;
    } catch (const Error& e) {
      line = std::string(to_string(pipeline::status_of(e))) + ": " + e.what();
      ++failed_here;
    }
    const auto t1 = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(t1 - t0).count();
    ++ran;
    run_seconds += seconds;
    const CampaignCounts counts = update_summary();
    summary_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    const double per_sample = run_seconds / ran;
    const double eta = per_sample * counts.pending / std::max(1, world.size());
    char head[160];
    std::snprintf(head, sizeof head, "  [%d/%d done] %s%s (%.1f s): ", counts.samples - counts.pending,
                  counts.samples, sample.id.c_str(), current->options.resume ? " resumed" : "", seconds);
    // after a stop request no time to go is known: the rest waits for the same command again
    const std::string rest = StopSignals::requested() ? "; the rest when the same command runs again"
                             : counts.pending > 0     ? "; about " + clock_text(eta) + " to go"
                                                      : std::string();
    std::cout << head << line << rest
              << "\n"
              << std::flush;
  }
  queue.drain();  // samples claimed ahead but not run are released (their preparation finishes first)
  // samples too large for one GPU, on every rank together, one after another
  {
    std::string mine;
    for (const std::size_t i : deferred) mine += std::to_string(i) + " ";
    std::string all;
    for (const std::string& part : world.gather(mine)) all += part;
    std::vector<std::uint8_t> bytes(all.begin(), all.end());
    world.broadcast(bytes);
    std::istringstream list(std::string(bytes.begin(), bytes.end()));
    std::vector<std::size_t> together;
    for (std::size_t i = 0; list >> i;) together.push_back(i);
    std::sort(together.begin(), together.end());
    for (const std::size_t i : together) {
      if (world.max(StopSignals::requested() ? 1.0 : 0.0) > 0) break;
      const CampaignSample& sample = manifest.samples[i];
      std::optional<FileLock> lock;
      if (world.root()) lock = FileLock::wait(options.dir / ".locks" / (sample.id + ".lock"));
      RunOptions o = sample_options(options.base_ini, options.common, options.dir, sample);
      o.overwrite = true;
      SampleRunSettings settings;
      settings.console = false;
      settings.command_line = command_line;
      const auto t0 = std::chrono::steady_clock::now();
      std::string line;
      try {
        const pipeline::SampleResult r = run_sample(world, o, settings);
        line = result_line(r);
        if (world.root() && r.status != pipeline::RunStatus::converged) ++failed_here;
      } catch (const Error& e) {
        line = std::string(to_string(pipeline::status_of(e))) + ": " + e.what();
        if (world.root()) ++failed_here;
      }
      if (world.root()) {
        update_summary();
        std::printf("  %s on %d ranks (%.1f s): %s\n", sample.id.c_str(), world.size(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), line.c_str());
        std::fflush(stdout);
      }
    }
  }
  // every worker's part is finished (or stopped): the last summary and the campaign's outcome
  const bool stopped = world.max(StopSignals::requested() ? 1.0 : 0.0) > 0;
  const double total_ran = world.sum(static_cast<double>(ran));
  const double total_skipped = world.sum(static_cast<double>(skipped));
  const double total_kept = world.sum(static_cast<double>(kept_failed));
  const double total_failed_here = world.sum(static_cast<double>(failed_here));
  const double total_solver = world.sum(solver_seconds), total_summary = world.sum(summary_seconds);
  world.barrier();
  double code = 0;
  if (world.root()) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(options.dir / ".locks", ec)) {
      if (e.path().filename().string().find(".taken-" + token) != std::string::npos) fs::remove(e.path(), ec);
    }
    const CampaignCounts c = update_summary();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << "campaign    " << c.converged << " converged, " << c.failed << " failed, " << c.interrupted
              << " interrupted, " << c.pending << " pending of " << c.samples << "; this command ran "
              << total_ran << ", found " << total_skipped << " done"
              << (total_kept > 0 ? " and " + std::to_string(static_cast<int>(total_kept)) +
                                       " failed before (--retry-failed runs them again)"
                                 : std::string())
              << ", in " << clock_text(wall) << "\n"
              << "summary     " << (options.dir / "campaign.csv").string() << "\n";
    if (total_ran > 0) {
      // how much of the workers' time went into the solver loop (on a GPU: the GPU busy fraction)
      std::printf("time        %.1f s in the solver of %.1f s x %d worker(s): %.0f %% busy; summary writes %.2f s\n",
                  total_solver, wall, world.size(), 100 * total_solver / (wall * world.size()), total_summary);
    }
    // what this command knows: the samples it ran, and those of its share that failed before
    // and were kept; samples another process is still running are not this command's to count
    code = stopped ? pipeline::exit_code(pipeline::RunStatus::interrupted)
           : total_failed_here + total_kept > 0 ? partial_exit_code
                                                 : 0;
    if (stopped) std::cout << "stopped     by a signal; the same command continues the campaign\n";
  }
  return static_cast<int>(world.max(code));
}

}  // namespace rockperm::app
