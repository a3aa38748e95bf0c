#include "app/signals.hpp"

#include <csignal>

#include "io/atomic_file.hpp"

namespace rockperm::app {

namespace {
volatile std::sig_atomic_t received = 0;
constexpr int stop_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1};
struct sigaction previous[4];
struct sigaction previous_xfsz;

extern "C" void on_stop_signal(int signo) {
  if (received == SIGINT && signo == SIGINT) {  // a second Ctrl-C: the user means it
    io::remove_temporaries_now();  // no half-written file stays (unlink only: async-signal-safe)
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
  received = signo;
}
}  // namespace

StopSignals::StopSignals() {
  struct sigaction action = {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // MPI and file calls go on; the run stops at its next check
  for (int i = 0; i < 4; ++i) sigaction(stop_signals[i], &action, &previous[i]);
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ignore, &previous_xfsz);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 4; ++i) sigaction(stop_signals[i], &previous[i], nullptr);
  sigaction(SIGXFSZ, &previous_xfsz, nullptr);
}

bool StopSignals::requested() { return received != 0; }
int StopSignals::signal() { return received; }

}  // namespace rockperm::app
