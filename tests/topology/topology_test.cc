#include "loom/topology/topology.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "user_error.h"

namespace loom::topology {
namespace {

using namespace time_literals;
using ::testing::HasSubstr;
using loom::testing::user_error_of;

constexpr Bandwidth k100G = Bandwidth::gbps(100);

TEST(Topology, NamesNodeKinds) {
  EXPECT_EQ(to_string(NodeKind::kGpu), "gpu");
  EXPECT_EQ(to_string(NodeKind::kNic), "nic");
  EXPECT_EQ(to_string(NodeKind::kScaleUpSwitch), "scale_up_switch");
  EXPECT_EQ(to_string(NodeKind::kSwitch), "switch");
  EXPECT_FALSE(forwards(NodeKind::kGpu));
  EXPECT_TRUE(forwards(NodeKind::kNic));
  EXPECT_TRUE(forwards(NodeKind::kScaleUpSwitch));
  EXPECT_TRUE(forwards(NodeKind::kSwitch));
}

TEST(Topology, StoresNodesInOrderWithTheirFields) {
  Topology t;
  EXPECT_EQ(t.add_node(NodeKind::kGpu, "host.0.gpu.0", 0), 0u);
  EXPECT_EQ(t.add_node(NodeKind::kNic, "host.0.nic.0", 0, 0, 300_ns), 1u);
  EXPECT_EQ(t.add_node(NodeKind::kSwitch, "spine.0", kNone, 1, 250_ns), 2u);
  EXPECT_EQ(t.node_count(), 3u);
  const Node& spine = t.node(2);
  EXPECT_EQ(spine.kind, NodeKind::kSwitch);
  EXPECT_EQ(spine.host, kNone);
  EXPECT_EQ(spine.tier, 1);
  EXPECT_EQ(spine.forwarding_latency, 250_ns);
  EXPECT_EQ(spine.name, "spine.0");
  EXPECT_EQ(t.node(1).forwarding_latency, 300_ns);
  EXPECT_EQ(t.find("host.0.nic.0"), std::optional<NodeId>(1));
  EXPECT_EQ(t.find("spine.0"), std::optional<NodeId>(2));
  EXPECT_EQ(t.find("spine.1"), std::nullopt);
  EXPECT_EQ(t.find(""), std::nullopt);
}

TEST(Topology, DuplexLinkIsTwoDirectedLinksThatKnowEachOther) {
  Topology t;
  const NodeId a = t.add_node(NodeKind::kSwitch, "a");
  const NodeId b = t.add_node(NodeKind::kSwitch, "b");
  const LinkId ab = t.add_duplex_link(a, b, k100G, 7_ns);
  EXPECT_EQ(t.link_count(), 2u);
  const Link& forward = t.link(ab);
  const Link& back = t.link(forward.reverse);
  EXPECT_EQ(forward.src, a);
  EXPECT_EQ(forward.dst, b);
  EXPECT_EQ(back.src, b);
  EXPECT_EQ(back.dst, a);
  EXPECT_EQ(back.reverse, ab);
  EXPECT_EQ(back.bandwidth, k100G);
  EXPECT_EQ(back.latency, 7_ns);
  ASSERT_EQ(t.out_links(a).size(), 1u);
  EXPECT_EQ(t.out_links(a)[0], ab);
  ASSERT_EQ(t.out_links(b).size(), 1u);
  EXPECT_EQ(t.out_links(b)[0], forward.reverse);
}

TEST(Topology, OutLinksKeepInsertionOrderWhileNodesGrowInterleaved) {
  // Two hubs gain links alternately, so their adjacency slices move many times.
  Topology t;
  const NodeId hub0 = t.add_node(NodeKind::kSwitch, "hub.0");
  const NodeId hub1 = t.add_node(NodeKind::kSwitch, "hub.1");
  std::vector<LinkId> expected0, expected1;
  for (int i = 0; i < 100; ++i) {
    const NodeId leaf = t.add_node(NodeKind::kSwitch, fmt::format("leaf.{}", i));
    expected0.push_back(t.add_duplex_link(hub0, leaf, k100G, 1_ns));
    expected1.push_back(t.add_duplex_link(hub1, leaf, k100G, 1_ns));
    ASSERT_EQ(t.out_links(leaf).size(), 2u);
  }
  const auto out0 = t.out_links(hub0);
  const auto out1 = t.out_links(hub1);
  EXPECT_EQ(std::vector<LinkId>(out0.begin(), out0.end()), expected0);
  EXPECT_EQ(std::vector<LinkId>(out1.begin(), out1.end()), expected1);
  for (LinkId l : out1) EXPECT_EQ(t.link(l).src, hub1);
}

TEST(Topology, RankQueries) {
  Topology t;
  const NodeId sw = t.add_node(NodeKind::kSwitch, "switch.0");
  std::vector<NodeId> gpus;
  for (std::uint32_t host = 0; host < 3; ++host) {
    for (std::uint32_t i = 0; i < 2; ++i) {
      gpus.push_back(t.add_node(NodeKind::kGpu, fmt::format("host.{}.gpu.{}", host, i), host));
    }
  }
  EXPECT_EQ(t.gpu_count(), 6u);
  EXPECT_EQ(t.host_count(), 3u);
  for (std::uint32_t rank = 0; rank < 6; ++rank) {
    EXPECT_EQ(t.gpu_node(rank), gpus[rank]);
    EXPECT_EQ(t.rank_of_node(gpus[rank]), rank);
    EXPECT_EQ(t.host_of_rank(rank), rank / 2);
    EXPECT_EQ(t.nic_of_rank(rank), kNone);
  }
  EXPECT_EQ(t.rank_of_node(sw), kNone);
  const NodeId nic = t.add_node(NodeKind::kNic, "host.2.nic.1", 2);
  t.attach_nic(5, nic);
  EXPECT_EQ(t.nic_of_rank(5), nic);
  EXPECT_EQ(t.nic_of_rank(4), kNone);
}

TEST(Topology, FindsEveryNameAmongManyAndAfterACopy) {
  Topology t;
  for (std::uint32_t i = 0; i < 5000; ++i) t.add_node(NodeKind::kSwitch, fmt::format("sw.{}", i));
  const Topology copy = t;
  for (std::uint32_t i = 0; i < 5000; i += 7) {
    EXPECT_EQ(t.find(fmt::format("sw.{}", i)), std::optional<NodeId>(i));
    EXPECT_EQ(copy.find(fmt::format("sw.{}", i)), std::optional<NodeId>(i));
  }
  EXPECT_EQ(copy.find("sw.5000"), std::nullopt);
}

TEST(Topology, RejectsBadNodes) {
  Topology t;
  t.add_node(NodeKind::kSwitch, "leaf.0");
  EXPECT_THAT(user_error_of([&] { t.add_node(NodeKind::kSwitch, ""); }), HasSubstr("empty name"));
  EXPECT_THAT(user_error_of([&] { t.add_node(NodeKind::kSwitch, "leaf.0"); }),
              HasSubstr("duplicate node name 'leaf.0' (already used by node 0)"));
  EXPECT_THAT(user_error_of([&] { t.add_node(NodeKind::kGpu, "gpu.x"); }),
              HasSubstr("node 'gpu.x' is a gpu but has no host index"));
  EXPECT_THAT(user_error_of([&] { t.add_node(NodeKind::kNic, "nic.x"); }),
              HasSubstr("node 'nic.x' is a nic but has no host index"));
  EXPECT_THAT(user_error_of([&] { t.add_node(NodeKind::kSwitch, "s", kNone, 0, Time::ns(-1)); }),
              HasSubstr("node 's' has negative forwarding latency -1ns"));
  EXPECT_THAT(user_error_of([&] { t.add_node(NodeKind::kGpu, "g", 0, 0, 5_ns); }),
              HasSubstr("GPU 'g' has forwarding latency 5ns; GPUs never forward"));
  EXPECT_EQ(t.node_count(), 1u);
}

TEST(Topology, RejectsBadLinks) {
  Topology t;
  const NodeId a = t.add_node(NodeKind::kSwitch, "a");
  const NodeId b = t.add_node(NodeKind::kSwitch, "b");
  EXPECT_THAT(user_error_of([&] { t.add_duplex_link(a, a, k100G, 1_ns); }),
              HasSubstr("link from 'a' to itself"));
  EXPECT_THAT(user_error_of([&] { t.add_duplex_link(a, b, Bandwidth{}, 1_ns); }),
              HasSubstr("link 'a' <-> 'b' has zero bandwidth; expected > 0"));
  EXPECT_THAT(user_error_of([&] { t.add_duplex_link(a, b, k100G, Time::ns(-2)); }),
              HasSubstr("link 'a' <-> 'b' has negative latency -2ns"));
  EXPECT_EQ(t.link_count(), 0u);
}

TEST(Topology, RejectsBadNicAttachments) {
  Topology t;
  t.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId own = t.add_node(NodeKind::kNic, "host.0.nic.0", 0);
  const NodeId other = t.add_node(NodeKind::kNic, "host.1.nic.0", 1);
  const NodeId sw = t.add_node(NodeKind::kSwitch, "switch.0");
  EXPECT_THAT(user_error_of([&] { t.attach_nic(1, own); }),
              HasSubstr("cannot attach a NIC to rank 1: there are 1 GPUs (ranks 0..0)"));
  EXPECT_THAT(user_error_of([&] { t.attach_nic(0, sw); }),
              HasSubstr("cannot attach 'switch.0' as the NIC of 'host.0.gpu.0': it is a switch"));
  EXPECT_THAT(
      user_error_of([&] { t.attach_nic(0, other); }),
      HasSubstr("cannot attach NIC 'host.1.nic.0' (host 1) to GPU 'host.0.gpu.0' (host 0)"));
  EXPECT_EQ(t.nic_of_rank(0), kNone);
}

TEST(TopologyValidate, RequiresAGpu) {
  Topology t;
  t.add_node(NodeKind::kSwitch, "switch.0");
  EXPECT_THAT(user_error_of([&] { t.validate(); }), HasSubstr("the topology has no GPU"));
}

TEST(TopologyValidate, RequiresHostIndicesWithoutGaps) {
  Topology t;
  t.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
  t.add_node(NodeKind::kNic, "host.1.nic.0", 1);
  EXPECT_THAT(user_error_of([&] { t.validate(); }),
              HasSubstr("host 1 has no GPU; host indices must run from 0 to 1"));
  Topology far;
  far.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
  far.add_node(NodeKind::kGpu, "host.4000000000.gpu.0", 4'000'000'000u);
  EXPECT_THAT(user_error_of([&] { far.validate(); }),
              HasSubstr("host 1 has no GPU; host indices must run from 0 to 4000000000"));
}

// Two hosts of two GPUs on a scale-up switch each, NICs on one switch. Every GPU but rank
// `unattached` gets its NIC; `fabric` chooses whether the NICs are cabled to the switch.
Topology two_hosts(std::uint32_t unattached, bool fabric) {
  Topology t;
  const NodeId sw = t.add_node(NodeKind::kSwitch, "switch.0");
  for (std::uint32_t host = 0; host < 2; ++host) {
    const NodeId nvs =
        t.add_node(NodeKind::kScaleUpSwitch, fmt::format("host.{}.nvswitch.0", host), host);
    for (std::uint32_t i = 0; i < 2; ++i) {
      const NodeId gpu = t.add_node(NodeKind::kGpu, fmt::format("host.{}.gpu.{}", host, i), host);
      const NodeId nic = t.add_node(NodeKind::kNic, fmt::format("host.{}.nic.{}", host, i), host);
      t.add_duplex_link(gpu, nvs, k100G, 1_ns);
      t.add_duplex_link(gpu, nic, k100G, 1_ns);
      if (fabric) t.add_duplex_link(nic, sw, k100G, 1_ns);
      if (t.rank_of_node(gpu) != unattached) t.attach_nic(t.rank_of_node(gpu), nic);
    }
  }
  return t;
}

TEST(TopologyValidate, RequiresNicsWithSeveralHosts) {
  EXPECT_THAT(user_error_of([] { two_hosts(3, true).validate(); }),
              HasSubstr("GPU 'host.1.gpu.1' (rank 3) has no NIC attached; with 2 hosts"));
}

TEST(TopologyValidate, RejectsGpusThatCannotReachEachOther) {
  EXPECT_THAT(user_error_of([] { two_hosts(kNone, false).validate(); }),
              HasSubstr("GPUs 'host.0.gpu.0' and 'host.1.gpu.0' cannot reach each other"));
}

TEST(TopologyValidate, GpusDoNotForward) {
  // a - b - c by direct GPU links: a and c touch only b, which does not forward.
  Topology t;
  const NodeId a = t.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId b = t.add_node(NodeKind::kGpu, "host.0.gpu.1", 0);
  const NodeId c = t.add_node(NodeKind::kGpu, "host.0.gpu.2", 0);
  t.add_duplex_link(a, b, k100G, 1_ns);
  t.add_duplex_link(b, c, k100G, 1_ns);
  EXPECT_THAT(user_error_of([&] { t.validate(); }),
              HasSubstr("GPUs 'host.0.gpu.0' and 'host.0.gpu.2' cannot reach each other"));
  // Closing the triangle makes every pair adjacent.
  t.add_duplex_link(a, c, k100G, 1_ns);
  EXPECT_NO_THROW(t.validate());
}

TEST(TopologyValidate, AcceptsConnectedTopologies) {
  EXPECT_NO_THROW(two_hosts(kNone, true).validate());
  Topology single;
  single.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
  EXPECT_NO_THROW(single.validate());
}

}  // namespace
}  // namespace loom::topology
