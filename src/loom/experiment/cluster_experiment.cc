#include "loom/experiment/cluster_experiment.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/experiment/sections.h"
#include "loom/experiment/system_section.h"
#include "loom/experiment/workload_sections.h"
#include "loom/report/cluster_outputs.h"
#include "loom/report/html/report.h"
#include "loom/report/summary.h"

namespace loom::experiment {

bool is_cluster_experiment(config::Document& document) { return document.root().has("cluster"); }

namespace {

// The network modes' workloads, collective, system and network sections, on `topology`.
ClusterNetwork read_cluster_network(config::Reader root, config::Reader cluster, topology::Topology topology,
                                    const cluster::ClusterSettings& settings, const std::filesystem::path& base_dir,
                                    std::uint64_t seed, const MemoryBudget& budget) {
  ClusterNetwork n;
  n.topology = std::move(topology);
  n.iterations = settings.fast_forward_iterations;
  n.threads = settings.threads;
  if (!cluster.has_map("workloads")) {
    cluster.fail("workloads", fmt::format("cluster.mode {} simulates the jobs' workloads: define them here "
                                          "({{name: {{type: training, ...}}}}) and name one in each job",
                                          settings.mode));
  }
  config::Reader workloads = cluster.child("workloads");
  std::uint32_t streams_needed = 1;
  for (const std::string& name : workloads.keys()) {
    config::Reader w = workloads.child(name);
    if (w.has("iterations")) {
      w.fail("iterations", "a cluster job's iterations are the job's (jobs[].iterations); the workload is one iteration");
    }
    LoadedWorkloadSection loaded =
        read_workload_section(w, n.topology.gpu_count(), base_dir, seed, budget);
    if (!loaded.nic_slowdowns.empty()) {
      w.fail("variation", "NIC slowdowns name ranks of one job, not NICs of the cluster; slow the topology's links instead");
    }
    streams_needed = std::max(streams_needed, loaded.comm_streams_needed);
    n.workloads.emplace(name, ClusterWorkload{std::move(loaded.workload), w.location()});
  }
  n.runtime = read_collective(root.child_or_empty("collective"), base_dir);
  n.runtime.flow_hash_seed = seed;
  config::Reader system = root.child_or_empty("system");
  read_system(system, streams_needed, n.runtime);
  const network::NetworkMode mode = network::parse_network_mode(settings.mode);
  config::Reader net = root.child_or_empty("network");
  n.network = read_network(net, n.topology, seed, base_dir, mode);
  if (n.network.params.mode != mode) {
    net.fail("mode", fmt::format("cluster.mode is {}: give the fidelity once, in cluster.mode", settings.mode));
  }
  for (const LinkChange& c : n.network.link_changes) {
    n.fabric_changes.push_back(FabricChange{cluster::Span::ns(c.at.picoseconds() / 1000), {c.link}, c.up});
  }
  check_stream_classes(system, n.runtime, n.network);
  return n;
}

// Drains of switches that are not leaves take the switch's cables down for their window (jobs
// reroute); host and leaf drains stay with the engine, which preempts the jobs there.
void drain_switches(ClusterNetwork& n, const cluster::Machines& machines, std::vector<cluster::Maintenance>& drains) {
  std::vector<cluster::Maintenance> kept;
  for (cluster::Maintenance& m : drains) {
    const std::optional<topology::NodeId> node = n.topology.find(m.target);
    const bool engine_drains = machines.find_host(m.target) != topology::kNone || machines.find_leaf(m.target) != topology::kNone;
    if (engine_drains || !node || n.topology.node(*node).kind != topology::NodeKind::kSwitch) {
      kept.push_back(std::move(m));
      continue;
    }
    std::vector<topology::LinkId> links;
    for (const topology::LinkId l : n.topology.out_links(*node)) links.push_back(l);
    n.fabric_changes.push_back(FabricChange{m.start, links, false});
    n.fabric_changes.push_back(FabricChange{m.start + m.duration, links, true});
  }
  drains = std::move(kept);
  std::stable_sort(n.fabric_changes.begin(), n.fabric_changes.end(),
                   [](const FabricChange& a, const FabricChange& b) { return a.at < b.at; });
}

}  // namespace

ClusterExperiment load_cluster(config::Document& document, const MemoryBudget& budget) {
  config::Reader root = document.root();
  const std::filesystem::path base_dir = std::filesystem::path(document.source_name()).parent_path();
  ClusterExperiment e;
  e.seed = root.optional<std::uint64_t>("seed", e.seed);
  config::Reader section = root.child("cluster");
  std::optional<topology::Topology> topology;
  if (std::optional<cluster::Machines> machines = cluster::read_machines(section, base_dir)) {
    if (root.has("topology")) section.fail("machines", "give a topology section or cluster.machines, not both");
    e.machines = std::move(*machines);
  } else {
    topology = read_topology(root.child("topology"), base_dir, budget);
    e.machines = cluster::machines_from_topology(*topology);
  }
  e.warnings = e.machines.warnings;
  e.settings = cluster::read_cluster(section, e.machines, base_dir, e.seed);
  e.warnings.insert(e.warnings.end(), e.settings.warnings.begin(), e.settings.warnings.end());
  if (e.settings.mode == "job") {
    for (const char* key : {"workload", "collective", "system", "network"}) {
      if (root.has(key)) {
        root.fail(key, "cluster.mode job runs jobs for their durations and simulates no network; cluster.mode "
                       "analytical, flow or packet simulates the jobs' workloads (cluster.workloads)");
      }
    }
    if (section.has("workloads")) section.fail("workloads", "cluster.mode job runs no workloads");
  } else {
    if (!topology) {
      section.fail("machines", fmt::format("cluster.mode {} simulates jobs on the topology section's fabric; a machine "
                                           "list has no links",
                                           e.settings.mode));
    }
    if (root.has("workload")) root.fail("workload", "a cluster experiment's workloads are named in cluster.workloads");
    e.network = read_cluster_network(root, section, std::move(*topology), e.settings, base_dir, e.seed, budget);
    drain_switches(*e.network, e.machines, e.settings.options.failures.maintenance);
  }
  config::Reader output = root.child_or_empty("output");
  e.output.dir = output.optional<std::string>("dir", e.output.dir.string());
  e.output.jobs = output.optional<bool>("jobs", e.output.jobs);
  e.output.cluster = output.optional<bool>("cluster", e.output.cluster);
  e.output.timeline = output.optional<bool>("timeline", e.output.timeline);
  e.output.max_rows = output.optional<std::uint64_t>("max_rows", e.output.max_rows);
  e.output.report = read_output_report(output);
  document.finish();
  e.effective_config = document.effective();
  return e;
}

ClusterOutcome run_cluster(const ClusterExperiment& e, const cluster::ProgressReporter& progress, RunMode mode) {
  ClusterOutcome outcome;
  std::vector<cluster::Job>& jobs = outcome.jobs;
  jobs = e.settings.jobs;
  std::optional<NetworkIterationModel> model;
  if (e.network) {
    model.emplace(*e.network, e.machines, jobs);
    for (cluster::Job& job : jobs) {
      if (job.data_bytes > 0 && e.machines.find_host(job.data_host) == topology::kNone) {
        throw UserError(job.where, fmt::format("job '{}' stages its data from '{}', which is not a host of the cluster",
                                               job.id, job.data_host));
      }
      if (job.workload.empty()) continue;
      job.iteration_time = model->reference_time(job);
      job.duration = cluster::Span::ns(job.iteration_time.nanoseconds() * static_cast<std::int64_t>(job.iterations));
    }
  }
  outcome.result = cluster::run_job_mode(e.machines, jobs, e.settings.options, progress, model ? &*model : nullptr);
  const std::filesystem::path& dir = e.output.dir;
  const bool write = mode == RunMode::kWriteFiles;
  if (write && e.output.jobs) outcome.files.push_back(report::write_jobs_csv(dir, jobs, outcome.result, e.output.max_rows));
  if (write && e.output.cluster) outcome.files.push_back(report::write_cluster_csv(dir, outcome.result, e.output.max_rows));
  if (write && e.output.timeline) {
    outcome.files.push_back(report::write_cluster_timeline(dir, e.machines, jobs, outcome.result, e.output.max_rows));
  }
  const report::ClusterRunInfo info{e.seed, e.effective_config, e.settings.sources, e.warnings, e.settings.mode,
                                    model ? model->statistics() : nlohmann::json()};
  outcome.summary = report::make_cluster_summary(info, e.machines, jobs, outcome.result, outcome.files);
  if (write) outcome.summary_path = report::write_summary(dir, outcome.summary);
  if (write && e.output.report) report::html::write_report(dir, dir / "report.html");
  return outcome;
}

}  // namespace loom::experiment
