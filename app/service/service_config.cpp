#include "app/service/service_config.hpp"

#include <boost/program_options.hpp>
#include <algorithm>
#include <fstream>

#include "app/service/process.hpp"
#include "lib/base/error.hpp"

namespace rockperm::app::service {

namespace fs = std::filesystem;
namespace po = boost::program_options;

const char* const service_keys_help =
    "  listen = ADDRESS:PORT       where to listen (port 0: any free one, written to state_dir/port)\n"
    "  state_dir = DIR             the queue (jobs.sqlite), the jobs' run directories and uploads\n"
    "  tokens = FILE               bearer tokens, hashed (default state_dir/tokens; mode 600)\n"
    "  data_root = DIR             a directory whose scans jobs may name by path (repeat for more)\n"
    "  spool_dir = DIR             drop a folder with a scan and an INI here: it is a job, results appear in it\n"
    "  spool_settle_s = 5          a spool folder is taken when unchanged this long, or at once with a file READY\n"
    "  run_config = FILE.ini       the configuration every job starts from (as for rockperm run)\n"
    "  workers = N                 jobs at once (default: one per GPU, or 1 without one)\n"
    "  mpiexec = mpiexec           starts a job on several GPUs (\"gpus\": N, or too large for one)\n"
    "  max_upload_mb = 512         larger request bodies are refused (413)\n"
    "  max_unpacked_mb = 4096      what an uploaded zip or tar may unpack to (a bomb is refused while read)\n"
    "  max_files = 20000           files an upload may hold (TIFF slices)\n"
    "  max_voxels = 8589934592     larger scans (after their crop) are refused at submission (2048^3)\n"
    "  request_timeout_s = 30      to read a request or write a response\n"
    "  max_connections = 64        connections served at once (more are answered 503 at once)\n"
    "  allowed_hosts = NAME        a host name clients use for this service (repeat for more; addresses and\n"
    "                              localhost always work; other names are refused, against DNS rebinding)\n"
    "  max_connections_per_client = 16  held at once by one client address (behind a proxy, all share its address)\n"
    "  max_jobs_per_token = 100    queued or running jobs of one token; more are refused (429) until some end\n"
    "  max_stored_mb_per_token = 16384  what the uploads of one token's queued or running jobs may hold (429)\n"
    "  retention_days = 30         a finished or cancelled job (its reports and upload) is removed after this\n"
    "                              (0: kept); a cancelled job's upload is removed at once\n"
    "  executor = local            local: jobs run on this host's GPUs; slurm: each job is one sbatch submission\n"
    "                              (state_dir, the data roots and rockperm at the same paths on every node)\n"
    "  slurm_partition = NAME      sbatch --partition (and slurm_account, slurm_qos: --account, --qos)\n"
    "  slurm_time_limit = 12:00:00 sbatch --time of every job (MINUTES, H:MM:SS or D-HH:MM:SS)\n"
    "  slurm_max_gpus = 4          GPUs a job may ask for (\"gpus\"; one rank each)\n"
    "  slurm_gpus = on             sbatch --gpus=N for a job of N ranks (off: CPU nodes, with run.backend = cpu)\n"
    "  slurm_options = WORDS       further sbatch options of the site (e.g. --constraint=h100), no shell\n"
    "  slurm_launcher = srun --mpi=pmix --gpu-bind=none   starts the ranks in the allocation (where srun\n"
    "                              offers no PMIx: mpirun --bind-to none)\n"
    "  slurm_rockperm = PATH       the rockperm the jobs run (default: the server's own binary)\n"
    "  slurm_poll_s = 5            how often squeue is asked for the jobs' states\n";

namespace {
std::string allowed_text(const char* allowed) {
  std::string punctuation;
  for (const char* p = allowed; *p; ++p) {
    if (!std::isalnum(static_cast<unsigned char>(*p))) punctuation += std::string(punctuation.empty() ? "" : " ") + *p;
  }
  return punctuation;
}
}  // namespace

ServiceConfig read_service_config(const fs::path& ini) {
  std::ifstream in(ini);
  if (!in) throw InputError("--config " + ini.string() + ": cannot be read");
  po::options_description d;
  d.add_options()("service.listen", po::value<std::string>())("service.state_dir", po::value<std::string>())(
      "service.tokens", po::value<std::string>())("service.data_root", po::value<std::vector<std::string>>()->composing())(
      "service.spool_dir", po::value<std::string>())("service.spool_settle_s", po::value<double>())(
      "service.run_config", po::value<std::string>())("service.workers", po::value<int>())(
      "service.mpiexec", po::value<std::string>())(
      "service.max_upload_mb", po::value<double>())("service.max_unpacked_mb", po::value<double>())(
      "service.max_files", po::value<std::uint64_t>())("service.max_voxels", po::value<std::uint64_t>())(
      "service.request_timeout_s", po::value<double>())("service.max_connections", po::value<int>())(
      "service.max_connections_per_client", po::value<int>())("service.max_jobs_per_token", po::value<int>())(
      "service.max_stored_mb_per_token", po::value<double>())("service.retention_days", po::value<double>())(
      "service.allowed_hosts", po::value<std::vector<std::string>>()->composing())(
      "service.executor", po::value<std::string>())("service.slurm_partition", po::value<std::string>())(
      "service.slurm_account", po::value<std::string>())("service.slurm_qos", po::value<std::string>())(
      "service.slurm_time_limit", po::value<std::string>())("service.slurm_max_gpus", po::value<int>())(
      "service.slurm_options", po::value<std::string>())("service.slurm_launcher", po::value<std::string>())(
      "service.slurm_rockperm", po::value<std::string>())("service.slurm_poll_s", po::value<double>())(
      "service.slurm_gpus", po::value<std::string>());
  po::variables_map vm;
  try {
    po::store(po::parse_config_file(in, d, false), vm);
  } catch (const po::error& e) {
    throw InputError(ini.string() + ": " + e.what() + "; the keys of [service] are\n" + service_keys_help);
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
  if (vm.count("service.spool_dir")) c.spool_dir = path(vm["service.spool_dir"].as<std::string>());
  if (vm.count("service.spool_settle_s")) c.spool_settle_s = vm["service.spool_settle_s"].as<double>();
  if (vm.count("service.run_config")) c.run_config = path(vm["service.run_config"].as<std::string>());
  if (vm.count("service.workers")) c.workers = vm["service.workers"].as<int>();
  if (vm.count("service.mpiexec")) c.mpiexec = vm["service.mpiexec"].as<std::string>();
  if (vm.count("service.max_upload_mb")) c.max_upload_mb = vm["service.max_upload_mb"].as<double>();
  if (vm.count("service.max_unpacked_mb")) c.max_unpacked_mb = vm["service.max_unpacked_mb"].as<double>();
  if (vm.count("service.max_files")) c.max_files = vm["service.max_files"].as<std::uint64_t>();
  if (vm.count("service.max_voxels")) c.max_voxels = vm["service.max_voxels"].as<std::uint64_t>();
  if (vm.count("service.request_timeout_s")) c.request_timeout_s = vm["service.request_timeout_s"].as<double>();
  if (vm.count("service.max_connections")) c.max_connections = vm["service.max_connections"].as<int>();
  if (vm.count("service.max_connections_per_client")) {
    c.max_connections_per_client = vm["service.max_connections_per_client"].as<int>();
  }
  if (vm.count("service.max_jobs_per_token")) c.max_jobs_per_token = vm["service.max_jobs_per_token"].as<int>();
  if (vm.count("service.max_stored_mb_per_token")) {
    c.max_stored_mb_per_token = vm["service.max_stored_mb_per_token"].as<double>();
  }
  if (vm.count("service.retention_days")) c.retention_days = vm["service.retention_days"].as<double>();
  if (vm.count("service.allowed_hosts")) {
    for (std::string h : vm["service.allowed_hosts"].as<std::vector<std::string>>()) {
      std::transform(h.begin(), h.end(), h.begin(), [](unsigned char ch) { return std::tolower(ch); });
      c.allowed_hosts.push_back(h);
    }
  }
  if (vm.count("service.executor")) {
    const std::string e = vm["service.executor"].as<std::string>();
    if (e == "slurm") {
      c.executor = ServiceConfig::Executor::slurm;
    } else if (e != "local") {
      throw InputError("service.executor: '" + e + "' is neither local (this host's GPUs) nor slurm (sbatch)");
    }
  }
  // the site's names and limits, passed to sbatch as one word each: no shell, and nothing that
  // reads as another option
  const auto slurm_word = [&](const char* key, std::string& to, const char* allowed) {
    if (!vm.count(key)) return;
    to = vm[key].as<std::string>();
    if (to.empty() || to.find_first_not_of(allowed) != std::string::npos || to[0] == '-') {
      throw InputError(std::string(key) + ": '" + to + "' is not a Slurm name or limit (letters, digits and " +
                       allowed_text(allowed) + " only)");
    }
  };
  constexpr const char* name_chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,-";
  slurm_word("service.slurm_partition", c.slurm.partition, name_chars);
  slurm_word("service.slurm_account", c.slurm.account, name_chars);
  slurm_word("service.slurm_qos", c.slurm.qos, name_chars);
  slurm_word("service.slurm_time_limit", c.slurm.time_limit, "0123456789:-");
  if (vm.count("service.slurm_max_gpus")) c.slurm.max_gpus = vm["service.slurm_max_gpus"].as<int>();
  if (vm.count("service.slurm_gpus")) {
    const std::string g = vm["service.slurm_gpus"].as<std::string>();
    if (g != "on" && g != "off") throw InputError("service.slurm_gpus: on (sbatch --gpus=N) or off, not '" + g + "'");
    c.slurm.request_gpus = g == "on";
  }
  if (vm.count("service.slurm_options")) c.slurm.sbatch_options = command_words(vm["service.slurm_options"].as<std::string>());
  if (vm.count("service.slurm_launcher")) c.slurm.launcher = vm["service.slurm_launcher"].as<std::string>();
  if (command_words(c.slurm.launcher).empty()) throw InputError("service.slurm_launcher: empty; e.g. srun --mpi=pmix --gpu-bind=none");
  if (vm.count("service.slurm_rockperm")) c.slurm.rockperm = path(vm["service.slurm_rockperm"].as<std::string>());
  if (vm.count("service.slurm_poll_s")) c.slurm.poll_s = vm["service.slurm_poll_s"].as<double>();
  if (c.slurm.max_gpus < 1 || c.slurm.max_gpus > 1024 || !(c.slurm.poll_s >= 0.1 && c.slurm.poll_s <= 3600)) {
    throw InputError(ini.string() + ": service.slurm_max_gpus in [1, 1024], slurm_poll_s in [0.1, 3600]");
  }
  // written so that NaN fails every check
  if (c.workers < 0 || !(c.max_upload_mb > 0 && c.max_upload_mb <= 1e7) ||
      !(c.max_unpacked_mb > 0 && c.max_unpacked_mb <= 1e8) || !(c.request_timeout_s >= 1 && c.request_timeout_s <= 86400) ||
      c.max_connections < 1 || c.max_connections_per_client < 1 || !(c.spool_settle_s >= 0 && c.spool_settle_s <= 86400) ||
      c.max_jobs_per_token < 1 || !(c.max_stored_mb_per_token > 0 && c.max_stored_mb_per_token <= 1e9) ||
      !(c.retention_days >= 0 && c.retention_days <= 36500)) {
    throw InputError(ini.string() + ": service.workers >= 0, max_upload_mb in (0, 1e7], max_unpacked_mb in (0, 1e8], "
                     "request_timeout_s in [1, 86400], max_connections >= 1, max_connections_per_client >= 1, "
                     "spool_settle_s in [0, 86400], max_jobs_per_token >= 1, max_stored_mb_per_token in (0, 1e9], "
                     "retention_days in [0, 36500]");
  }
  return c;
}

}  // namespace rockperm::app::service
