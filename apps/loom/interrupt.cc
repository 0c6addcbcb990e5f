#include "interrupt.h"

#include <csignal>

namespace loom::app {

namespace {
volatile std::sig_atomic_t interrupted = 0;
struct sigaction previous {};

extern "C" void on_sigint(int) { interrupted = 1; }
}  // namespace

InterruptGuard::InterruptGuard() {
  interrupted = 0;
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // the second SIGINT gets the default action: termination
  sigaction(SIGINT, &action, &previous);
}

InterruptGuard::~InterruptGuard() { sigaction(SIGINT, &previous, nullptr); }

bool InterruptGuard::requested() { return interrupted != 0; }

}  // namespace loom::app
