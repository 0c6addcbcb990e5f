#include "interrupt.h"

#include <csignal>
#include <ctime>

namespace loom::app {

namespace {
volatile std::sig_atomic_t interrupted = 0;
// CLOCK_MONOTONIC seconds of the first SIGINT (clock_gettime is async-signal-safe).
volatile std::sig_atomic_t first_second = 0;
struct sigaction previous {};

std::sig_atomic_t monotonic_second() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::sig_atomic_t>(now.tv_sec);
}

// A second SIGINT within a second of the first is the same request delivered twice (`timeout
// -s INT` signals the command and then its own process group, which holds the command); a later
// one is the user's second Ctrl-C: the default action, termination.
extern "C" void on_sigint(int) {
  const std::sig_atomic_t now = monotonic_second();
  if (interrupted == 0) {
    interrupted = 1;
    first_second = now;
    return;
  }
  if (now - first_second < 2) return;  // whole seconds: under 1-2 s apart
  std::signal(SIGINT, SIG_DFL);
  std::raise(SIGINT);
}
}  // namespace

InterruptGuard::InterruptGuard() {
  interrupted = 0;
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous);
}

InterruptGuard::~InterruptGuard() { sigaction(SIGINT, &previous, nullptr); }

bool InterruptGuard::requested() { return interrupted != 0; }

}  // namespace loom::app
