// fast_forward.groups: a group of jobs that may share links simulated whole, or as pairs (each
// job's time is that of its slowest pair). Checked on a chain a - b - c where a and c share no
// link but each shares one with b.
#include <algorithm>
#include <iostream>
#include <vector>

#include <gtest/gtest.h>

#include "cluster_text.h"
#include "loom/cluster/interference.h"

namespace loom::experiment {
namespace {

// With m = 2 co-runners whose delays add, pairs miss at most (m - 1) / m of the slowdown.
constexpr double kPairsMissAtMost = 0.5;

// 16 hosts on four leaves. Ring all-reduces: a on hosts 0-5 (leaves 0, 1), b on 6-9 (leaves 1, 2), c on 10-13 (leaves
// 2, 3): a and b both cross leaf 1's uplink, b and c leaf 2's.
struct JobLine {
  const char* id;
  std::uint32_t gpus;
  const char* workload;
};

// A flow-mode cluster of `hosts` hosts of one GPU (cluster GPU g = topology rank g), four to a
// leaf with one uplink each, fast_forward n = 2 with `groups`; workload ring4 (a 4-GPU ring
// all-reduce of 64 MiB) and `more_workloads` (YAML under workloads:); `jobs` of 10 iterations.
ClusterExperiment one_gpu_hosts(std::uint32_t hosts, const std::string& groups, const std::string& more_workloads,
                                const std::vector<JobLine>& jobs) {
  std::string yaml = "topology: {blueprint: leaf-spine, hosts: " + std::to_string(hosts) +
                     ", hosts_per_leaf: 4, gpus_per_host: 1, spines: 1, links_per_pair: 1}\n"
                     "cluster:\n  mode: flow\n  fast_forward: {iterations: 2, groups: " + groups +
                     "}\n  sample_interval: 0\n  workloads:\n"
                     "    ring4: {type: microbenchmark, ranks: 4, collectives: [{op: all-reduce, group: world, size: 64MiB}]}\n" +
                     more_workloads + "  jobs:\n";
  for (const JobLine& j : jobs) {
    yaml += std::string("    - {id: ") + j.id + ", gpus: " + std::to_string(j.gpus) + ", workload: " + j.workload +
            ", iterations: 10}\n";
  }
  return testing::load_cluster_text(yaml);
}

ClusterExperiment chain(const std::string& groups) {
  return one_gpu_hosts(16, groups,
                       "    ring6: {type: microbenchmark, ranks: 6, collectives: [{op: all-reduce, group: world, size: 64MiB}]}\n",
                       {{"a", 6, "ring6"}, {"b", 4, "ring4"}, {"c", 4, "ring4"}});
}

struct Chain {
  std::vector<std::uint32_t> a{0, 1, 2, 3, 4, 5}, b{6, 7, 8, 9}, c{10, 11, 12, 13};
  std::vector<cluster::PlacedJob> placed{{0, a}, {1, b}, {2, c}};
};

// The iteration times (s) one model of `e` gives `placed`, and the simulations it ran.
std::vector<double> times_in(const ClusterExperiment& e, std::span<const cluster::PlacedJob> placed,
                             std::uint64_t* simulations = nullptr) {
  NetworkIterationModel model(*e.network, e.machines, e.settings.jobs);
  std::vector<double> seconds;
  for (const cluster::Span t : model.iteration_times(placed)) seconds.push_back(t.seconds());
  if (simulations != nullptr) *simulations = model.statistics()["simulations"];
  return seconds;
}

std::vector<double> times(const std::string& groups, std::span<const cluster::PlacedJob> placed,
                          std::uint64_t* simulations = nullptr) {
  return times_in(chain(groups), placed, simulations);
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

// Three jobs with different periods: b's iteration is two all-reduces one after the other,
// the first across leaf 1's uplink (where a's ring runs too), the second across leaf 3's
// (where c's runs). 20 hosts on five leaves: a on hosts 0, 1 (leaf 0) and 4, 5 (leaf 1); b on
// 6 (leaf 1), 10 (leaf 2) and 14 (leaf 3); c on 12, 13 (leaf 3) and 16, 17 (leaf 4). a - b and b - c may share links, a - c may not.
ClusterExperiment phases(const std::string& groups) {
  return one_gpu_hosts(20, groups, R"(    two_phases:
      type: microbenchmark
      ranks: 3
      groups: {first: {ranks: [0, 1]}, second: {ranks: [1, 2]}}
      collectives: [{op: all-reduce, group: first, size: 64MiB}, {op: all-reduce, group: second, size: 64MiB}]
)",
                       {{"a", 4, "ring4"}, {"b", 3, "two_phases"}, {"c", 4, "ring4"}});
}

struct Phases {
  std::vector<std::uint32_t> a{0, 1, 4, 5}, b{6, 10, 14}, c{12, 13, 16, 17};
  std::vector<cluster::PlacedJob> placed{{0, a}, {1, b}, {2, c}};
};

std::vector<double> phase_times(const std::string& groups, std::span<const cluster::PlacedJob> placed) {
  return times_in(phases(groups), placed);
}

// The whole group's times against one long simulation of the three (a and c 60 iterations, b
// 20; periods over a's and c's iterations 20-40 and b's 8-16, all while every job runs). a and
// c have half b's period: they must run on beside b's measured iterations (b was 25% short
// when they ran out) and be measured over b's whole period (they were 18-20% off from seeing
// only one of its phases).
TEST(ClusterGroups, AGroupWithDifferentPeriodsMatchesSimulatingEveryIteration) {
  const Phases p;
  const std::vector<double> whole = phase_times("whole", p.placed);
  const ClusterExperiment e = phases("whole");
  const ClusterNetwork& net = *e.network;
  workload::Composition composition(net.topology.gpu_count());
  const auto ring = [&](std::span<const std::uint32_t> ranks, const char* name) {
    return composition.append(net.workloads.at("ring4").workload, ranks, name, 60);
  };
  const std::vector<workload::NodeRange> a = ring(p.a, "a/");
  const std::vector<workload::NodeRange> b = composition.append(net.workloads.at("two_phases").workload, p.b, "b/", 20);
  const std::vector<workload::NodeRange> c = ring(p.c, "c/");
  const std::vector<double> ends = testing::ends_of_ranges(net, composition.take(), {a[20], a[40], b[8], b[16], c[20], c[40]});
  const std::vector<double> truth{(ends[1] - ends[0]) / 20, (ends[3] - ends[2]) / 8, (ends[5] - ends[4]) / 20};
  for (std::size_t j = 0; j < 3; ++j) {
    std::cout << "job " << j << ": fast-forward " << whole[j] << " s, every iteration " << truth[j] << " s\n";
  }
  EXPECT_NEAR(whole[1] / truth[1], 1.0, 0.01);
  EXPECT_NEAR(whole[0] / truth[0], 1.0, 0.03);  // 1.023
  EXPECT_NEAR(whole[2] / truth[2], 1.0, 0.03);  // 1.009
}

// Where pairs are wrong: in the whole group both of b's phases are slowed and the delays add;
// each pair slows one phase, and b takes its slower pair's time, which keeps only the largest
// of the m co-runners' delays: pairs miss at most (m - 1) / m of a job's slowdown (here m = 2
// and the delays are equal: half of it, b 24.5% short). Its co-runners see b run faster in
// their pair, so more often in the phase they share: a is 23% slower in its pair than in the
// whole group, c (whose phase is second) 1.3%.
TEST(ClusterGroups, PairsMissAtMostAllButTheLargestOfDelaysThatAdd) {
  const Phases p;
  const std::span<const cluster::PlacedJob> placed = p.placed;
  const std::vector<double> whole = phase_times("whole", placed);
  const std::vector<double> pairs = phase_times("pairs", placed);
  const double alone = phase_times("whole", placed.subspan(1, 1))[0];
  const double with_a = phase_times("whole", placed.first(2))[1];
  const double with_c = phase_times("whole", placed.subspan(1, 2))[0];
  const double missed = (whole[1] - pairs[1]) / (whole[1] - alone);
  std::cout << "b alone " << alone << " s, with a " << with_a << " s, with c " << with_c << " s, with both "
            << whole[1] << " s; pairs " << pairs[1] << " s: " << 100 * (whole[1] - pairs[1]) / whole[1]
            << "% short, " << 100 * missed << "% of the slowdown missed; a pairs / whole " << pairs[0] / whole[0]
            << ", c " << pairs[2] / whole[2] << "\n";
  // The delays add: b beside both is slowed by the sum of what each does alone.
  EXPECT_NEAR(whole[1] - alone, (with_a - alone) + (with_c - alone), 0.02 * (whole[1] - alone));
  // Pairs take the slower pair, and miss the other delay: at most (m - 1) / m of the slowdown.
  EXPECT_DOUBLE_EQ(pairs[1], std::max(with_a, with_c));
  EXPECT_LT(pairs[1], 0.8 * whole[1]);
  EXPECT_LE(missed, kPairsMissAtMost + 0.01);
  // The co-runners are pessimistic in pairs, by the share of b's phases that changed.
  EXPECT_GT(pairs[0], 1.1 * whole[0]);
  EXPECT_LT(pairs[0], 1.3 * whole[0]);
  EXPECT_NEAR(pairs[2] / whole[2], 1.0, 0.03);
}

}  // namespace
}  // namespace loom::experiment
