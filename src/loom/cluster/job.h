// A job as the cluster layer sees it: what it asks for and what it costs to interrupt.
//
// A job is a gang: it runs on exactly `gpus` GPUs at once or not at all. In job mode its
// `duration` (useful work, excluding checkpoint writes and restarts) is what it runs for; a
// workload (by name) and an iteration count take its place in the network modes, where the
// duration becomes the iterations at the job's iteration time alone and co-runners slow it
// down (iteration_model.h).
//
// Checkpoints: with interval τ > 0 the job writes a checkpoint after every τ of useful work,
// which costs `checkpoint_cost` of wall time during which no work is done; it does not write
// one after its last piece of work. An interrupted job keeps the work up to its last completed
// checkpoint and pays `restart_cost` (wall time, no work) when it runs again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loom/cluster/span.h"
#include "loom/core/error.h"
#include "loom/core/units.h"

namespace loom::cluster {

using JobId = std::uint32_t;
inline constexpr JobId kNoJob = 0xffffffffu;

struct Job {
  std::string id;                 // unique, for reports
  Span submit;                    // arrival time
  std::uint32_t gpus = 1;         // gang size, >= 1
  // Per-GPU share requested by a GPU-sharing job (1000 = a whole GPU). A one-GPU job with
  // less than 1000 is a share: it runs on a GPU beside other shares (cluster_state.h).
  std::uint32_t gpu_milli = 1000;
  std::int64_t priority = 0;      // larger runs first under the priority scheduler
  std::string user;               // user or queue
  std::optional<Span> duration;   // useful work; required in job mode
  Span checkpoint_interval;       // 0 = never checkpoints
  Span checkpoint_cost;
  Span restart_cost;
  std::string workload;           // network modes: the name of a cluster.workloads entry
  std::uint64_t iterations = 0;   // with `workload`
  // Network modes: one iteration of `workload` alone on a packed placement; `duration` is then
  // iterations x this, and the job works at rate iteration_time / (its iteration time among
  // its co-runners). Zero for opaque jobs, which always work at rate 1.
  Span iteration_time;
  // Network modes: training data on `data_host` (a host name), `data_bytes` in all. Before its
  // first iteration the job's hosts fetch their equal shares over the fabric (iteration_model.h).
  std::string data_host;
  Bytes data_bytes = 0;
  // Trace replays: the wait the trace itself recorded (scheduled - creation), for comparison.
  std::optional<Span> trace_wait;
  SourceLocation where;           // where the job was defined, for errors

  bool shares_gpu() const { return gpus == 1 && gpu_milli < 1000; }
  // GPUs held, in fractions of a GPU for a share.
  double gpu_fraction() const { return shares_gpu() ? gpu_milli / 1000.0 : gpus; }
};

// Jobs from several sources, plus what loading them warned about.
struct JobSet {
  std::vector<Job> jobs;
  std::vector<std::string> warnings;
};

// Orders jobs by submit time (stable, so equal submit times keep source order) and checks ids
// are unique, gang sizes fit `cluster_gpus`, and each job has what its mode runs: a duration
// in job mode; in the network modes (`simulated`) a workload with iterations, or a duration
// for an opaque job, not both. UserError naming the job and where it was defined otherwise.
void finalize_jobs(std::vector<Job>& jobs, std::uint32_t cluster_gpus, bool simulated = false);

}  // namespace loom::cluster
