// fast_forward.groups: a group of jobs that may share links simulated whole, or as pairs (each
// job's time is that of its slowest pair). Checked on a chain a - b - c where a and c share no
// link but each shares one with b.
#include <iostream>
#include <vector>

#include <gtest/gtest.h>

#include "cluster_text.h"
#include "loom/cluster/interference.h"

namespace loom::experiment {
namespace {

// 16 hosts of one GPU (cluster GPU g = topology rank g) on four leaves of 4 with one uplink each.
// Ring all-reduces: a on hosts 0-5 (leaves 0, 1), b on 6-9 (leaves 1, 2), c on 10-13 (leaves
// 2, 3): a and b both cross leaf 1's uplink, b and c leaf 2's.
ClusterExperiment chain(const std::string& groups) {
  return testing::load_cluster_text(R"(
topology: {blueprint: leaf-spine, hosts: 16, hosts_per_leaf: 4, gpus_per_host: 1, spines: 1, links_per_pair: 1}
cluster:
  mode: flow
  fast_forward: {iterations: 2, groups: )" + groups + R"(}
  workloads:
    ring6: {type: microbenchmark, ranks: 6, collectives: [{op: all-reduce, group: world, size: 64MiB}]}
    ring4: {type: microbenchmark, ranks: 4, collectives: [{op: all-reduce, group: world, size: 64MiB}]}
  jobs:
    - {id: a, gpus: 6, workload: ring6, iterations: 10}
    - {id: b, gpus: 4, workload: ring4, iterations: 10}
    - {id: c, gpus: 4, workload: ring4, iterations: 10}
  sample_interval: 0
)");
}

struct Chain {
  std::vector<std::uint32_t> a{0, 1, 2, 3, 4, 5}, b{6, 7, 8, 9}, c{10, 11, 12, 13};
  std::vector<cluster::PlacedJob> placed{{0, a}, {1, b}, {2, c}};
};

std::vector<double> times(const std::string& groups, std::span<const cluster::PlacedJob> placed,
                          std::uint64_t* simulations = nullptr) {
  const ClusterExperiment e = chain(groups);
  NetworkIterationModel model(*e.network, e.machines, e.settings.jobs);
  std::vector<double> seconds;
  for (const cluster::Span t : model.iteration_times(placed)) seconds.push_back(t.seconds());
  if (simulations != nullptr) *simulations = model.statistics()["simulations"];
  return seconds;
}

TEST(ClusterGroups, TheChainIsOneGroupOfTwoPairs) {
  const Chain chain;
  const ClusterExperiment e = testing::load_cluster_text(R"(
topology: {blueprint: leaf-spine, hosts: 16, hosts_per_leaf: 4, gpus_per_host: 1, spines: 1, links_per_pair: 1}
cluster: {jobs: [{id: x, duration: 1h}]}
)");
  using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
  EXPECT_EQ(cluster::interacting_pairs(e.machines, chain.placed), (Pairs{{0, 1}, {1, 2}}));
  EXPECT_EQ(cluster::interacting_groups(e.machines, chain.placed).size(), 1u);
}

TEST(ClusterGroups, PairsAgreeWithTheWholeGroupOnAChain) {
  const Chain chain;
  std::uint64_t whole_simulations = 0, pair_simulations = 0;
  const std::vector<double> whole = times("whole", chain.placed, &whole_simulations);
  const std::vector<double> pairs = times("pairs", chain.placed, &pair_simulations);
  // Each alone, for reference (a group of one is simulated alone either way).
  std::vector<double> alone;
  for (const cluster::PlacedJob& p : chain.placed) alone.push_back(times("whole", {&p, 1})[0]);
  for (std::size_t j = 0; j < 3; ++j) {
    std::cout << "job " << j << ": alone " << alone[j] << " s, whole group " << whole[j] << " s, pairs "
              << pairs[j] << " s (pairs / whole " << pairs[j] / whole[j] << ")\n";
    EXPECT_GT(whole[j], 1.05 * alone[j]) << "the chain's jobs slow each other down";
    // b's ring is slowed on leaf 1's uplink by a and on leaf 2's by c: its slowest hop sets
    // its pace, as in its slower pair (the slowdowns do not add up).
    EXPECT_NEAR(pairs[j] / whole[j], 1.0, 0.01) << "job " << j;
  }
  // Whole: {a, b, c}. Pairs: {a, b} and {b, c}.
  EXPECT_EQ(whole_simulations, 1u);
  EXPECT_EQ(pair_simulations, 2u);
}

TEST(ClusterGroups, AJobLeavingTheChainKeepsThePairsThatRemain) {
  const ClusterExperiment e = chain("pairs");
  NetworkIterationModel model(*e.network, e.machines, e.settings.jobs);
  Chain chain;
  model.iteration_times(chain.placed);
  const std::uint64_t before = model.statistics()["simulations"];
  // c leaves: {a, b} is the pair asked before; nothing new is simulated.
  const std::vector<cluster::Span> after = model.iteration_times(std::span(chain.placed).first(2));
  EXPECT_EQ(model.statistics()["simulations"], before);
  EXPECT_EQ(after.size(), 2u);
}

}  // namespace
}  // namespace loom::experiment
