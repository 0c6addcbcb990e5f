// `loom run` on an experiment file with a `cluster:` section: machines from the topology
// section (leaves and pods from its switches), the run's files, and the section's errors.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loom/config/document.h"
#include "cluster_text.h"
#include "loom/experiment/cluster_experiment.h"

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;
using testing::load_cluster_text;

TEST(ClusterExperiment, HostsLeavesAndPodsComeFromTheTopology) {
  const ClusterExperiment leaf_spine = load_cluster_text(R"(
topology: {blueprint: leaf-spine, hosts: 8, hosts_per_leaf: 4, gpus_per_host: 8}
cluster: {jobs: [{id: a, gpus: 8, duration: 1h}]}
)");
  EXPECT_EQ(leaf_spine.machines.hosts.size(), 8u);
  EXPECT_EQ(leaf_spine.machines.gpu_count, 64u);
  EXPECT_EQ(leaf_spine.machines.leaves.size(), 2u);
  EXPECT_EQ(leaf_spine.machines.pod_count, 1u);  // every leaf reaches every spine
  EXPECT_EQ(leaf_spine.machines.hosts[5].leaf, 1u);
  const ClusterExperiment clos = load_cluster_text(R"(
topology: {blueprint: clos-ratio, hosts: 16, hosts_per_leaf: 2, switch_ratio: "8:4:1", leaves_per_pod: 2, gpus_per_host: 8, nics_per_host: 8}
cluster: {jobs: [{id: a, gpus: 8, duration: 1h}]}
)");
  EXPECT_EQ(clos.machines.leaves.size(), 8u);
  EXPECT_EQ(clos.machines.pod_count, 4u);
}

TEST(ClusterExperiment, RunWritesJobsClusterTimelineAndSummary) {
  const fs::path dir = fs::temp_directory_path() / "loom_cluster_experiment_test";
  fs::remove_all(dir);
  ClusterExperiment e = load_cluster_text(R"(
seed: 4
topology: {blueprint: leaf-spine, hosts: 4, hosts_per_leaf: 2, gpus_per_host: 8}
cluster:
  scheduler: priority
  placement: topology-aware
  jobs:
    - {id: long, gpus: 32, duration: 10h, checkpoint_interval: 1h}
    - {id: urgent, submit: 2.5h, gpus: 8, duration: 1h, priority: 9}
  sample_interval: 30min
)");
  e.output.dir = dir;
  const ClusterOutcome outcome = run_cluster(e);
  const nlohmann::json& s = outcome.summary;
  EXPECT_EQ(s["jobs"]["finished"], 2);
  EXPECT_EQ(s["preemptions"], 1);
  // long: 2 h kept at 2.5 h, 0.5 h x 32 GPUs lost; resumes at 3.5 h with 8 h left.
  EXPECT_DOUBLE_EQ(s["gpu_hours"]["lost_work"].get<double>(), 16.0);
  EXPECT_DOUBLE_EQ(s["makespan_s"].get<double>(), 11.5 * 3600);
  EXPECT_EQ(s["seed"], 4);
  for (const char* file : {"jobs.csv", "cluster.csv", "timeline.json", "summary.json"}) {
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  }
  std::ifstream jobs(dir / "jobs.csv");
  std::string header, row;
  std::getline(jobs, header);
  EXPECT_EQ(header.substr(0, 34), "id,user,submit,start,end,wait,jct,");
  int rows = 0;
  while (std::getline(jobs, row)) ++rows;
  EXPECT_EQ(rows, 2);
  const nlohmann::json timeline = nlohmann::json::parse(std::ifstream(dir / "timeline.json"));
  int spans = 0;
  for (const auto& event : timeline["traceEvents"]) spans += event["ph"] == "X" ? 1 : 0;
  EXPECT_EQ(spans, 4 + 1 + 4);  // long on 4 hosts twice, urgent on one
  fs::remove_all(dir);
}

TEST(ClusterExperiment, MachinesComeFromAListOrTheTopologyNotBoth) {
  const fs::path list = fs::temp_directory_path() / "loom_cluster_machines.csv";
  std::ofstream(list) << "machineId, number of GPUs, single GPU mem\nm0,2, 12GB\nm1,8, 24GB\n";
  const std::string cluster = "cluster:\n  machines: {format: philly, file: " + list.string() +
                              ", hosts_per_leaf: 1}\n  jobs: [{id: a, gpus: 10, duration: 1h}]\n";
  const ClusterExperiment e = load_cluster_text(cluster);
  EXPECT_EQ(e.machines.gpu_count, 10u);
  EXPECT_EQ(e.machines.leaves.size(), 2u);
  try {
    load_cluster_text("topology: {blueprint: single-switch, hosts: 1}\n" + cluster);
    FAIL() << "expected a UserError";
  } catch (const UserError& err) {
    EXPECT_NE(std::string(err.what()).find("not both"), std::string::npos) << err.what();
  }
  EXPECT_THROW(load_cluster_text("cluster:\n  jobs: [{id: a, duration: 1h}]\n"), UserError);  // no machines at all
  fs::remove(list);
}

}  // namespace
}  // namespace loom::experiment
