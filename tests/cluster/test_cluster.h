// Helpers shared by the cluster tests: small machine sets and jobs.
#pragma once

#include <string>
#include <vector>

#include "loom/cluster/job.h"
#include "loom/cluster/machines.h"

namespace loom::cluster::testing {

inline Machines machines(std::uint32_t hosts, std::uint32_t gpus_per_host, std::uint32_t hosts_per_leaf = 4,
                         std::uint32_t leaves_per_pod = 2) {
  return uniform_machines(hosts, gpus_per_host, Grouping{hosts_per_leaf, leaves_per_pod});
}

inline Job job(std::string id, double submit_s, std::uint32_t gpus, double duration_s, std::int64_t priority = 0) {
  Job j;
  j.id = std::move(id);
  j.submit = Span::from_seconds(submit_s);
  j.gpus = gpus;
  j.duration = Span::from_seconds(duration_s);
  j.priority = priority;
  return j;
}

}  // namespace loom::cluster::testing
