// Synthetic job arrivals: `count` jobs whose inter-arrival times, GPU counts and durations are
// drawn from distributions (Poisson arrivals: exponential inter-arrival times), seeded. The
// first job arrives one inter-arrival time after `start`. With `durations` given (e.g. Philly
// runtimes) the jobs take them instead of drawing, each once, in a seeded random order (the
// Philly file is sorted by runtime; in file order arrivals would come shortest first); more jobs
// than durations go through a fresh order each round. With `workload` (the network modes) the
// jobs run that workload for a drawn number of iterations instead of a duration.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loom/cluster/distribution.h"
#include "loom/cluster/job.h"

namespace loom::cluster {

struct SyntheticJobs {
  std::string name = "synthetic";  // job ids are "<name>-<i>"; names the random streams
  std::uint64_t count = 0;
  Span start;
  Distribution inter_arrival = Distribution::exponential(60);  // seconds
  Distribution gpus = Distribution::fixed(1);
  std::optional<Distribution> duration;                        // seconds
  std::optional<Distribution> priority;
  std::vector<Span> durations;                                 // used instead of `duration`
  std::string workload;                                        // with `iterations`, instead of a duration
  std::optional<Distribution> iterations;
  Job defaults;                                                // checkpoints, restart cost
  SourceLocation where;
};

// UserError (at spec.where) when a drawn GPU count or iteration count is below 1.
std::vector<Job> synthesize_jobs(const SyntheticJobs& spec, std::uint64_t seed);

}  // namespace loom::cluster
