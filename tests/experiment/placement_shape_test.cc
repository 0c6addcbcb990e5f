// NetworkIterationModel's memo by placement shape (experiment/placement_shape.h): the same
// arrangement of a group on other, equally built hosts is answered from memory with the time a
// simulation of it gives; a placement on differently built hosts, or while a cable is down, is
// simulated. Groups simulated on several threads get the serial times.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cluster_text.h"
#include "loom/experiment/cluster_experiment.h"

namespace loom::experiment {
namespace {

using testing::load_cluster_text;

// Hosts of one GPU-pair each; `spines` spines with one cable per leaf, so with one spine every
// route is the only one (no ECMP draw to differ).
ClusterExperiment fabric(std::uint32_t hosts, std::uint32_t hosts_per_leaf, std::uint32_t spines) {
  return load_cluster_text("topology: {blueprint: leaf-spine, hosts: " + std::to_string(hosts) +
                           ", hosts_per_leaf: " + std::to_string(hosts_per_leaf) +
                           ", gpus_per_host: 2, spines: " + std::to_string(spines) + R"(, links_per_pair: 1}
cluster:
  mode: flow
  workloads:
    dp: {type: microbenchmark, ranks: 4, collectives: [{op: all-reduce, group: world, size: 32MiB}]}
  jobs:
    - {id: a, gpus: 4, workload: dp, iterations: 10}
    - {id: b, gpus: 4, workload: dp, iterations: 10}
  sample_interval: 0
)");
}

// The model keeps a reference to the jobs: callers hold them.
std::vector<cluster::Job> jobs_of(std::size_t count = 2) {
  std::vector<cluster::Job> jobs(count);
  for (std::size_t i = 0; i < count; ++i) {
    jobs[i].id = std::string(1, static_cast<char>('a' + i));
    jobs[i].gpus = 4;
    jobs[i].workload = "dp";
    jobs[i].iteration_time = cluster::Span::ns(1'000'000);
  }
  return jobs;
}

// The cluster GPUs of `hosts` (two per host).
std::vector<std::uint32_t> gpus_of(std::initializer_list<std::uint32_t> hosts) {
  std::vector<std::uint32_t> gpus;
  for (const std::uint32_t h : hosts) {
    gpus.push_back(2 * h);
    gpus.push_back(2 * h + 1);
  }
  return gpus;
}

using Placement = std::vector<std::vector<std::uint32_t>>;  // per job

std::vector<cluster::Span> ask(NetworkIterationModel& model, const Placement& placement) {
  std::vector<cluster::PlacedJob> placed;
  for (std::size_t i = 0; i < placement.size(); ++i) {
    placed.push_back(cluster::PlacedJob{static_cast<cluster::JobId>(i), placement[i], 0.5 * static_cast<double>(i)});
  }
  return model.iteration_times(placed);
}

std::uint64_t simulations(const NetworkIterationModel& model) { return model.statistics()["simulations"]; }

TEST(PlacementShape, TheSameShapeElsewhereIsRememberedWithTheTimeItsSimulationGives) {
  // Eight 2-host leaves, one spine. A job on hosts 0 and 2 (leaves 0, 1) and one on hosts 4 and
  // 6 (leaves 2, 3) have one shape; so do the pairs {0+2, 1+3} and {8+10, 9+11}, two jobs
  // sharing both leaves' single uplinks.
  const ClusterExperiment e = fabric(16, 2, 1);
  const std::vector<cluster::Job> jobs = jobs_of();
  const Placement lone_here{gpus_of({0, 2})}, lone_there{gpus_of({4, 6})};
  const Placement pair_here{gpus_of({0, 2}), gpus_of({1, 3})}, pair_there{gpus_of({8, 10}), gpus_of({9, 11})};

  NetworkIterationModel remembering(*e.network, e.machines, jobs);
  const std::vector<cluster::Span> lone = ask(remembering, lone_here);
  const std::vector<cluster::Span> pair = ask(remembering, pair_here);
  EXPECT_EQ(simulations(remembering), 2u);
  EXPECT_EQ(ask(remembering, lone_there), lone);
  EXPECT_EQ(ask(remembering, pair_there), pair);
  EXPECT_EQ(simulations(remembering), 2u) << "both answered from memory";
  EXPECT_GT(pair[0], lone[0]) << "the pair shares uplinks";

  NetworkIterationModel fresh(*e.network, e.machines, jobs);
  EXPECT_EQ(ask(fresh, lone_there), lone);
  EXPECT_EQ(ask(fresh, pair_there), pair);
  EXPECT_EQ(simulations(fresh), 2u);
}

TEST(PlacementShape, HostsBuiltDifferentlyAreSimulated) {
  // Leaves of 4 hosts; leaf 2 holds only hosts 8 and 9. Hosts {0, 4}, {1, 5} and {4, 8} are
  // each one host on each of two leaves, but the last takes the partly filled leaf.
  const ClusterExperiment e = fabric(10, 4, 1);
  const std::vector<cluster::Job> jobs = jobs_of();
  NetworkIterationModel model(*e.network, e.machines, jobs);
  ask(model, {gpus_of({0, 4})});
  ask(model, {gpus_of({1, 5})});
  EXPECT_EQ(simulations(model), 1u);
  ask(model, {gpus_of({4, 8})});
  EXPECT_EQ(simulations(model), 2u);
}

TEST(PlacementShape, WhileACableIsDownEveryPlacementIsItsOwn) {
  // Two spines; leaf 2 loses one of its two uplinks: a job across leaves 2 and 3 runs slower
  // than the same shape across leaves 0 and 1, and is not answered with its time.
  ClusterExperiment e = fabric(16, 2, 2);
  const topology::Topology& t = e.network->topology;
  const auto leaf2 = t.find("leaf.2");
  ASSERT_TRUE(leaf2.has_value());
  topology::LinkId uplink = topology::kNone;
  for (const topology::LinkId l : t.out_links(*leaf2)) {
    if (t.node(t.link(l).dst).kind == topology::NodeKind::kSwitch) uplink = l;
  }
  ASSERT_NE(uplink, topology::kNone);
  e.network->fabric_changes.push_back(FabricChange{cluster::Span::zero(), {uplink}, false});
  const std::vector<cluster::Job> jobs = jobs_of();
  NetworkIterationModel model(*e.network, e.machines, jobs);
  const cluster::Span healthy_fabric = ask(model, {gpus_of({0, 2})})[0];
  model.apply_fabric_change(0);
  const cluster::Span near = ask(model, {gpus_of({0, 2})})[0];
  const cluster::Span across_the_cut = ask(model, {gpus_of({4, 6})})[0];
  EXPECT_EQ(simulations(model), 3u);
  EXPECT_GT(across_the_cut, near);
  EXPECT_EQ(ask(model, {gpus_of({0, 2})})[0], near);  // the same GPUs on the same fabric: remembered
  EXPECT_EQ(simulations(model), 3u);
  (void)healthy_fabric;
}

// cluster.threads: the groups one question leaves to simulate run at once, each with its own
// simulator, and give the serial run's times and counts.
TEST(PlacementShape, GroupsSimulatedOnSeveralThreadsGetTheSerialTimes) {
  ClusterExperiment e = fabric(16, 2, 1);
  const std::vector<cluster::Job> jobs = jobs_of(5);
  // Three groups of distinct shapes: {a, b} share leaves 0 and 1, {c, d} leaf 4, e is alone on
  // leaf 7.
  const Placement placement{gpus_of({0, 2}), gpus_of({1, 3}), gpus_of({8, 10}), gpus_of({9, 12}), gpus_of({14, 15})};
  const std::vector<double> phases{0, 0.5, 0, 0.25, 0};
  const auto ask_all = [&](NetworkIterationModel& model) {
    std::vector<cluster::PlacedJob> placed;
    for (std::size_t i = 0; i < placement.size(); ++i) {
      placed.push_back(cluster::PlacedJob{static_cast<cluster::JobId>(i), placement[i], phases[i]});
    }
    return model.iteration_times(placed);
  };
  NetworkIterationModel serial(*e.network, e.machines, jobs);
  const std::vector<cluster::Span> expected = ask_all(serial);
  EXPECT_EQ(simulations(serial), 3u);
  e.network->threads = 3;
  NetworkIterationModel threaded(*e.network, e.machines, jobs);
  EXPECT_EQ(ask_all(threaded), expected);
  EXPECT_EQ(threaded.statistics(), serial.statistics());
  EXPECT_EQ(ask_all(threaded), expected) << "the same groups again keep their times";
  EXPECT_EQ(simulations(threaded), 3u);
  EXPECT_GT(expected[0], expected[4]) << "a and b share uplinks, e is alone";
}

}  // namespace
}  // namespace loom::experiment
