// Checkpoint arithmetic for one run of a job (job.h has the model).
//
// A run that starts with `remaining` work writes a checkpoint after every full interval τ of
// work except the last, so it lasts  restart + remaining + (ceil(remaining / τ) - 1) · C.
// Interrupted `elapsed` after it started, it has completed floor((elapsed - restart) / (τ + C))
// checkpoint cycles; their work is kept, the work since the last one is lost.
//
// Those lengths are on the run's own clock, which runs at wall speed in job mode. In the
// network modes co-running jobs slow each other down: work then advances at `rate` (< 1 when
// slowed) per wall second while restarts and checkpoint writes keep wall speed, so the run
// clock and the wall clock are related by a piecewise-linear map (wall_between, advance).
#pragma once

#include "loom/cluster/job.h"

namespace loom::cluster {

struct RunCosts {
  Span restart;   // paid first: the restart cost when the job was interrupted before, else its setup
  Span interval;  // τ, 0 = no checkpoints
  Span cost;      // C
};

// `setup`: what the run pays first when it is not a restart (staging the job's data).
RunCosts run_costs(const Job& job, bool restarting, Span setup = Span::zero());

// Wall time of a run that has `remaining` work to do.
Span run_length(const RunCosts& costs, Span remaining);

struct Rollback {
  Span kept;      // work checkpointed during the run
  Span lost;      // work done since the last checkpoint (or the run's start)
  Span overhead;  // restart and checkpoint writes, including a write cut short
};
// A run with `remaining` work interrupted `elapsed` (< run_length) after it started.
Rollback roll_back(const RunCosts& costs, Span remaining, Span elapsed);

// Work done by run-clock position `position` (restart and checkpoint writes excluded).
Span work_at(const RunCosts& costs, Span position);
// Wall time to go from run-clock position `from` to `to` (from <= to) when work advances at
// `rate` (> 0) per wall second. Exact (integer) at rate 1.
Span wall_between(const RunCosts& costs, Span from, Span to, double rate);
// Run-clock position reached `wall` after position `from` at `rate`: the inverse of
// wall_between, so that wall_between(c, from, advance(c, from, w, r), r) == w to within 1 ns.
Span advance(const RunCosts& costs, Span from, Span wall, double rate);

}  // namespace loom::cluster
