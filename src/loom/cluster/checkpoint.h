// Checkpoint arithmetic for one run of a job (job.h has the model).
//
// A run that starts with `remaining` work writes a checkpoint after every full interval τ of
// work except the last, so it lasts  restart + remaining + (ceil(remaining / τ) - 1) · C.
// Interrupted `elapsed` after it started, it has completed floor((elapsed - restart) / (τ + C))
// checkpoint cycles; their work is kept, the work since the last one is lost.
#pragma once

#include "loom/cluster/job.h"

namespace loom::cluster {

struct RunCosts {
  Span restart;   // paid first when the job was interrupted before
  Span interval;  // τ, 0 = no checkpoints
  Span cost;      // C
};

RunCosts run_costs(const Job& job, bool restarting);

// Wall time of a run that has `remaining` work to do.
Span run_length(const RunCosts& costs, Span remaining);

struct Rollback {
  Span kept;      // work checkpointed during the run
  Span lost;      // work done since the last checkpoint (or the run's start)
  Span overhead;  // restart and checkpoint writes, including a write cut short
};
// A run with `remaining` work interrupted `elapsed` (< run_length) after it started.
Rollback roll_back(const RunCosts& costs, Span remaining, Span elapsed);

}  // namespace loom::cluster
