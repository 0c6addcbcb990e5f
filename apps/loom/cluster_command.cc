#include "cluster_command.h"

#include <fmt/format.h>

#include "loom/cluster/distribution.h"
#include "loom/cluster/failures.h"
#include "loom/cluster/placement.h"
#include "loom/cluster/scheduler.h"
#include "loom/experiment/cluster_experiment.h"

namespace loom::app {

namespace {
void print_seconds(std::string_view what, const nlohmann::json& d) {
  if (d.is_null()) return;
  fmt::print("{:<12} mean {:>12.1f} s   p50 {:>12.1f} s   p99 {:>12.1f} s\n", what, d["mean"].get<double>(),
             d["p50"].get<double>(), d["p99"].get<double>());
}
}  // namespace

int run_cluster_command(config::Document& document, bool quiet, const MemoryBudget& budget) {
  const experiment::ClusterExperiment loaded = experiment::load_cluster(document, budget);
  for (const std::string& warning : loaded.warnings) fmt::print(stderr, "loom: warning: {}\n", warning);
  cluster::ProgressReporter progress;
  if (!quiet) progress.report = [](const cluster::Progress& p) {
    fmt::print(stderr, "loom: simulated day {:.1f}, {}/{} jobs done, {:.1f} s\n", p.now.seconds() / 86400, p.jobs_done,
               p.jobs, p.wall_seconds);
  };
  const experiment::ClusterOutcome outcome = experiment::run_cluster(loaded, progress);
  const nlohmann::json& s = outcome.summary;
  fmt::print("{} jobs ({} finished) on {} GPUs in {} hosts; {} scheduler, {} placement\n",
             s["jobs"]["count"].get<std::uint64_t>(), s["jobs"]["finished"].get<std::uint64_t>(),
             loaded.machines.gpu_count, loaded.machines.hosts.size(), loaded.settings.options.scheduler,
             loaded.settings.options.placement);
  print_seconds("wait", s["wait_s"]);
  print_seconds("trace wait", s["trace_wait_s"]);
  print_seconds("JCT", s["jct_s"]);
  fmt::print("makespan {:.1f} h, utilisation {:.3f}, goodput {:.3f}, lost work {:.1f} GPU-h\n",
             s["makespan_s"].get<double>() / 3600, s["utilisation"].get<double>(), s["goodput"].get<double>(),
             s["gpu_hours"]["lost_work"].get<double>());
  fmt::print("wrote {}\n", outcome.summary_path.string());
  return 0;
}

void list_cluster_models() {
  fmt::print("\nCluster (cluster: section; see src/loom/cluster/README.md)\n");
  fmt::print("  modes (cluster.mode): {} (job: opaque durations; the others simulate each job's workload from\n"
             "    cluster.workloads on the topology, fast_forward.iterations per situation, default 2)\n",
             fmt::join(cluster::cluster_mode_names(), ", "));
  fmt::print("  schedulers (cluster.scheduler): {}\n", fmt::join(cluster::scheduler_names(), ", "));
  fmt::print("  placements (cluster.placement): {}\n", fmt::join(cluster::placement_names(), ", "));
  fmt::print("  failure models (cluster.failures, cluster.maintenance):\n");
  for (const cluster::FailureModelInfo& f : cluster::failure_model_catalog()) {
    fmt::print("    {:<12} {}\n", f.name, f.parameters);
  }
  fmt::print("  distributions ({{dist: NAME, ...}}: arrivals, gpus, duration, time_to_failure, repair):\n");
  for (const cluster::DistributionInfo& d : cluster::distribution_catalog()) {
    fmt::print("    {:<12} {}\n", d.name, d.parameters);
  }
  fmt::print("  job sources: jobs (list), job_files (format csv | alibaba | philly), synthetic\n");
}

}  // namespace loom::app
