// How long an iteration of each running job takes when jobs share the fabric: the seam between
// the cluster engine (job_mode.h) and a network simulation of the running set
// (experiment/cluster_fidelity.h). Job mode has none: jobs run for their duration.
#pragma once

#include <span>
#include <vector>

#include "loom/cluster/job.h"

namespace loom::cluster {

struct PlacedJob {
  JobId id;
  std::span<const std::uint32_t> gpus;  // cluster GPU indices, ascending: the job's rank r on gpus[r]
  // How far into its current iteration the job is, in [0, 1): co-runners' relative phases
  // change how their traffic overlaps (0 for a job starting now).
  double phase = 0;
};

class IterationModel {
 public:
  virtual ~IterationModel() = default;
  // The iteration time of each of `jobs` (same order) while they all run at once, each on its
  // GPUs. Called each time the set of running jobs with a workload changes.
  virtual std::vector<Span> iteration_times(std::span<const PlacedJob> jobs) = 0;

  // Changes of the fabric (link failures and repairs, switch drains) at these times: the engine
  // applies change i at times[i] with apply_fabric_change(i), then asks the running set again.
  virtual std::vector<Span> fabric_change_times() const { return {}; }
  // Moving a job's training data (Job::data_host, data_bytes) to the GPUs it was placed on,
  // before its first iteration.
  virtual Span staging_time(const Job& /*job*/, std::span<const std::uint32_t> /*gpus*/) { return Span::zero(); }
  virtual void apply_fabric_change(std::size_t /*index*/) {}
};

}  // namespace loom::cluster
