#include "loom/topology/blueprints.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "user_error.h"

namespace loom::topology {
namespace {

using namespace time_literals;
using ::testing::HasSubstr;
using loom::testing::user_error_of;

// The directed link from node `a` to node `b` (by name); fails the test if there is none.
const Link& link_between(const Topology& t, std::string_view a, std::string_view b) {
  const NodeId from = t.find(a).value();
  const NodeId to = t.find(b).value();
  for (LinkId l : t.out_links(from)) {
    if (t.link(l).dst == to) return t.link(l);
  }
  ADD_FAILURE() << "no link " << a << " -> " << b;
  return t.link(0);
}

std::size_t degree(const Topology& t, std::string_view name) {
  return t.out_links(t.find(name).value()).size();
}

TEST(SingleSwitch, DefaultCountsNamesAndRanks) {
  const Topology t = make_single_switch({});
  // 4 hosts x (8 GPUs + 8 NICs + 1 NVSwitch) + 1 switch.
  EXPECT_EQ(t.node_count(), 69u);
  // Cables per host: 8 NVLink + 8 PCIe + 8 NIC-switch = 24; 96 cables, 192 directed links.
  EXPECT_EQ(t.link_count(), 192u);
  EXPECT_EQ(t.gpu_count(), 32u);
  EXPECT_EQ(t.host_count(), 4u);
  EXPECT_NO_THROW(t.validate());
  EXPECT_EQ(t.node(t.gpu_node(29)).name, "host.3.gpu.5");
  EXPECT_EQ(t.host_of_rank(29), 3u);
  EXPECT_EQ(t.node(t.nic_of_rank(29)).name, "host.3.nic.5");
  const Node& nvswitch = t.node(t.find("host.3.nvswitch.0").value());
  EXPECT_EQ(nvswitch.kind, NodeKind::kScaleUpSwitch);
  EXPECT_EQ(nvswitch.host, 3u);
  EXPECT_EQ(nvswitch.forwarding_latency, 100_ns);
  const Node& fabric = t.node(t.find("switch.0").value());
  EXPECT_EQ(fabric.kind, NodeKind::kSwitch);
  EXPECT_EQ(fabric.host, kNone);
  EXPECT_EQ(fabric.tier, 0);
  EXPECT_EQ(fabric.forwarding_latency, 300_ns);
  EXPECT_EQ(t.node(t.find("host.0.nic.7").value()).forwarding_latency, 300_ns);
  EXPECT_EQ(degree(t, "switch.0"), 32u);
  EXPECT_EQ(degree(t, "host.2.nvswitch.0"), 8u);
  EXPECT_EQ(degree(t, "host.2.gpu.4"), 2u);
}

TEST(SingleSwitch, LinkSpeedsAndLatencies) {
  const Topology t = make_single_switch({});
  const Link& nvlink = link_between(t, "host.1.gpu.3", "host.1.nvswitch.0");
  EXPECT_EQ(nvlink.bandwidth, Bandwidth::gbps(3600));
  EXPECT_EQ(nvlink.latency, 150_ns);
  const Link& pcie = link_between(t, "host.1.nic.3", "host.1.gpu.3");
  EXPECT_EQ(pcie.bandwidth, Bandwidth::gbps(512));
  EXPECT_EQ(pcie.latency, 250_ns);
  const Link& uplink = link_between(t, "host.1.nic.3", "switch.0");
  EXPECT_EQ(uplink.bandwidth, Bandwidth::gbps(400));
  EXPECT_EQ(uplink.latency, 500_ns);
}

TEST(SingleSwitch, OneGpuHostsHaveNoScaleUpSwitch) {
  SingleSwitchParams p;
  p.hosts = 3;
  p.host.gpus_per_host = 1;
  const Topology t = make_single_switch(p);
  EXPECT_EQ(t.node_count(), 7u);   // 3 x (GPU + NIC) + switch
  EXPECT_EQ(t.link_count(), 12u);  // 3 x (PCIe + uplink) cables
  EXPECT_EQ(t.find("host.0.nvswitch.0"), std::nullopt);
  EXPECT_NO_THROW(t.validate());
}

TEST(LeafSpine, DefaultCounts) {
  const Topology t = make_leaf_spine({});
  // 16 hosts x 17 + 4 leaves + 8 spines.
  EXPECT_EQ(t.node_count(), 284u);
  // 16 x 24 host cables + 4 x 8 x 4 leaf-spine cables = 512 cables.
  EXPECT_EQ(t.link_count(), 1024u);
  EXPECT_EQ(t.gpu_count(), 128u);
  EXPECT_EQ(t.host_count(), 16u);
  EXPECT_NO_THROW(t.validate());
  // A leaf: 4 hosts x 8 NICs down, 8 spines x 4 cables up.
  EXPECT_EQ(degree(t, "leaf.3"), 64u);
  EXPECT_EQ(degree(t, "spine.7"), 16u);
  const Node& leaf = t.node(t.find("leaf.3").value());
  const Node& spine = t.node(t.find("spine.7").value());
  EXPECT_EQ(leaf.tier, 0);
  EXPECT_EQ(spine.tier, 1);
  EXPECT_EQ(spine.host, kNone);
  EXPECT_EQ(spine.forwarding_latency, 300_ns);
  EXPECT_EQ(link_between(t, "leaf.1", "spine.5").bandwidth, Bandwidth::gbps(400));
  EXPECT_EQ(link_between(t, "host.7.nic.2", "leaf.1").latency, 500_ns);
  EXPECT_DOUBLE_EQ(oversubscription({}), 1.0);
}

TEST(LeafSpine, PartialLastLeaf) {
  LeafSpineParams p;
  p.hosts = 5;
  p.host.gpus_per_host = 2;
  p.hosts_per_leaf = 2;
  p.spines = 3;
  p.links_per_pair = 1;
  const Topology t = make_leaf_spine(p);
  EXPECT_EQ(leaf_count(p), 3u);
  // 5 x (2 GPUs + 2 NICs + 1 NVSwitch) + 3 leaves + 3 spines.
  EXPECT_EQ(t.node_count(), 31u);
  // 5 x 6 host cables + 3 x 3 leaf-spine cables = 39.
  EXPECT_EQ(t.link_count(), 78u);
  EXPECT_EQ(degree(t, "leaf.2"), 2u + 3u);
  EXPECT_EQ(degree(t, "leaf.1"), 4u + 3u);
  link_between(t, "host.4.nic.1", "leaf.2");
  link_between(t, "host.3.nic.0", "leaf.1");
  EXPECT_EQ(t.find("leaf.3"), std::nullopt);
  EXPECT_NO_THROW(t.validate());
}

TEST(LeafSpine, Oversubscription) {
  LeafSpineParams p;
  p.spines = 2;  // 12.8 Tbit/s down, 2 x 4 x 400 Gbit/s = 3.2 Tbit/s up
  EXPECT_DOUBLE_EQ(oversubscription(p), 4.0);
  p.spines = 8;
  p.spine_link_bandwidth = Bandwidth::gbps(800);
  EXPECT_DOUBLE_EQ(oversubscription(p), 0.5);
  p.spine_link_bandwidth = Bandwidth::gbps(400);
  p.host.nic_bandwidth = Bandwidth::gbps(200);
  p.links_per_pair = 1;  // 6.4 down, 3.2 up
  EXPECT_DOUBLE_EQ(oversubscription(p), 2.0);
}

TEST(Blueprints, RejectBadParametersNamingThem) {
  LeafSpineParams p;
  p.hosts = 0;
  EXPECT_THAT(user_error_of([&] { make_leaf_spine(p); }),
              HasSubstr("leaf-spine blueprint: hosts = 0: expected a count from 1 to 131072"));
  p = {};
  p.hosts = 200'000;
  EXPECT_THAT(user_error_of([&] { make_leaf_spine(p); }),
              HasSubstr("hosts = 200000: expected a count from 1 to 131072"));
  p = {};
  p.host.gpus_per_host = 0;
  EXPECT_THAT(user_error_of([&] { make_leaf_spine(p); }),
              HasSubstr("host.gpus_per_host = 0: expected a count from 1 to 1024"));
  p = {};
  p.host.nvlink_bandwidth = Bandwidth{};
  EXPECT_THAT(user_error_of([&] { make_leaf_spine(p); }),
              HasSubstr("host.nvlink_bandwidth = 0bps: expected a bandwidth above zero"));
  p = {};
  p.host.pcie_latency = Time::ns(-1);
  EXPECT_THAT(user_error_of([&] { make_leaf_spine(p); }),
              HasSubstr("host.pcie_latency = -1ns: expected a time of zero or more"));
  p = {};
  p.hosts_per_leaf = 0;
  EXPECT_THAT(user_error_of([&] { make_leaf_spine(p); }),
              HasSubstr("hosts_per_leaf = 0: expected a count from 1 to 65536"));
  p = {};
  p.spines = 0;
  EXPECT_THAT(user_error_of([&] { oversubscription(p); }),
              HasSubstr("leaf-spine blueprint: spines = 0: expected a count from 1 to 65536"));
  p = {};
  p.links_per_pair = 65;
  EXPECT_THAT(user_error_of([&] { make_leaf_spine(p); }),
              HasSubstr("links_per_pair = 65: expected a count from 1 to 64"));
  p = {};
  p.spine_link_bandwidth = Bandwidth{};
  EXPECT_THAT(user_error_of([&] { make_leaf_spine(p); }),
              HasSubstr("spine_link_bandwidth = 0bps: expected a bandwidth above zero"));
  p = {};
  p.hosts = 131072;
  p.hosts_per_leaf = 1;
  p.spines = 65536;
  EXPECT_THAT(user_error_of([&] { make_leaf_spine(p); }),
              HasSubstr("leaves x spines x links_per_pair = 131072 x 65536 x 4 ="));
  SingleSwitchParams s;
  s.hosts = 0;
  EXPECT_THAT(user_error_of([&] { make_single_switch(s); }),
              HasSubstr("single-switch blueprint: hosts = 0: expected a count from 1 to 131072"));
  s = {};
  s.switch_latency = Time::ns(-3);
  EXPECT_THAT(user_error_of([&] { make_single_switch(s); }),
              HasSubstr("single-switch blueprint: switch_latency = -3ns: expected a time of zero"));
}

}  // namespace
}  // namespace loom::topology
