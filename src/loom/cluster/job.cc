#include "loom/cluster/job.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

namespace loom::cluster {

void finalize_jobs(std::vector<Job>& jobs, std::uint32_t cluster_gpus) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; });
  std::unordered_set<std::string> ids;
  for (const Job& job : jobs) {
    if (!ids.insert(job.id).second) throw UserError(job.where, fmt::format("job '{}' is defined twice", job.id));
    if (!job.duration) {
      throw UserError(job.where, fmt::format("job '{}' has no duration (job mode runs jobs for their duration)", job.id));
    }
    if (job.gpus == 0 || job.gpus > cluster_gpus) {
      throw UserError(job.where, fmt::format("job '{}' asks for {} GPUs; the cluster has {}", job.id, job.gpus, cluster_gpus));
    }
  }
}

}  // namespace loom::cluster
