// rockperm serve: the permeability service (app/service/server.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "app/service/auth.hpp"
#include "app/service/server.hpp"
#include "lib/base/error.hpp"
#include "lib/parallel/comm.hpp"

namespace rockperm::app {

namespace {
const char* serve_help =
    "usage: rockperm serve --config SERVICE.ini\n"
    "       rockperm serve --add-token NAME --tokens FILE\n\n"
    "Runs rockperm as a service: an HTTP API on [service] listen (default 127.0.0.1:8750), a queue that\n"
    "survives restarts (SQLite in state_dir), and a worker per GPU. README, 'The permeability service'.\n\n"
    "SERVICE.ini, section [service]:\n"
    "  listen = ADDRESS:PORT       where to listen (port 0: any free one, written to state_dir/port)\n"
    "  state_dir = DIR             the queue (jobs.sqlite), the jobs' run directories and uploads\n"
    "  tokens = FILE               bearer tokens, hashed (default state_dir/tokens; mode 600)\n"
    "  data_root = DIR             a directory whose scans jobs may name by path (repeat for more)\n"
    "  run_config = FILE.ini       the configuration every job starts from (as for rockperm run)\n"
    "  workers = N                 jobs at once (default: one per GPU, or 1 without one)\n"
    "  max_upload_mb = 512         larger request bodies are refused (413)\n"
    "  request_timeout_s = 30      to read a request or write a response\n"
    "  max_connections = 64        connections served at once\n\n"
    "--add-token NAME --tokens FILE: makes a token for NAME, stores its SHA-256 in FILE and prints\n"
    "the token (once: it is not stored in clear).\n";
}  // namespace

int serve_command(const std::vector<std::string>& args) {
  if (Comm::world().size() > 1) {
    throw InputError("rockperm serve runs as one process (it starts a worker per GPU itself); start it without mpiexec");
  }
  std::string config, add_token, tokens;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&](const char* what) {
      if (i + 1 >= args.size()) throw InputError(std::string("command line: ") + a + " needs " + what);
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << serve_help;
      return 0;
    } else if (a == "--config") {
      config = value("a file");
    } else if (a == "--add-token") {
      add_token = value("a name");
    } else if (a == "--tokens") {
      tokens = value("a file");
    } else {
      throw InputError("command line: '" + a + "' is not an option of rockperm serve; see rockperm serve --help");
    }
  }
  if (!add_token.empty()) {
    if (tokens.empty()) throw InputError("command line: --add-token needs --tokens FILE");
    std::cout << service::add_token(tokens, add_token) << "\n";
    return 0;
  }
  if (config.empty()) throw InputError("command line: give --config SERVICE.ini; see rockperm serve --help");
  return service::serve(service::read_service_config(config));
}

}  // namespace rockperm::app
