#include "loom/topology/clos.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "loom/topology/routing.h"
#include "user_error.h"
#include "topology/test_paths.h"

namespace loom::topology {
namespace {

using ::testing::HasSubstr;
using testing::cables_between;
using testing::id;
using testing::nodes_named;
using testing::route_of;
using loom::testing::user_error_of;
using testing::visited;

HostParams one_gpu_host() {
  HostParams h;
  h.gpus_per_host = 1;
  return h;
}

// k-ary fat-trees with one GPU and NIC per host: the textbook counts.
TEST(FatTree, CountsMatchTheTextbookForSeveralK) {
  for (std::uint32_t k : {4u, 6u, 8u}) {
    FatTreeParams p;
    p.k = k;
    p.host = one_gpu_host();
    p.tiers = 3;
    const Topology t = make_fat_tree(p);
    const std::uint32_t half = k / 2;
    EXPECT_EQ(t.gpu_count(), k * k * k / 4) << k;       // hosts 2 (k/2)^3
    EXPECT_EQ(nodes_named(t, "leaf."), k * half) << k;  // k pods x k/2 edge switches
    EXPECT_EQ(nodes_named(t, "agg."), k * half) << k;
    EXPECT_EQ(nodes_named(t, "spine."), half * half) << k;
    EXPECT_EQ(cables_between(t, "host.", "leaf."), k * k * k / 4) << k;
    EXPECT_EQ(cables_between(t, "leaf.", "agg."), k * half * half) << k;
    EXPECT_EQ(cables_between(t, "agg.", "spine."), k * half * half) << k;
    EXPECT_NO_THROW(t.validate());

    p.tiers = 2;
    const Topology two = make_fat_tree(p);
    EXPECT_EQ(two.gpu_count(), k * half) << k;  // 2 (k/2)^2
    EXPECT_EQ(nodes_named(two, "leaf."), k);
    EXPECT_EQ(nodes_named(two, "spine."), half);
    EXPECT_EQ(cables_between(two, "leaf.", "spine."), k * half);
  }
}

TEST(FatTree, HopCountsAndPathCountsPerLevel) {
  FatTreeParams p;
  p.k = 4;
  p.host = one_gpu_host();
  const Topology t = make_fat_tree(p);
  const Routing r(t);
  // Hosts 0,1 share leaf 0; hosts 0..3 share pod 0; host 4 is in pod 1.
  const NodeId h0 = t.gpu_node(0);
  EXPECT_EQ(r.hop_count(h0, t.gpu_node(1)), 4u);  // gpu nic leaf nic gpu
  EXPECT_EQ(r.path_count(h0, t.gpu_node(1)), 1u);
  EXPECT_EQ(r.hop_count(h0, t.gpu_node(2)), 6u);  // via one of k/2 aggs
  EXPECT_EQ(r.path_count(h0, t.gpu_node(2)), 2u);
  EXPECT_EQ(r.hop_count(h0, t.gpu_node(4)), 8u);  // via (k/2)^2 spines
  EXPECT_EQ(r.path_count(h0, t.gpu_node(4)), 4u);
  // One destination group per leaf.
  EXPECT_EQ(r.group_count(), 8u);
}

TEST(FatTree, EcmpSpreadsTenThousandFlowsEvenlyOverTheSpines) {
  FatTreeParams p;
  p.k = 4;
  p.host = one_gpu_host();
  const Topology t = make_fat_tree(p);
  const Routing r(t, 7);
  std::map<std::string, int> per_spine;
  for (std::uint64_t flow = 0; flow < 10'000; ++flow) {
    // Pod 0 to pod 3, varying source and destination too.
    const auto path = route_of(r, t.gpu_node(flow % 4), t.gpu_node(12 + (flow / 4) % 4), flow);
    ASSERT_EQ(path.size(), 8u);
    ++per_spine[visited(t, path)[4]];
  }
  ASSERT_EQ(per_spine.size(), 4u);
  for (const auto& [spine, flows] : per_spine) {
    EXPECT_NEAR(flows, 2500, 125) << spine;  // within 5% of uniform
  }
}

TEST(Clos, ByRadixAndOversubscription) {
  ClosParams p;  // 8 GPUs and NICs per host
  p.radix = 16;
  p.oversubscription = 3;  // 12 NIC ports, 4 uplinks per leaf -> 1 host per leaf
  p.hosts = 20;
  p.tiers = 3;
  const ClosShape s = clos_shape(p);
  EXPECT_EQ(s.hosts_per_leaf, 1u);
  EXPECT_EQ(s.leaves, 20u);
  EXPECT_EQ(s.leaves_per_pod, 8u);
  EXPECT_EQ(s.pods(), 3u);
  EXPECT_EQ(s.aggs_per_pod, 4u);
  EXPECT_EQ(s.spines, 4u * 8u);
  const Topology t = make_clos(p);
  EXPECT_EQ(nodes_named(t, "agg."), 12u);
  EXPECT_EQ(cables_between(t, "leaf.", "agg."), 20u * 4u);
  EXPECT_EQ(cables_between(t, "agg.", "spine."), 12u * 8u);
  EXPECT_EQ(t.node(id(t, "spine.0")).tier, 2);
  EXPECT_EQ(t.node(id(t, "spine.0")).ports, 16);
  EXPECT_NO_THROW(t.validate());
}

TEST(Clos, TheIssueExampleHas32768Gpus) {
  ClosParams p;
  p.hosts = 4096;
  const ClosShape s = clos_shape(p);  // radix 64, non-blocking
  EXPECT_EQ(s.hosts_per_leaf, 4u);
  EXPECT_EQ(s.leaves, 1024u);
  EXPECT_EQ(s.pods(), 32u);
  EXPECT_EQ(s.aggs(), 1024u);
  EXPECT_EQ(s.spines, 1024u);
}

TEST(ClosRatio, MetaAndArcadiaRatios) {
  ClosRatioParams meta;
  meta.hosts = 4096;
  meta.host = one_gpu_host();
  meta.hosts_per_leaf = 1;
  meta.switch_ratio = "32:8:1";
  meta.leaves_per_pod = 32;
  const ClosShape s = clos_shape(meta);
  EXPECT_EQ(s.leaves, 4096u);
  EXPECT_EQ(s.aggs(), 1024u);
  EXPECT_EQ(s.spines, 128u);
  EXPECT_EQ(s.aggs_per_pod, 8u);

  const Topology arcadia = make_clos_ratio({});  // 160 hosts, 16 per leaf, 10:5:1
  EXPECT_EQ(nodes_named(arcadia, "leaf."), 10u);
  EXPECT_EQ(nodes_named(arcadia, "agg."), 5u);
  EXPECT_EQ(nodes_named(arcadia, "spine."), 1u);
  EXPECT_EQ(cables_between(arcadia, "leaf.", "agg."), 50u);
  EXPECT_EQ(cables_between(arcadia, "agg.", "spine."), 5u);
  EXPECT_NO_THROW(arcadia.validate());

  ClosRatioParams two;
  two.switch_ratio = "5:2";
  two.hosts = 80;
  const Topology t = make_clos_ratio(two);
  EXPECT_EQ(nodes_named(t, "leaf."), 5u);
  EXPECT_EQ(nodes_named(t, "spine."), 2u);
  EXPECT_EQ(t.node(id(t, "spine.1")).tier, 1);
}

TEST(Clos, RejectsShapesThatCannotBeBuilt) {
  FatTreeParams f;
  f.k = 7;
  EXPECT_THAT(user_error_of([&] { make_fat_tree(f); }),
              HasSubstr("fat-tree blueprint: k = 7: expected an even switch radix"));
  f.k = 12;  // k/2 = 6 ports, 8 NICs per host
  EXPECT_THAT(user_error_of([&] { make_fat_tree(f); }),
              HasSubstr("k/2 = 6 leaf ports must be a multiple of the NICs per host"));
  f = {};
  f.tiers = 4;
  EXPECT_THAT(user_error_of([&] { make_fat_tree(f); }),
              HasSubstr("tiers = 4: expected a count from 2 to 3"));

  ClosParams c;
  c.radix = 64;
  c.oversubscription = 2;
  EXPECT_THAT(user_error_of([&] { make_clos(c); }),
              HasSubstr("clos blueprint: radix = 64 with oversubscription = 2: the radix must "
                        "split into 2:1 downlinks:uplinks, i.e. be a multiple of 3"));
  c = {};
  c.tiers = 2;
  c.hosts = 300;
  EXPECT_THAT(user_error_of([&] { make_clos(c); }),
              HasSubstr("hosts = 300 need 75 leaves, but two tiers of radix-64 switches hold at "
                        "most 64 leaves (256 hosts)"));
  c = {};
  c.radix = 8;
  c.hosts = 100;
  EXPECT_THAT(user_error_of([&] { make_clos(c); }),
              HasSubstr("radix = 8 with oversubscription = 1 leaves 4 NIC ports per leaf, fewer "
                        "than the 8 NICs of one host"));
  c = {};
  c.radix = 16;
  c.hosts = 200;
  EXPECT_THAT(user_error_of([&] { make_clos(c); }),
              HasSubstr("hosts = 200 need 25 pods, but three tiers of radix-16 switches hold at "
                        "most 16 pods"));
  c = {};
  c.links.fabric_bandwidth = Bandwidth{};
  EXPECT_THAT(user_error_of([&] { make_clos(c); }),
              HasSubstr("fabric_bandwidth = 0bps: expected a bandwidth above zero"));

  ClosRatioParams q;
  q.switch_ratio = "32:8:1";  // 10 leaves
  EXPECT_THAT(user_error_of([&] { make_clos_ratio(q); }),
              HasSubstr("clos-ratio blueprint: switch_ratio = '32:8:1' needs the leaf count to "
                        "be a multiple of 32, but hosts = 160 with hosts_per_leaf = 16 give 10 "
                        "leaves"));
  q.switch_ratio = "10:x:1";
  EXPECT_THAT(user_error_of([&] { make_clos_ratio(q); }),
              HasSubstr("switch_ratio = '10:x:1': expected leaf:agg:spine"));
  q.switch_ratio = "10";
  EXPECT_THAT(user_error_of([&] { make_clos_ratio(q); }),
              HasSubstr("switch_ratio = '10': expected leaf:agg:spine or leaf:spine"));
  q.switch_ratio = "10:5:1";
  q.leaves_per_pod = 3;
  EXPECT_THAT(user_error_of([&] { make_clos_ratio(q); }),
              HasSubstr("leaves_per_pod = 3: expected a divisor of the 10 leaves"));
}

TEST(Clos, PortCountsAreChecked) {
  ClosParams p;
  p.radix = 8;
  p.host.gpus_per_host = 4;
  p.hosts = 8;
  Topology t = make_clos(p);
  EXPECT_NO_THROW(t.validate());
  // One more cable on a full leaf exceeds its 8 ports.
  const NodeId leaf = id(t, "leaf.0");
  ASSERT_EQ(t.out_links(leaf).size(), 8u);
  t.add_duplex_link(leaf, id(t, "leaf.1"), Bandwidth::gbps(400), Time::ns(1));
  EXPECT_THAT(user_error_of([&] { t.validate(); }),
              HasSubstr("switch 'leaf.0' has 9 cables but only 8 ports"));
}

}  // namespace
}  // namespace loom::topology
