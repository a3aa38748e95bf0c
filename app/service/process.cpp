#include "app/service/process.hpp"

#include <signal.h>

#include <sstream>

extern char** environ;

namespace rockperm::app::service {

namespace {
const std::vector<std::string> environment_at_start = [] {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}();
}  // namespace

std::vector<std::string> command_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

const std::vector<std::string>& initial_environment() { return environment_at_start; }

int spawn(const std::vector<std::string>& args, const posix_spawn_file_actions_t& files, pid_t& pid) {
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> words = args, env_strings = initial_environment();
  std::vector<char*> argv, env;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  for (std::string& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);
  const int spawned = posix_spawnp(&pid, argv[0], &files, &attributes, argv.data(), env.data());
  posix_spawnattr_destroy(&attributes);
  return spawned;
}

}  // namespace rockperm::app::service
