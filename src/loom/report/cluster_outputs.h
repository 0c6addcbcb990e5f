// What a cluster (job-mode) run writes into its output directory:
//
//   jobs.csv       one row per job: id, user, submit, start (first), end, wait (all time queued),
//                  jct (end - submit), gpus, hosts and leaves of the last run, preemptions,
//                  failures, lost_gpu_hours (work rolled back x GPUs), overhead_gpu_hours
//                  (restarts and checkpoint writes x GPUs), iteration_time (the network modes:
//                  averaged over the wall time the job ran; empty for opaque jobs),
//                  trace_wait (replays: the wait the trace recorded). Times in seconds; an
//                  unfinished job has empty start/end/jct.
//   cluster.csv    one row per sample: time, GPUs busy, idle, stranded (idle on partly used
//                  hosts), down, drained, spare, jobs queued and running.
//   timeline.json  Chrome trace events (Perfetto): one process per leaf, one thread per host,
//                  one span per run of a job on that host (name = job id; args: GPUs, how the
//                  run ended).
//   summary.json   effective configuration, seed, version; job counts; mean/p50/p99 of wait and
//                  JCT (and of the trace's own wait for replays); makespan; GPU-hours by state;
//                  utilisation (busy / capacity x makespan), goodput (work of finished jobs /
//                  capacity x makespan), lost work; failures and preemptions; what each job
//                  source loaded and left out; warnings; the files written; the network modes:
//                  `simulation` (mode, fast-forward iterations, simulations, remembered, events).
// Each table stops after `max_rows` rows and says so in the summary.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/cluster/cluster_config.h"
#include "loom/cluster/job_mode.h"
#include "loom/report/output_file.h"

namespace loom::report {

WrittenFile write_jobs_csv(const std::filesystem::path& dir, const std::vector<cluster::Job>& jobs,
                           const cluster::JobModeResult& result, std::uint64_t max_rows);
WrittenFile write_cluster_csv(const std::filesystem::path& dir, const cluster::JobModeResult& result,
                              std::uint64_t max_rows);
// The same tables printed to `out` (no path in the WrittenFile), for callers that keep them in memory.
WrittenFile print_jobs_csv(std::ostream& out, const std::vector<cluster::Job>& jobs, const cluster::JobModeResult& result,
                           std::uint64_t max_rows);
WrittenFile print_cluster_csv(std::ostream& out, const cluster::JobModeResult& result, std::uint64_t max_rows);
WrittenFile write_cluster_timeline(const std::filesystem::path& dir, const cluster::Machines& machines,
                                   const std::vector<cluster::Job>& jobs, const cluster::JobModeResult& result,
                                   std::uint64_t max_events);

struct ClusterRunInfo {
  std::uint64_t seed = 0;
  nlohmann::json effective_config;
  std::vector<cluster::ClusterSettings::SourceCount> sources;
  std::vector<std::string> warnings;
  std::string mode = "job";          // cluster.mode
  nlohmann::json simulation;         // the network modes: what the iteration model simulated
};
nlohmann::json make_cluster_summary(const ClusterRunInfo& info, const cluster::Machines& machines,
                                    const std::vector<cluster::Job>& jobs, const cluster::JobModeResult& result,
                                    const std::vector<WrittenFile>& files);

}  // namespace loom::report
