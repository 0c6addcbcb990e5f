#include "loom/experiment/cluster_experiment.h"

#include "loom/experiment/sections.h"
#include "loom/report/cluster_outputs.h"
#include "loom/report/summary.h"

namespace loom::experiment {

bool is_cluster_experiment(config::Document& document) { return document.root().has("cluster"); }

ClusterExperiment load_cluster(config::Document& document) {
  config::Reader root = document.root();
  const std::filesystem::path base_dir = std::filesystem::path(document.source_name()).parent_path();
  ClusterExperiment e;
  e.seed = root.optional<std::uint64_t>("seed", e.seed);
  config::Reader section = root.child("cluster");
  if (std::optional<cluster::Machines> machines = cluster::read_machines(section, base_dir)) {
    if (root.has("topology")) section.fail("machines", "give a topology section or cluster.machines, not both");
    e.machines = std::move(*machines);
  } else {
    e.machines = cluster::machines_from_topology(read_topology(root.child("topology"), base_dir));
  }
  e.warnings = e.machines.warnings;
  e.settings = cluster::read_cluster(section, e.machines, base_dir, e.seed);
  e.warnings.insert(e.warnings.end(), e.settings.warnings.begin(), e.settings.warnings.end());
  config::Reader output = root.child_or_empty("output");
  e.output.dir = output.optional<std::string>("dir", e.output.dir.string());
  e.output.jobs = output.optional<bool>("jobs", e.output.jobs);
  e.output.cluster = output.optional<bool>("cluster", e.output.cluster);
  e.output.timeline = output.optional<bool>("timeline", e.output.timeline);
  e.output.max_rows = output.optional<std::uint64_t>("max_rows", e.output.max_rows);
  document.finish();
  e.effective_config = document.effective();
  return e;
}

ClusterOutcome run_cluster(const ClusterExperiment& e, const cluster::ProgressReporter& progress) {
  ClusterOutcome outcome;
  const std::vector<cluster::Job>& jobs = e.settings.jobs;
  outcome.result = cluster::run_job_mode(e.machines, jobs, e.settings.options, progress);
  const std::filesystem::path& dir = e.output.dir;
  if (e.output.jobs) outcome.files.push_back(report::write_jobs_csv(dir, jobs, outcome.result, e.output.max_rows));
  if (e.output.cluster) outcome.files.push_back(report::write_cluster_csv(dir, outcome.result, e.output.max_rows));
  if (e.output.timeline) {
    outcome.files.push_back(report::write_cluster_timeline(dir, e.machines, jobs, outcome.result, e.output.max_rows));
  }
  const report::ClusterRunInfo info{e.seed, e.effective_config, e.settings.sources, e.warnings};
  outcome.summary = report::make_cluster_summary(info, e.machines, jobs, outcome.result, outcome.files);
  outcome.summary_path = report::write_summary(dir, outcome.summary);
  return outcome;
}

}  // namespace loom::experiment
