// rockperm serve: the permeability service (app/service/server.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "app/service/auth.hpp"
#include "app/service/server.hpp"
#include "app/service/service_config.hpp"
#include "lib/base/error.hpp"
#include "lib/parallel/comm.hpp"

namespace rockperm::app {

namespace {
const char* serve_help =
    "usage: rockperm serve --config SERVICE.ini\n"
    "       rockperm serve --add-token NAME --tokens FILE\n\n"
    "Runs rockperm as a service: an HTTP API on [service] listen (default 127.0.0.1:8750), a queue that\n"
    "survives restarts (SQLite in state_dir), and a worker per GPU. docs/manual/service.md.\n\n"
    "--add-token NAME --tokens FILE: makes a token for NAME, stores its SHA-256 in FILE and prints\n"
    "the token (once: it is not stored in clear).\n\n"
    "SERVICE.ini, section [service]:\n";
}  // namespace

int serve_command(const std::vector<std::string>& args) {
  if (parallel::Comm::world().size() > 1) {
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
      std::cout << serve_help << service::service_keys_help;
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
