#include "app/service/slurm.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "app/service/process.hpp"
#include "lib/base/error.hpp"
#include "pipeline/checkpoint.hpp"

namespace rockperm::app::service {

namespace fs = std::filesystem;

CommandOutput run_command(const std::vector<std::string>& args) {
  CommandOutput out;
  if (args.empty()) return out;
  int fd[2];
  if (::pipe2(fd, O_CLOEXEC) != 0) {
    out.text = std::string("cannot make a pipe: ") + std::strerror(errno);
    return out;
  }
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&files, fd[1], 1);
  posix_spawn_file_actions_adddup2(&files, fd[1], 2);
  pid_t pid = 0;
  const int spawned = spawn(args, files, pid);
  posix_spawn_file_actions_destroy(&files);
  ::close(fd[1]);
  if (spawned != 0) {
    ::close(fd[0]);
    out.text = "cannot start '" + args[0] + "': " + std::strerror(spawned);
    return out;
  }
  std::array<char, 4096> buffer;
  for (;;) {
    const ssize_t n = ::read(fd[0], buffer.data(), buffer.size());
    if (n > 0) {
      if (out.text.size() < (1u << 20)) out.text.append(buffer.data(), static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return out;
}

bool SlurmState::ended() const {
  static const std::array<const char*, 10> final_states{"COMPLETED", "FAILED",     "TIMEOUT",  "CANCELLED",
                                                        "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL",
                                                        "DEADLINE",  "REVOKED"};
  return std::any_of(final_states.begin(), final_states.end(), [&](const char* s) { return state == s; });
}

namespace {

// One word for bash, as it is.
std::string quoted(const std::string& word) {
  std::string q = "'";
  for (const char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

std::string user_name() {
  const passwd* p = ::getpwuid(::geteuid());
  return p && p->pw_name ? p->pw_name : std::to_string(::geteuid());
}

// The last lines of a command's output, for a message.
std::string said(const CommandOutput& out) {
  std::string t = trimmed(out.text);
  if (t.size() > 400) t = "..." + t.substr(t.size() - 400);
  return t.empty() ? "no output, exit code " + std::to_string(out.exit_code) : t;
}

}  // namespace

std::vector<std::string> sbatch_command(const ServiceConfig::Slurm& s, const std::string& job_id, int gpus,
                                        const fs::path& script, const fs::path& log) {
  std::vector<std::string> a{"sbatch",
                             "--parsable",
                             "--job-name=rockperm-" + job_id,
                             "--output=" + log.string(),
                             "--open-mode=append",  // a requeued job keeps the log of its earlier attempts
                             "--requeue",
                             "--signal=USR1@180",  // a checkpoint before the time limit; the script requeues
                             "--ntasks=" + std::to_string(gpus)};
  if (s.request_gpus) a.push_back("--gpus=" + std::to_string(gpus));
  if (!s.partition.empty()) a.push_back("--partition=" + s.partition);
  if (!s.account.empty()) a.push_back("--account=" + s.account);
  if (!s.qos.empty()) a.push_back("--qos=" + s.qos);
  if (!s.time_limit.empty()) a.push_back("--time=" + s.time_limit);
  a.insert(a.end(), s.sbatch_options.begin(), s.sbatch_options.end());
  a.push_back(script.string());
  return a;
}

std::string batch_script(const ServiceConfig::Slurm& s, const fs::path& rockperm, const fs::path& ini,
                         const fs::path& run_dir) {
  std::ostringstream o;
  o << "#!/usr/bin/env bash\n"
       "# A job of rockperm serve (service.executor = slurm), written by the server; sbatch keeps its own copy.\n"
       "# Run afresh from the job's configuration, or, where Slurm requeued it after a checkpoint, resumed.\n"
       "set -uo pipefail\n"
    << "rockperm=" << quoted(rockperm.string()) << "\n"
    << "run_dir=" << quoted(run_dir.string()) << "\n"
    << "if [ -e \"$run_dir/" << pipeline::checkpoint_name << "\" ] && [ -e \"$run_dir/config.ini\" ]; then\n"
    << "  args=(run --resume \"$run_dir\")\n"
    << "else\n"
    << "  args=(run --config " << quoted(ini.string()) << " --overwrite)\n"
    << "fi\n";
  for (const std::string& w : command_words(s.launcher)) o << quoted(w) << ' ';
  o << "\"$rockperm\" \"${args[@]}\"\n"
       "rc=$?\n"
       "if [ \"$rc\" -eq 6 ] && [ -n \"${SLURM_JOB_ID:-}\" ]; then\n"
       "  echo \"rockperm: stopped cleanly with a checkpoint (exit code 6); requeueing job $SLURM_JOB_ID to continue\"\n"
       "  scontrol requeue \"$SLURM_JOB_ID\"\n"
       "fi\n"
       "exit \"$rc\"\n";
  return o.str();
}

std::string submitted_job_id(const CommandOutput& sbatch) {
  const std::string t = trimmed(sbatch.text);
  const std::string line = t.substr(t.rfind('\n') == std::string::npos ? 0 : t.rfind('\n') + 1);
  const std::string id = line.substr(0, line.find(';'));
  if (sbatch.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789_") != std::string::npos) {
    throw RuntimeFailure("sbatch refused the job: " + said(sbatch));
  }
  return id;
}

std::optional<std::map<std::string, SlurmState>> parse_squeue(const CommandOutput& squeue) {
  if (squeue.exit_code != 0) return std::nullopt;
  std::map<std::string, SlurmState> jobs;
  std::istringstream in(squeue.text);
  for (std::string line; std::getline(in, line);) {
    // ID|NAME|STATE|REASON: a name may hold '|', so the state and reason are the last two fields
    const auto a = line.find('|'), c = line.rfind('|');
    const auto b = c == std::string::npos || c == 0 ? std::string::npos : line.rfind('|', c - 1);
    if (a == std::string::npos || b == std::string::npos || b <= a) continue;  // not a line of ours (a warning)
    jobs[trimmed(line.substr(0, a))] =
        SlurmState{trimmed(line.substr(b + 1, c - b - 1)), trimmed(line.substr(c + 1)), line.substr(a + 1, b - a - 1)};
  }
  return jobs;
}

std::optional<SlurmState> parse_sacct(const CommandOutput& sacct) {
  if (sacct.exit_code != 0) return std::nullopt;
  std::istringstream in(sacct.text);
  for (std::string line; std::getline(in, line);) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    std::string state = trimmed(line.substr(0, bar));
    state = state.substr(0, state.find(' '));  // "CANCELLED by 1000"
    if (!state.empty()) return SlurmState{state, trimmed(line.substr(bar + 1))};
  }
  return std::nullopt;
}

std::string slurm_submit(const std::vector<std::string>& sbatch_args) { return submitted_job_id(run_command(sbatch_args)); }

std::optional<std::map<std::string, SlurmState>> slurm_queue() {
  return parse_squeue(
      run_command({"squeue", "--noheader", "--states=all", "--format=%i|%j|%T|%r", "--user=" + user_name()}));
}

std::optional<std::string> live_job_named(const std::map<std::string, SlurmState>& queue, const std::string& name) {
  for (const auto& [id, state] : queue) {
    if (state.name == name && !state.ended()) return id;
  }
  return std::nullopt;
}

std::optional<SlurmState> slurm_accounting(const std::string& scheduler_id) {
  return parse_sacct(run_command(
      {"sacct", "--noheader", "--parsable2", "--allocations", "--format=State,Reason", "--jobs=" + scheduler_id}));
}

void slurm_cancel(const std::string& scheduler_id) { run_command({"scancel", scheduler_id}); }

}  // namespace rockperm::app::service
