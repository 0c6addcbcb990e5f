// Reading the experiment file's `cluster:` section (every key is in src/loom/cluster/README.md
// and the project README's key table):
//
//   mode             job (opaque durations) | analytical | flow | packet (jobs' workloads
//                    simulated together on the topology; experiment/cluster_fidelity.h)
//   fast_forward     {iterations}: iterations of the running set simulated per change (2)
//   workloads        {name: workload section}: read by the experiment (needs the topology)
//   scheduler        fcfs | first-fit | sjf | priority | easy-backfill
//   backfill_depth   easy-backfill: queued jobs considered per pass (default 1000)
//   placement        packed | topology-aware | spread | random
//   machines         {format: philly | alibaba, file, hosts_per_leaf, leaves_per_pod, bad_rows}
//                    instead of the topology section's hosts
//   checkpoint       {interval, cost, restart_cost}: defaults for every job
//   jobs             [{id, submit, gpus, duration | duration_distribution, priority, user,
//                      checkpoint_interval, checkpoint_cost, restart_cost, workload, iterations}]
//   job_files        [{format: csv | alibaba | philly, file, bad_rows: skip | reject,
//                      philly: count, start, arrivals, gpus}]
//   synthetic        [{name, count, start, arrivals, gpus, duration, priority}]
//   failures         {host: {time_to_failure, repair}, gpu: {...}, events: [{at, component,
//                      repair}], file, hot_spares}
//   maintenance      [{target, start, duration}]
//   sample_interval  cluster.csv sampling period (default 1h; 0 = off)
//   end              stop simulating at this time (default: when every job has finished)
// Files are relative to `base_dir`. Errors are UserErrors at file:line:col (keys) or
// file:line (rows of imported files).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "loom/cluster/job_mode.h"
#include "loom/cluster/machines.h"
#include "loom/config/reader.h"

namespace loom::cluster {

struct ClusterSettings {
  std::string mode = "job";            // job | analytical | flow | packet
  std::uint32_t fast_forward_iterations = 2;
  // Network modes: groups of jobs that share no link, simulated at once on this many threads
  // (results do not depend on it).
  std::uint32_t threads = 1;
  JobModeOptions options;
  std::vector<Job> jobs;               // finalized (job.h)
  std::vector<std::string> warnings;   // from importing job files
  // How many rows each job file had, loaded and left out (for the run record).
  struct SourceCount {
    std::string source;
    std::uint64_t jobs = 0;
    std::uint64_t bad_rows = 0;
    std::uint64_t excluded_rows = 0;
  };
  std::vector<SourceCount> sources;
};

// cluster.mode's values: job, then the network modes.
const std::vector<std::string_view>& cluster_mode_names();

// `cluster.machines`, when present.
std::optional<Machines> read_machines(config::Reader cluster, const std::filesystem::path& base_dir);
// Everything else of the section, for a cluster of `machines`.
ClusterSettings read_cluster(config::Reader cluster, const Machines& machines, const std::filesystem::path& base_dir,
                             std::uint64_t seed);

}  // namespace loom::cluster
