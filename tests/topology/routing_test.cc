#include "loom/topology/routing.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "loom/topology/blueprints.h"
#include "user_error.h"

namespace loom::topology {
namespace {

using namespace time_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using loom::testing::user_error_of;

// 4 hosts x 4 GPUs, 2 hosts per leaf (2 leaves), 3 spines, `links_per_pair` cables per pair.
LeafSpineParams small_fabric(std::uint32_t links_per_pair) {
  LeafSpineParams p;
  p.hosts = 4;
  p.host.gpus_per_host = 4;
  p.hosts_per_leaf = 2;
  p.spines = 3;
  p.links_per_pair = links_per_pair;
  return p;
}

NodeId id(const Topology& t, std::string_view name) {
  const auto found = t.find(name);
  EXPECT_TRUE(found.has_value()) << name;
  return found.value_or(kNone);
}

// The names of the nodes a path visits, src first.
std::vector<std::string> visited(const Topology& t, const std::vector<LinkId>& path) {
  std::vector<std::string> names;
  if (path.empty()) return names;
  names.push_back(t.node(t.link(path.front()).src).name);
  for (LinkId l : path) names.push_back(t.node(t.link(l).dst).name);
  return names;
}

std::vector<LinkId> route_of(const Routing& r, NodeId src, NodeId dst, std::uint64_t hash) {
  std::vector<LinkId> path;
  r.route(src, dst, hash, path);
  return path;
}

class LeafSpineRouting : public ::testing::Test {
 protected:
  Topology topology_ = make_leaf_spine(small_fabric(1));
  Routing routing_{topology_};
};

TEST_F(LeafSpineRouting, IntraHostGoesOverTheScaleUpSwitch) {
  const auto path =
      route_of(routing_, id(topology_, "host.1.gpu.0"), id(topology_, "host.1.gpu.3"), 0);
  EXPECT_THAT(visited(topology_, path),
              ElementsAre("host.1.gpu.0", "host.1.nvswitch.0", "host.1.gpu.3"));
  EXPECT_EQ(routing_.hop_count(id(topology_, "host.1.gpu.0"), id(topology_, "host.1.gpu.3")), 2u);
  EXPECT_EQ(routing_.path_count(id(topology_, "host.1.gpu.0"), id(topology_, "host.1.gpu.3")), 1u);
}

TEST_F(LeafSpineRouting, SameLeafGoesNicLeafNic) {
  const NodeId src = id(topology_, "host.0.gpu.1");
  const NodeId dst = id(topology_, "host.1.gpu.2");
  EXPECT_THAT(
      visited(topology_, route_of(routing_, src, dst, 42)),
      ElementsAre("host.0.gpu.1", "host.0.nic.1", "leaf.0", "host.1.nic.2", "host.1.gpu.2"));
  EXPECT_EQ(routing_.hop_count(src, dst), 4u);
  EXPECT_EQ(routing_.path_count(src, dst), 1u);
}

TEST_F(LeafSpineRouting, CrossLeafGoesThroughASpine) {
  const NodeId src = id(topology_, "host.0.gpu.0");
  const NodeId dst = id(topology_, "host.3.gpu.1");
  const auto names = visited(topology_, route_of(routing_, src, dst, 7));
  ASSERT_EQ(names.size(), 7u);
  EXPECT_EQ(names[0], "host.0.gpu.0");
  EXPECT_EQ(names[1], "host.0.nic.0");
  EXPECT_EQ(names[2], "leaf.0");
  EXPECT_THAT(names[3], HasSubstr("spine."));
  EXPECT_EQ(names[4], "leaf.1");
  EXPECT_EQ(names[5], "host.3.nic.1");
  EXPECT_EQ(names[6], "host.3.gpu.1");
  EXPECT_EQ(routing_.hop_count(src, dst), 6u);
  EXPECT_EQ(routing_.path_count(src, dst), 3u);  // one per spine
}

TEST_F(LeafSpineRouting, FlowHashesSpreadEvenlyOverSpines) {
  const NodeId src = id(topology_, "host.1.gpu.0");
  const NodeId dst = id(topology_, "host.2.gpu.3");
  std::map<std::string, int> uses;
  for (std::uint64_t h = 0; h < 64; ++h)
    ++uses[visited(topology_, route_of(routing_, src, dst, h))[3]];
  EXPECT_EQ(uses.size(), 3u) << "every spine carries some of 64 flows";
  uses.clear();
  for (std::uint64_t h = 0; h < 3000; ++h)
    ++uses[visited(topology_, route_of(routing_, src, dst, h))[3]];
  for (const auto& [spine, count] : uses) {
    EXPECT_GT(count, 850) << spine;
    EXPECT_LT(count, 1150) << spine;
  }
}

TEST_F(LeafSpineRouting, SameHashSamePath) {
  const NodeId src = id(topology_, "host.0.gpu.2");
  const NodeId dst = id(topology_, "host.2.gpu.0");
  for (std::uint64_t h = 0; h < 32; ++h) {
    const auto first = route_of(routing_, src, dst, h * 0x1234567ull);
    EXPECT_EQ(route_of(routing_, src, dst, h * 0x1234567ull), first);
    // A second Routing over the same topology agrees too.
    EXPECT_EQ(route_of(Routing(topology_), src, dst, h * 0x1234567ull), first);
  }
}

TEST_F(LeafSpineRouting, RouteAppendsToOut) {
  std::vector<LinkId> out = {12345};
  routing_.route(id(topology_, "host.0.gpu.0"), id(topology_, "host.0.gpu.1"), 0, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], 12345u);
}

TEST_F(LeafSpineRouting, SourceEqualsDestination) {
  const NodeId g = id(topology_, "host.2.gpu.2");
  EXPECT_TRUE(route_of(routing_, g, g, 5).empty());
  EXPECT_EQ(routing_.hop_count(g, g), 0u);
  EXPECT_EQ(routing_.path_count(g, g), 1u);
}

TEST_F(LeafSpineRouting, EveryGpuPairGetsAValidShortestPath) {
  const std::uint32_t n = topology_.gpu_count();
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = 0; b < n; ++b) {
      if (a == b) continue;
      const NodeId src = topology_.gpu_node(a);
      const NodeId dst = topology_.gpu_node(b);
      const std::uint32_t ha = topology_.host_of_rank(a);
      const std::uint32_t hb = topology_.host_of_rank(b);
      const std::uint32_t expected = ha == hb ? 2 : ha / 2 == hb / 2 ? 4 : 6;
      ASSERT_EQ(routing_.hop_count(src, dst), expected) << a << "->" << b;
      for (std::uint64_t h = 0; h < 4; ++h) {
        const auto path = route_of(routing_, src, dst, h);
        ASSERT_EQ(path.size(), expected);
        EXPECT_EQ(topology_.link(path.front()).src, src);
        EXPECT_EQ(topology_.link(path.back()).dst, dst);
        for (std::size_t i = 1; i < path.size(); ++i) {
          const NodeId via = topology_.link(path[i]).src;
          EXPECT_EQ(via, topology_.link(path[i - 1]).dst) << "path is contiguous";
          EXPECT_NE(topology_.node(via).kind, NodeKind::kGpu) << "GPUs never forward";
        }
      }
    }
  }
}

TEST(Routing, ParallelLinksMultiplyPathsAndHashesReachThemAll) {
  const Topology t = make_leaf_spine(small_fabric(2));
  const Routing r(t);
  const NodeId src = id(t, "host.0.gpu.0");
  const NodeId dst = id(t, "host.2.gpu.0");
  // 3 spines x 2 cables up x 2 cables down.
  EXPECT_EQ(r.path_count(src, dst), 12u);
  std::set<std::vector<LinkId>> distinct;
  for (std::uint64_t h = 0; h < 512; ++h) distinct.insert(route_of(r, src, dst, h));
  EXPECT_EQ(distinct.size(), 12u);
}

TEST(Routing, SingleSwitchInterHostPath) {
  SingleSwitchParams p;
  p.hosts = 3;
  p.host.gpus_per_host = 2;
  const Topology t = make_single_switch(p);
  const Routing r(t);
  EXPECT_THAT(
      visited(t, route_of(r, id(t, "host.0.gpu.1"), id(t, "host.2.gpu.0"), 1)),
      ElementsAre("host.0.gpu.1", "host.0.nic.1", "switch.0", "host.2.nic.0", "host.2.gpu.0"));
  // Every GPU enters through switch.0 at 2 hops: one group, one fabric switch, one byte.
  EXPECT_EQ(r.group_count(), 1u);
  EXPECT_EQ(r.table_bytes(), 1u);
}

TEST(Routing, RoutesToNodesThatAreNotGpus) {
  const Topology t = make_leaf_spine(small_fabric(1));
  const Routing r(t);
  const NodeId src = id(t, "host.0.gpu.0");
  EXPECT_THAT(visited(t, route_of(r, src, id(t, "spine.2"), 0)),
              ElementsAre("host.0.gpu.0", "host.0.nic.0", "leaf.0", "spine.2"));
  EXPECT_EQ(r.hop_count(src, id(t, "host.0.nvswitch.0")), 1u);
  EXPECT_EQ(r.path_count(id(t, "leaf.0"), id(t, "leaf.1")), 3u);
  EXPECT_EQ(r.hop_count(id(t, "spine.0"), src), 3u);
}

TEST(Routing, AvoidsShortcutsThroughGpus) {
  // a - b - c joined directly by GPU links (2 hops via b), and by a 4-hop switch chain.
  Topology t;
  const NodeId a = t.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId b = t.add_node(NodeKind::kGpu, "host.0.gpu.1", 0);
  const NodeId c = t.add_node(NodeKind::kGpu, "host.0.gpu.2", 0);
  const NodeId s1 = t.add_node(NodeKind::kSwitch, "s.1");
  const NodeId s2 = t.add_node(NodeKind::kSwitch, "s.2");
  const NodeId s3 = t.add_node(NodeKind::kSwitch, "s.3");
  const Bandwidth bw = Bandwidth::gbps(100);
  t.add_duplex_link(a, b, bw, 1_ns);
  t.add_duplex_link(b, c, bw, 1_ns);
  t.add_duplex_link(a, s1, bw, 1_ns);
  t.add_duplex_link(s1, s2, bw, 1_ns);
  t.add_duplex_link(s2, s3, bw, 1_ns);
  t.add_duplex_link(s3, c, bw, 1_ns);
  const Routing r(t);
  EXPECT_EQ(r.hop_count(a, c), 4u);
  EXPECT_EQ(r.hop_count(a, b), 1u);
  EXPECT_THAT(visited(t, route_of(r, a, c, 0)),
              ElementsAre("host.0.gpu.0", "s.1", "s.2", "s.3", "host.0.gpu.2"));
}

TEST(Routing, UnreachableDestinationIsAUserError) {
  Topology t;
  const NodeId a = t.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId b = t.add_node(NodeKind::kGpu, "host.1.gpu.0", 1);
  const NodeId sw = t.add_node(NodeKind::kSwitch, "switch.0");
  t.add_duplex_link(a, sw, Bandwidth::gbps(100), 1_ns);
  const Routing r(t);
  EXPECT_EQ(r.hop_count(a, b), kNone);
  EXPECT_EQ(r.path_count(a, b), 0u);
  std::vector<LinkId> out;
  EXPECT_THAT(user_error_of([&] { r.route(a, b, 0, out); }),
              HasSubstr("no path from 'host.0.gpu.0' to 'host.1.gpu.0'"));
  EXPECT_THAT(user_error_of([&] { r.route(b, sw, 0, out); }),
              HasSubstr("no path from 'host.1.gpu.0' to 'switch.0'"));
  EXPECT_TRUE(out.empty());
}

TEST(Routing, RejectsPathsLongerThan254Hops) {
  Topology t;
  NodeId previous = t.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
  for (int i = 0; i < 255; ++i) {
    const NodeId next = t.add_node(NodeKind::kSwitch, fmt::format("s.{}", i));
    t.add_duplex_link(previous, next, Bandwidth::gbps(1), 1_ns);
    previous = next;
  }
  EXPECT_THAT(user_error_of([&] { Routing r(t); }),
              HasSubstr("a shortest path from 's.254' to 'host.0.gpu.0' has more than 254 hops"));
}

// The cable between two named nodes (its first direction).
LinkId cable(const Topology& t, std::string_view a, std::string_view b) {
  for (LinkId l : t.out_links(id(t, a))) {
    if (t.link(l).dst == id(t, b)) return l;
  }
  ADD_FAILURE() << "no cable " << a << " - " << b;
  return 0;
}

// 32 leaves of one single-GPU host each, 2 spines, 2 cables per pair: a spine has 64 links and
// the destination group one attachment leaf, so spines find their next hops through the
// neighbour index rather than a scan of their links. Every (up cable, down cable) pair must
// still be reachable, paths must end at the destination's leaf, and a cable that is down must
// never be taken.
TEST(Routing, WideSpinesReachEveryCableTowardsTheDestinationLeaf) {
  LeafSpineParams p;
  p.hosts = 32;
  p.host.gpus_per_host = 1;
  p.hosts_per_leaf = 1;
  p.spines = 2;
  p.links_per_pair = 2;
  const Topology t = make_leaf_spine(p);
  Routing r(t);
  const NodeId src = id(t, "host.3.gpu.0");
  const NodeId dst = id(t, "host.29.gpu.0");
  // 2 spines x 2 cables up x 2 cables down.
  EXPECT_EQ(r.path_count(src, dst), 8u);
  std::set<std::vector<LinkId>> distinct;
  for (std::uint64_t h = 0; h < 1024; ++h) {
    const std::vector<LinkId> path = route_of(r, src, dst, h);
    const std::vector<std::string> names = visited(t, path);
    ASSERT_EQ(names.size(), 7u);
    EXPECT_EQ(names[2], "leaf.3");
    EXPECT_EQ(names[4], "leaf.29");
    distinct.insert(path);
  }
  EXPECT_EQ(distinct.size(), 8u);
  Routing::PairRoutes pair = r.pair_routes(src, dst);
  for (std::uint64_t h = 0; h < 64; ++h) {
    std::vector<LinkId> from_pair;
    pair.route(h, from_pair);
    EXPECT_EQ(from_pair, route_of(r, src, dst, h));
  }

  const LinkId down = cable(t, "spine.0", "leaf.29");
  r.set_link_up(down, false);
  EXPECT_EQ(r.path_count(src, dst), 6u);  // spine.0 keeps one cable down to leaf.29
  distinct.clear();
  for (std::uint64_t h = 0; h < 1024; ++h) {
    const std::vector<LinkId> path = route_of(r, src, dst, h);
    EXPECT_EQ(std::count(path.begin(), path.end(), down), 0);
    distinct.insert(path);
  }
  EXPECT_EQ(distinct.size(), 6u);
}

TEST(Routing, RowsAreSearchedForTheGroupsRoutesNeedUntilALinkChanges) {
  LeafSpineParams p = small_fabric(1);
  p.hosts = 16;  // 8 leaves, 3 spines
  const Topology t = make_leaf_spine(p);
  Routing r(t);
  const std::size_t row = r.fabric_switch_count();
  ASSERT_EQ(row, 11u);
  EXPECT_EQ(r.table_bytes(), 0u);
  std::vector<LinkId> out;
  r.route(id(t, "host.0.gpu.0"), id(t, "host.5.gpu.1"), 7, out);
  ASSERT_EQ(r.group_count(), 8u);  // one per leaf
  EXPECT_EQ(r.table_bytes(), row) << "only leaf.2's group is searched";
  r.route(id(t, "host.1.gpu.0"), id(t, "host.4.gpu.3"), 7, out);  // leaf.2 again
  EXPECT_EQ(r.table_bytes(), row);
  // A link change searches every row first, so what it reports does not depend on the queries.
  const RouteUpdate down = r.set_link_up(cable(t, "leaf.1", "spine.1"), false);
  EXPECT_EQ(down.groups_recomputed, 1u);
  EXPECT_EQ(r.table_bytes(), r.group_count() * row);
  // The same route as on a Routing whose rows were all searched up front.
  Routing eager(t);
  eager.set_link_up(cable(t, "leaf.1", "spine.1"), false);
  for (std::uint64_t h = 0; h < 32; ++h) {
    EXPECT_EQ(route_of(r, id(t, "host.2.gpu.0"), id(t, "host.9.gpu.2"), h),
              route_of(eager, id(t, "host.2.gpu.0"), id(t, "host.9.gpu.2"), h));
  }
}

TEST(RoutingFailures, ASpineLinkDownReroutesOverTheOthers) {
  const Topology t = make_leaf_spine(small_fabric(1));
  Routing r(t);
  const NodeId src = id(t, "host.0.gpu.0");
  const NodeId dst = id(t, "host.3.gpu.1");
  const RouteUpdate down = r.set_link_up(cable(t, "leaf.1", "spine.1"), false);
  EXPECT_TRUE(down.unreachable.empty());
  EXPECT_EQ(down.groups_recomputed, 1u) << "only spine.1's way to leaf.1 changes";
  EXPECT_FALSE(r.link_up(cable(t, "spine.1", "leaf.1")));
  EXPECT_EQ(r.path_count(src, dst), 2u);
  for (std::uint64_t h = 0; h < 64; ++h) {
    EXPECT_NE(visited(t, route_of(r, src, dst, h))[3], "spine.1");
  }
  // Same-leaf traffic of leaf.1 is unaffected; traffic towards leaf.1 from spine.1 detours.
  EXPECT_EQ(r.hop_count(id(t, "spine.1"), dst), 5u);
  const RouteUpdate up = r.set_link_up(cable(t, "leaf.1", "spine.1"), true);
  EXPECT_EQ(up.groups_recomputed, 1u) << "spine.1 gets its short way back to leaf.1";
  EXPECT_EQ(r.hop_count(id(t, "spine.1"), dst), 3u);
  EXPECT_EQ(r.path_count(src, dst), 3u);
}

TEST(RoutingFailures, ANicLinkDownMakesItsGpuUnreachableAndIsReported) {
  const Topology t = make_leaf_spine(small_fabric(1));
  Routing r(t);
  const RouteUpdate down = r.set_link_up(cable(t, "host.2.nic.3", "leaf.1"), false);
  // host.2.gpu.3 is rank 11; its own host (ranks 8..10) still reaches it, the 12 others not.
  std::vector<UnreachableRank> expected;
  for (std::uint32_t rank = 0; rank < 16; ++rank) {
    if (rank == 11) expected.push_back({11, 12});
    if (rank < 8 || rank > 11) expected.push_back({rank, 1});
  }
  EXPECT_EQ(down.unreachable, expected);
  EXPECT_EQ(down.hosts_regrouped, 1u);
  const NodeId lost = id(t, "host.2.gpu.3");
  EXPECT_EQ(r.hop_count(id(t, "host.0.gpu.0"), lost), kNone);
  EXPECT_EQ(r.path_count(id(t, "host.0.gpu.0"), lost), 0u);
  std::vector<LinkId> out;
  EXPECT_THAT(user_error_of([&] { r.route(id(t, "host.0.gpu.0"), lost, 0, out); }),
              HasSubstr("no path from 'host.0.gpu.0' to 'host.2.gpu.3'"));
  EXPECT_THAT(user_error_of([&] { r.route(lost, id(t, "host.3.gpu.0"), 0, out); }),
              HasSubstr("no path from 'host.2.gpu.3' to 'host.3.gpu.0'"));
  // Its own host still reaches it over the scale-up switch.
  EXPECT_EQ(r.hop_count(id(t, "host.2.gpu.0"), lost), 2u);
  const RouteUpdate up = r.set_link_up(cable(t, "host.2.nic.3", "leaf.1"), true);
  EXPECT_TRUE(up.unreachable.empty());
  EXPECT_EQ(r.hop_count(id(t, "host.0.gpu.0"), lost), 6u);
  EXPECT_EQ(r.group_of_rank(11), r.group_of_rank(8)) << "back in its leaf's group";
}

TEST(RoutingFailures, AllUplinksOfALeafDownCutsItOff) {
  const Topology t = make_leaf_spine(small_fabric(1));
  Routing r(t);
  RouteUpdate last;
  for (const char* spine : {"spine.0", "spine.1", "spine.2"}) {
    last = r.set_link_up(cable(t, "leaf.0", spine), false);
  }
  // Hosts 0 and 1 (ranks 0..7) are cut off from hosts 2 and 3 (ranks 8..15): all unreachable.
  ASSERT_EQ(last.unreachable.size(), 16u);
  EXPECT_EQ(last.unreachable[0], (UnreachableRank{0, 8}));
  EXPECT_EQ(r.hop_count(id(t, "host.0.gpu.0"), id(t, "host.1.gpu.0")), 4u);
  EXPECT_EQ(r.hop_count(id(t, "host.0.gpu.0"), id(t, "host.2.gpu.0")), kNone);
  r.set_link_up(cable(t, "leaf.0", "spine.2"), true);
  EXPECT_TRUE(r.unreachable_ranks().empty());
  EXPECT_EQ(r.path_count(id(t, "host.0.gpu.0"), id(t, "host.2.gpu.0")), 1u);
}

TEST(RoutingFailures, MatchesAFreshRoutingAfterRandomFlaps) {
  const Topology t = make_leaf_spine(small_fabric(2));
  Routing r(t);
  std::vector<bool> up(t.link_count() / 2, true);
  std::uint64_t state = 12345;
  for (int step = 0; step < 40; ++step) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const LinkId cable_id = static_cast<LinkId>((state >> 33) % up.size());
    up[cable_id] = !up[cable_id];
    r.set_link_up(2 * cable_id, up[cable_id]);
  }
  // A Routing built from scratch with the same cables down agrees on every hop count.
  Routing fresh(t);
  for (LinkId c = 0; c < up.size(); ++c) {
    if (!up[c]) fresh.set_link_up(2 * c, false);
  }
  for (std::uint32_t a = 0; a < t.gpu_count(); ++a) {
    for (NodeId v = 0; v < t.node_count(); ++v) {
      ASSERT_EQ(r.hop_count(v, t.gpu_node(a)), fresh.hop_count(v, t.gpu_node(a))) << v << "->" << a;
    }
  }
  EXPECT_EQ(r.unreachable_ranks(), fresh.unreachable_ranks());
}

TEST(Routing, SeedsArePerNodeAndDeterministic) {
  const Topology t = make_leaf_spine(small_fabric(1));
  const Routing a(t, 1);
  const Routing b(t, 1);
  const Routing c(t, 2);
  EXPECT_EQ(a.node_seed(3), b.node_seed(3));
  EXPECT_NE(a.node_seed(3), a.node_seed(4));
  EXPECT_NE(a.node_seed(3), c.node_seed(3));
  int differ = 0;
  for (std::uint64_t h = 0; h < 64; ++h) {
    const auto pa = route_of(a, id(t, "host.0.gpu.0"), id(t, "host.3.gpu.0"), h);
    EXPECT_EQ(pa, route_of(b, id(t, "host.0.gpu.0"), id(t, "host.3.gpu.0"), h));
    differ += pa != route_of(c, id(t, "host.0.gpu.0"), id(t, "host.3.gpu.0"), h) ? 1 : 0;
  }
  EXPECT_GT(differ, 0) << "another routing seed picks other paths for some flows";
}

TEST(Routing, NoTransitThroughOtherHosts) {
  // Two switches joined only through a NIC of host 1 (dual-homed), plus GPUs of hosts 0, 2.
  Topology t;
  const Bandwidth bw = Bandwidth::gbps(100);
  const NodeId g0 = t.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId n0 = t.add_node(NodeKind::kNic, "host.0.nic.0", 0);
  const NodeId g1 = t.add_node(NodeKind::kGpu, "host.1.gpu.0", 1);
  const NodeId n1 = t.add_node(NodeKind::kNic, "host.1.nic.0", 1);
  const NodeId g2 = t.add_node(NodeKind::kGpu, "host.2.gpu.0", 2);
  const NodeId n2 = t.add_node(NodeKind::kNic, "host.2.nic.0", 2);
  const NodeId s0 = t.add_node(NodeKind::kSwitch, "s.0");
  const NodeId s1 = t.add_node(NodeKind::kSwitch, "s.1");
  for (auto [g, n] : {std::pair{g0, n0}, std::pair{g1, n1}, std::pair{g2, n2}}) {
    t.add_duplex_link(g, n, bw, 1_ns);
    t.attach_nic(t.rank_of_node(g), n);
  }
  t.add_duplex_link(n0, s0, bw, 1_ns);
  t.add_duplex_link(n1, s0, bw, 1_ns);
  t.add_duplex_link(n1, s1, bw, 1_ns);
  t.add_duplex_link(n2, s1, bw, 1_ns);
  const Routing r(t);
  EXPECT_EQ(r.hop_count(g0, g1), 4u);
  EXPECT_EQ(r.hop_count(g1, g2), 4u);
  EXPECT_EQ(r.hop_count(g0, g2), kNone) << "host 1's NIC does not carry host 0's traffic";
  EXPECT_EQ(r.unreachable_ranks(), (std::vector<UnreachableRank>{{0, 1}, {2, 1}}));
}

// PairRoutes walks the same paths as route(): every ordered pair of nodes that has a path, on
// a fabric with parallel cables (12 paths between hosts on different leaves), many hashes,
// including destinations that are not GPUs and a source that is a switch.
TEST(PairRoutes, EveryFlowTakesRoutesPath) {
  const Topology t = make_leaf_spine(small_fabric(2));
  const Routing r(t, 7);
  std::size_t pairs = 0;
  for (NodeId src = 0; src < t.node_count(); ++src) {
    for (NodeId dst = 0; dst < t.node_count(); ++dst) {
      if (src == dst || r.hop_count(src, dst) == kNone) continue;
      Routing::PairRoutes pair = r.pair_routes(src, dst);
      EXPECT_EQ(pair.src(), src);
      EXPECT_EQ(pair.dst(), dst);
      ++pairs;
      for (std::uint64_t h = 0; h < 40; ++h) {
        const std::uint64_t hash = h * 0x9e3779b97f4a7c15ull;
        std::vector<LinkId> path{kNone};  // appends
        pair.route(hash, path);
        ASSERT_EQ(path, [&] {
          std::vector<LinkId> expected{kNone};
          r.route(src, dst, hash, expected);
          return expected;
        }()) << t.node(src).name << " -> " << t.node(dst).name << " hash " << hash;
      }
    }
  }
  EXPECT_GT(pairs, 1000u);
}

// The tree grows only where flows went: one flow over the 12 paths expands 1 state per hop,
// and once every path has been taken the memory stops growing.
TEST(PairRoutes, GrowsOnlyWithPathsTaken) {
  const Topology t = make_leaf_spine(small_fabric(2));
  const Routing r(t);
  Routing::PairRoutes pair = r.pair_routes(id(t, "host.0.gpu.0"), id(t, "host.2.gpu.0"));
  std::vector<LinkId> path;
  for (std::uint64_t h = 0; h < 2000; ++h) pair.route(h, path);
  const std::size_t settled = pair.memory_bytes();
  for (std::uint64_t h = 2000; h < 4000; ++h) pair.route(h, path);
  EXPECT_EQ(pair.memory_bytes(), settled);
}

TEST(PairRoutes, UnreachablePairIsAUserError) {
  Topology t;
  const NodeId a = t.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId b = t.add_node(NodeKind::kGpu, "host.1.gpu.0", 1);
  const NodeId sw = t.add_node(NodeKind::kSwitch, "switch.0");
  t.add_duplex_link(a, sw, Bandwidth::gbps(100), 1_ns);
  const Routing r(t);
  EXPECT_THAT(user_error_of([&] { r.pair_routes(a, b); }),
              HasSubstr("no path from 'host.0.gpu.0' to 'host.1.gpu.0'"));
}

// A link state change advances version(): pair routes made before it are stale, and fresh
// ones follow the new tables.
TEST(PairRoutes, LinkChangesAdvanceTheVersion) {
  const Topology t = make_leaf_spine(small_fabric(1));
  Routing r(t);
  const NodeId src = id(t, "host.0.gpu.0");
  const NodeId dst = id(t, "host.2.gpu.0");
  const Routing::PairRoutes before = r.pair_routes(src, dst);
  EXPECT_EQ(before.version(), r.version());
  r.set_link_up(cable(t, "leaf.0", "spine.2"), false);
  EXPECT_NE(before.version(), r.version());
  const std::uint64_t down = r.version();
  r.set_link_up(cable(t, "leaf.0", "spine.2"), false);  // no change
  EXPECT_EQ(r.version(), down);
  Routing::PairRoutes after = r.pair_routes(src, dst);
  for (std::uint64_t h = 0; h < 64; ++h) {
    std::vector<LinkId> path;
    after.route(h, path);
    EXPECT_EQ(path, route_of(r, src, dst, h));
    EXPECT_THAT(visited(t, path), ::testing::Not(::testing::Contains("spine.2")));
  }
}

}  // namespace
}  // namespace loom::topology
