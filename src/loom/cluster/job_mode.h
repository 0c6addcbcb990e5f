// Job mode: jobs as opaque durations on a cluster of GPUs, with a scheduler, a placement
// policy, checkpoints, failures and maintenance (Arcadia §6.2, "job-mode simulation").
//
// The run is a discrete-event simulation on the cluster clock (span.h). Events: arrivals, job
// ends, failures, repairs, drain starts and ends, samples. Events at the same time are
// handled in the order they were scheduled; after the last event at a time the scheduler runs
// once, then a sample due at that time is taken. The run ends when every job has finished (or
// at `end`); pending failures after that are not simulated.
//
// A run of a job on its GPUs lasts restart (if it was interrupted before) + remaining work +
// checkpoint writes (job.h). Interrupted at wall time e into its work phase (after the
// restart), with checkpoint interval τ and cost C, it keeps floor(e / (τ + C)) · τ more work
// and loses the rest: at most τ of work (all of it when τ = 0).
//
// In the network modes a job's work advances at a rate set by its co-runners, restarts and
// checkpoint writes at wall speed (checkpoint.h: the run clock).
//
// Accounting, exact on the event times: GPU-seconds busy, idle, down, drained and spare add
// up to GPUs x makespan, in fractions of a GPU where shares leave a GPU partly unused; each
// job's time on GPUs = its work + lost work + overhead (restarts and checkpoint writes), per GPU.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "loom/cluster/cluster_state.h"
#include "loom/cluster/failures.h"
#include "loom/cluster/iteration_model.h"
#include "loom/cluster/job.h"
#include "loom/cluster/machines.h"
#include "loom/cluster/scheduler.h"

namespace loom::cluster {

struct JobModeOptions {
  std::string scheduler = "fcfs";
  std::string placement = "packed";
  SchedulerOptions scheduler_options;
  std::uint64_t seed = 1;
  FailureOptions failures;
  Span sample_interval = Span::zero();  // 0: no samples
  Span end = Span::max();               // stop simulating here
};

struct JobRecord {
  std::optional<Span> first_start;
  std::optional<Span> end;
  Span wait;                   // total time queued (first wait and every requeue)
  std::uint32_t preemptions = 0;  // by the scheduler or a drain
  std::uint32_t failures = 0;
  Span lost_work;              // per GPU: work rolled back
  Span overhead;               // per GPU: restarts and checkpoint writes
  std::uint32_t hosts = 0;     // hosts of the last run
  std::uint32_t leaves = 0;    // leaves of the last run
  // Network modes: the job's iteration time averaged over the wall time it ran (co-runners
  // change it); zero for opaque jobs.
  Span iteration_time;
};

// One run of a job on one host, for the timeline.
struct RunSpan {
  JobId job;
  std::uint32_t host;
  std::uint32_t gpus;  // of the job on this host
  Span start;
  Span end;
  enum class Ending : std::uint8_t { kDone, kPreempted, kFailed, kCut } ending;
};

struct Sample {
  Span at;
  GpuCounts gpus;
  std::uint32_t queued = 0;
  std::uint32_t running = 0;
  double shared_free = 0;  // GPUs' worth unused on GPUs holding shares (counted busy in `gpus`)
};

// One rollback: the job's safe (checkpointed) work before and after, and the work lost.
struct Interruption {
  JobId job;
  Span at;
  Span saved_before;
  Span saved_after;
  Span lost;
};

struct JobModeResult {
  std::vector<JobRecord> jobs;  // by JobId (the order of the job list)
  std::vector<RunSpan> runs;
  std::vector<Sample> samples;
  std::vector<Interruption> interruptions;
  Span makespan;                // time of the last event simulated
  // GPU-seconds by state over [0, makespan].
  double busy_gpu_s = 0, idle_gpu_s = 0, down_gpu_s = 0, drained_gpu_s = 0, spare_gpu_s = 0, stranded_gpu_s = 0;
  double queue_job_s = 0;       // integral of the queue length
  std::uint64_t events = 0;
  std::uint64_t component_failures = 0;  // host and GPU failures simulated
  std::uint64_t rate_updates = 0;        // network modes: times the running set was re-evaluated
};

struct Progress {
  Span now;
  std::size_t jobs_done = 0;
  std::size_t jobs = 0;
  double wall_seconds = 0;
};
// Called about every `every` of wall time while the run lasts (never for short runs).
struct ProgressReporter {
  std::function<void(const Progress&)> report;
  std::chrono::duration<double> every = std::chrono::seconds(2);
};

// Runs `jobs` (finalized: sorted by submit, each with a duration fitting the cluster).
// UserError for a failure or drain naming an unknown component. With an iteration model (the
// network modes), each time the set of running jobs with an iteration time changes, their
// iteration times together are asked of the model and each works at rate
// job.iteration_time / that until the set changes again: the scheduler still plans with the
// durations at rate 1, as a real scheduler plans with requested times.
JobModeResult run_job_mode(const Machines& machines, const std::vector<Job>& jobs, const JobModeOptions& options,
                           const ProgressReporter& progress = {}, IterationModel* model = nullptr);

}  // namespace loom::cluster
