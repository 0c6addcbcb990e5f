#include "loom/topology/topology_summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "loom/topology/clos.h"

namespace loom::topology {
namespace {

using ::testing::HasSubstr;

TEST(TopologySummary, FatTreeTiersBisectionAndPaths) {
  FatTreeParams p;
  p.k = 4;
  p.host.gpus_per_host = 1;
  const Topology t = make_fat_tree(p);
  const Routing r(t);
  const TopologySummary s = summarize(t, r, 200);
  EXPECT_EQ(s.hosts, 16u);
  EXPECT_EQ(s.gpus, 16u);
  EXPECT_EQ(s.nics, 16u);
  EXPECT_EQ(s.fabric_switches, 20u);
  EXPECT_EQ(s.cables, 16u + 16u + 16u + 16u);
  ASSERT_EQ(s.tiers.size(), 3u);
  const std::uint64_t g400 = 400'000'000'000;
  EXPECT_EQ(s.tiers[0].switches, 8u);
  EXPECT_EQ(s.tiers[0].down_bps, 16 * g400);
  EXPECT_EQ(s.tiers[0].up_bps, 16 * g400);
  EXPECT_DOUBLE_EQ(s.tiers[1].oversubscription(), 1.0);
  EXPECT_EQ(s.tiers[2].switches, 4u);
  EXPECT_EQ(s.tiers[2].up_bps, 0u);
  EXPECT_EQ(s.nic_bps, 16 * g400);
  EXPECT_EQ(s.bisection_bps, 8 * g400);
  EXPECT_EQ(s.diameter, 8u);
  EXPECT_EQ(s.max_paths, 4u);  // (k/2)^2 between pods
  EXPECT_EQ(s.min_paths, 1u);  // same leaf
  EXPECT_EQ(s.unreachable_pairs, 0u);
  std::ostringstream out;
  print_summary(s, out);
  EXPECT_THAT(out.str(), HasSubstr("hosts 16   GPUs 16   NICs 16   scale-up switches 0   fabric "
                                   "switches 20   cables 64"));
  EXPECT_THAT(out.str(), HasSubstr("bisection bandwidth (estimate) 3.2Tbps"));
}

TEST(TopologySummary, OversubscribedLeavesHalveTheirUplinks) {
  ClosParams p;
  p.radix = 16;
  p.oversubscription = 3;  // 12 down : 4 up per leaf
  p.tiers = 2;
  p.host.gpus_per_host = 4;
  p.hosts = 6;  // 3 hosts per leaf, 2 leaves
  const Topology t = make_clos(p);
  const TopologySummary s = summarize(t, Routing(t), 64);
  ASSERT_EQ(s.tiers.size(), 2u);
  EXPECT_DOUBLE_EQ(s.tiers[0].oversubscription(), 3.0);
  EXPECT_EQ(s.bisection_bps, s.tiers[0].up_bps / 2);
}

}  // namespace
}  // namespace loom::topology
