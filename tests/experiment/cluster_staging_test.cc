// Training-data staging is simulated alone (experiment/cluster_fidelity.h): exact when no
// running job's traffic crosses the staging's NIC or links, optimistic when it does. Both are
// checked against the same scatter simulated beside a running job's iterations.
#include <iostream>
#include <vector>

#include <gtest/gtest.h>

#include "cluster_text.h"

namespace loom::experiment {
namespace {

// 10 hosts of one GPU (cluster GPU g = topology rank g), two leaves of 5 with one 400G uplink
// each. Job s stages 1 GiB from host 0 onto hosts 5 and 6 (leaf 1): 512 MiB each through host
// 0's NIC, leaf 0's uplink and leaf 1's downlink.
class Staging : public ::testing::Test {
 protected:
  Staging()
      : e_(testing::load_cluster_text(R"(
topology: {blueprint: leaf-spine, hosts: 10, hosts_per_leaf: 5, gpus_per_host: 1, spines: 1, links_per_pair: 1}
cluster:
  mode: flow
  workloads:
    ring: {type: microbenchmark, ranks: 4, collectives: [{op: all-reduce, group: world, size: 64MiB}]}
  jobs:
    - {id: s, gpus: 2, workload: ring, iterations: 1, data: {host: host.0, size: 1GiB}}
  sample_interval: 0
)")),
        model_(*e_.network, e_.machines, e_.settings.jobs) {}

  double alone() { return model_.staging_time(e_.settings.jobs[0], kStagedOn).seconds(); }

  // The staging's end when it starts together with a ring all-reduce job on `running` (which
  // runs enough iterations to outlast it).
  double beside(const std::vector<std::uint32_t>& running) {
    const ClusterNetwork& net = *e_.network;
    workload::Composition composition(net.topology.gpu_count());
    composition.append(net.workloads.at("ring").workload, running, "r/", 40);
    std::vector<std::uint32_t> identity(net.topology.gpu_count());
    for (std::uint32_t r = 0; r < identity.size(); ++r) identity[r] = r;
    const std::vector<std::uint32_t> members{0, 5, 6};
    const workload::NodeRange staging =
        composition.append(staging_scatter(net.topology.gpu_count(), e_.settings.jobs[0], 2, members), identity, "s/")
            .back();
    return testing::end_of_range(net, composition.take(), staging);
  }

  static constexpr std::uint32_t kStagedOnGpus[2] = {5, 6};
  const std::span<const std::uint32_t> kStagedOn{kStagedOnGpus};
  ClusterExperiment e_;
  NetworkIterationModel model_;
};

TEST_F(Staging, AloneIsExactWhenRunningJobsUseOtherLinks) {
  // The ring on hosts 1-4 stays below leaf 0: their NICs and leaf 0's ports to them only.
  const double t = alone();
  EXPECT_NEAR(t, 1073741824.0 * 8 / 400e9, 0.005 * t);
  EXPECT_NEAR(beside({1, 2, 3, 4}), t, 1e-9);  // the cluster clock counts nanoseconds
}

TEST_F(Staging, AloneIsOptimisticWhenARunningJobSharesItsUplink) {
  // The ring on hosts 1, 2 (leaf 0) and 7, 8 (leaf 1) sends across leaf 0's uplink and leaf
  // 1's downlink, which the staging's flows also take.
  const double t = alone();
  const double shared = beside({1, 2, 7, 8});
  std::cout << "staging beside a ring sharing its uplink / alone: " << shared / t << "\n";
  EXPECT_GT(shared, 2 * t);  // 2.92 x: the ring's flows across the leaves hold their shares of the uplink
}

}  // namespace
}  // namespace loom::experiment
