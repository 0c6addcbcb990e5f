// The progress line of `loom run` on stderr. On a terminal, once a run has taken `delay` of wall
// time, one line rewritten in place with '\r' (simulated time, share of the workload's
// operations done, events per second, wall time, estimated time left), closed by a final line;
// elsewhere (a pipe, a file) only the final line, for runs that took at least `delay`, so logs
// hold no control characters, and with a positive `log_every` a plain line that often before it. Updates come from the simulator's periodic check
// (system::RunWatcher), at most every 100 ms of wall time.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "loom/system/run_result.h"
#include "loom/system/runtime.h"

namespace loom::app {

class ProgressLine {
 public:
  ProgressLine(std::FILE* out, bool live, std::chrono::steady_clock::duration delay,
               std::chrono::steady_clock::duration log_every = {});

  // Shows `p` when due.
  void update(const system::RunProgress& p);
  // The final line (after a live line, replacing it), when the run lasted `delay` or more.
  void finish(const system::RunResult& result, std::uint64_t nodes_total);

  // "12.5ms simulated, 45.1% of operations (38291/84736), ~4.1 s left, 2.10 Mevents/s, 3.4 s wall"
  // (the estimate of the time left, from the share of operations done, only with `eta`).
  static std::string describe(const system::RunProgress& p, double wall_seconds, bool eta);

 private:
  double wall_seconds() const;

  std::FILE* out_;
  bool live_;
  std::chrono::steady_clock::duration delay_;
  std::chrono::steady_clock::duration log_every_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_{};
  std::size_t printed_width_ = 0;  // of the live line on screen; 0: none
  system::RunProgress last_{};
};

}  // namespace loom::app
