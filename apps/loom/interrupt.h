// Ctrl-C during `loom run`: the first SIGINT asks the run to stop at its next check (the
// simulation ends there and the results so far are written, marked incomplete); a second Ctrl-C
// kills the process at once, unless it comes within about a second of the first (1-2 s: whole
// seconds of the monotonic clock), which is taken for the same request delivered twice, as
// `timeout -s INT` does.
#pragma once

namespace loom::app {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handler
  ~InterruptGuard();  // restores the previous action
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // True once SIGINT arrived while a guard was installed.
  static bool requested();
};

// The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
inline constexpr int kInterruptedExitCode = 130;
// A run stopped by the no-progress watchdog: its input asked for something that does not advance.
inline constexpr int kStalledExitCode = 2;

}  // namespace loom::app
