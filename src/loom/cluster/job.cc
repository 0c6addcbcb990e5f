#include "loom/cluster/job.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

namespace loom::cluster {

void finalize_jobs(std::vector<Job>& jobs, std::uint32_t cluster_gpus, bool simulated) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; });
  std::unordered_set<std::string> ids;
  for (const Job& job : jobs) {
    if (!ids.insert(job.id).second) throw UserError(job.where, fmt::format("job '{}' is defined twice", job.id));
    if (!simulated && !job.workload.empty()) {
      throw UserError(job.where, fmt::format("job '{}' names a workload, which job mode does not run (it runs jobs for "
                                             "their duration); cluster.mode flow, packet or analytical simulates it",
                                             job.id));
    }
    if (!simulated && job.data_bytes > 0) {
      throw UserError(job.where, fmt::format("job '{}' stages training data, which job mode does not move (it has no "
                                             "network); cluster.mode flow, packet or analytical does",
                                             job.id));
    }
    if (!job.workload.empty() && job.duration) {
      throw UserError(job.where, fmt::format("job '{}' gives a duration and a workload: its workload's iterations "
                                             "decide how long it runs, so give one of them",
                                             job.id));
    }
    if (!job.workload.empty() && job.iterations == 0) {
      throw UserError(job.where, fmt::format("job '{}' runs workload '{}': give its iterations (at least 1)", job.id,
                                             job.workload));
    }
    if (job.workload.empty() && job.iterations > 0) {
      throw UserError(job.where, fmt::format("job '{}' gives iterations but no workload to iterate", job.id));
    }
    if (job.workload.empty() && !job.duration) {
      throw UserError(job.where, fmt::format("job '{}' has no duration{}", job.id,
                                             simulated ? " and no workload" : " (job mode runs jobs for their duration)"));
    }
    if (job.gpus == 0 || job.gpus > cluster_gpus) {
      throw UserError(job.where, fmt::format("job '{}' asks for {} GPUs; the cluster has {}", job.id, job.gpus, cluster_gpus));
    }
  }
}

}  // namespace loom::cluster
