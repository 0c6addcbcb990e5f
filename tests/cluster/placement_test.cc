// Placement policies on a small cluster: 8 hosts of 4 GPUs, 2 hosts per leaf, 2 leaves per pod
// (leaves 0-3, pods 0-1).
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "loom/cluster/cluster_state.h"
#include "loom/cluster/placement.h"
#include "test_cluster.h"

namespace loom::cluster {
namespace {

class PlacementTest : public ::testing::Test {
 protected:
  PlacementTest() : m_(testing::machines(8, 4, 2, 2)), state_(m_) {}

  // Occupies `count` GPUs of `host` with a dummy job.
  void occupy(std::uint32_t host, std::uint32_t count) {
    std::vector<std::uint32_t> gpus;
    for (std::uint32_t i = 0; i < count; ++i) gpus.push_back(m_.hosts[host].first_gpu + i);
    state_.assign(gpus, 999);
  }
  std::vector<std::uint32_t> place(const std::string& policy, std::uint32_t gpus, std::uint64_t seed = 1) {
    std::vector<std::uint32_t> out;
    make_placement(policy, seed)->place(state_, gpus, out);
    return out;
  }
  std::set<std::uint32_t> hosts_of(const std::vector<std::uint32_t>& gpus) const {
    std::set<std::uint32_t> hosts;
    for (std::uint32_t g : gpus) hosts.insert(m_.host_of_gpu[g]);
    return hosts;
  }
  std::set<std::uint32_t> leaves_of(const std::vector<std::uint32_t>& gpus) const {
    std::set<std::uint32_t> leaves;
    for (std::uint32_t g : gpus) leaves.insert(m_.hosts[m_.host_of_gpu[g]].leaf);
    return leaves;
  }
  void expect_valid(const std::vector<std::uint32_t>& gpus, std::uint32_t want) const {
    ASSERT_EQ(gpus.size(), want);
    EXPECT_EQ(std::set<std::uint32_t>(gpus.begin(), gpus.end()).size(), want);
    for (std::uint32_t g : gpus) EXPECT_TRUE(state_.is_available(g));
  }

  Machines m_;
  ClusterState state_;
};

TEST_F(PlacementTest, PackedTakesTheFirstHostThatFits) {
  occupy(0, 1);  // host 0: 3 available; host 1..7: 4
  const auto gpus = place("packed", 3);
  expect_valid(gpus, 3);
  EXPECT_EQ(hosts_of(gpus), std::set<std::uint32_t>{0});
}

TEST_F(PlacementTest, TopologyAwareTakesTheTightestHostThatFits) {
  occupy(3, 1);  // host 3 has 3 available: the tightest fit for 3 GPUs
  const auto gpus = place("topology-aware", 3);
  expect_valid(gpus, 3);
  EXPECT_EQ(hosts_of(gpus), std::set<std::uint32_t>{3});
  EXPECT_EQ(hosts_of(place("packed", 3)), std::set<std::uint32_t>{0});
}

TEST_F(PlacementTest, TopologyAwareKeepsAJobInOneLeafWhenOneHoldsIt) {
  // Leaf 0: 1 + 1 available; leaf 1: 3 + 3; leaf 2: 4 + 4; leaf 3: 4 + 4. A 6-GPU job fits leaf 1
  // exactly (best fit), on its two hosts.
  occupy(0, 3);
  occupy(1, 3);
  occupy(2, 1);
  occupy(3, 1);
  const auto gpus = place("topology-aware", 6);
  expect_valid(gpus, 6);
  EXPECT_EQ(leaves_of(gpus), std::set<std::uint32_t>{1});
  // Packed also stays in one leaf, the first that holds it (leaf 1 too here).
  EXPECT_EQ(leaves_of(place("packed", 6)).size(), 1u);
}

TEST_F(PlacementTest, TopologyAwareSpansTheFewestLeavesAcrossPods) {
  // 20 GPUs do not fit a pod (16): the fullest leaves first, so 3 leaves (8 + 8 + 4), not 4+.
  occupy(0, 2);  // leaf 0 has 6 available
  const auto gpus = place("topology-aware", 20);
  expect_valid(gpus, 20);
  EXPECT_EQ(leaves_of(gpus).size(), 3u);
}

TEST_F(PlacementTest, SpreadPutsOneGpuPerHost) {
  const auto gpus = place("spread", 5);
  expect_valid(gpus, 5);
  EXPECT_EQ(hosts_of(gpus).size(), 5u);
  // More GPUs than hosts: a second round.
  const auto many = place("spread", 12);
  expect_valid(many, 12);
  EXPECT_EQ(hosts_of(many).size(), 8u);
}

TEST_F(PlacementTest, RandomIsSeededAndValid) {
  occupy(2, 4);
  const auto a = place("random", 10, 7);
  expect_valid(a, 10);
  EXPECT_EQ(a, place("random", 10, 7));
  EXPECT_NE(a, place("random", 10, 8));
}

TEST_F(PlacementTest, EveryPolicyPlacesAWholeGangOnAvailableGpus) {
  occupy(1, 2);
  occupy(4, 3);
  occupy(6, 4);
  for (const std::string_view policy : placement_names()) {
    for (std::uint32_t n = 1; n <= state_.available(); ++n) {
      SCOPED_TRACE(std::string(policy) + " " + std::to_string(n));
      expect_valid(place(std::string(policy), n), n);
    }
  }
  EXPECT_THROW(make_placement("scatter", 1), UserError);
}

}  // namespace
}  // namespace loom::cluster
