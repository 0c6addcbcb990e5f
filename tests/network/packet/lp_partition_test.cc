// LP partition by propagation delay (Arcadia §6.4) and its lookahead.
#include "loom/network/packet/parallel/lp_partition.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loom/core/error.h"
#include "loom/topology/rail_fabrics.h"

namespace loom::network::packet::parallel {
namespace {

using topology::NodeId;
using topology::Topology;

// `source` with every cable at a spine (tier-1 switch) given `spine_delay` and every other
// fabric cable `rack_delay`: racks whose cables are short, spines in another room.
Topology with_room_delays(const Topology& source, Time rack_delay, Time spine_delay) {
  Topology t;
  for (NodeId n = 0; n < source.node_count(); ++n) {
    const topology::Node& node = source.node(n);
    t.add_node(node.kind, node.name, node.host, node.tier, node.forwarding_latency);
  }
  for (topology::LinkId l = 0; l < source.link_count(); l += 2) {
    const topology::Link& link = source.link(l);
    const topology::Node& a = source.node(link.src);
    const topology::Node& b = source.node(link.dst);
    const bool fabric = a.kind == topology::NodeKind::kSwitch || b.kind == topology::NodeKind::kSwitch;
    const bool spine = (a.kind == topology::NodeKind::kSwitch && a.tier == 1) ||
                       (b.kind == topology::NodeKind::kSwitch && b.tier == 1);
    t.add_duplex_link(link.src, link.dst, link.bandwidth, spine ? spine_delay : fabric ? rack_delay : link.latency);
  }
  for (std::uint32_t r = 0; r < source.gpu_count(); ++r) t.attach_nic(r, source.nic_of_rank(r));
  return t;
}

Topology rail_fabric() {
  topology::SegmentFabricParams p;
  p.hosts = 8;
  p.host.gpus_per_host = 4;
  p.hosts_per_segment = 4;  // two racks of 4 hosts, each with 4 rail ToRs
  p.spines = 4;
  return with_room_delays(topology::make_segment_fabric(topology::SegmentLayout::kRailOptimized, p), Time::ns(100),
                          Time::us(2));
}

TEST(LpPartition, ThresholdGroupsEachRackWithItsRailTorsAndLeavesSpinesAlone) {
  const Topology t = rail_fabric();
  const LpPartition p = partition_by_delay(t, Time::us(1));
  // Rack 0 (hosts 0-3, leaf.0-3), rack 1 (hosts 4-7, leaf.4-7), then each of 4 spines.
  ASSERT_EQ(p.lp_count, 6u);
  for (NodeId n = 0; n < t.node_count(); ++n) {
    const topology::Node& node = t.node(n);
    const std::string& name = node.name;
    if (node.kind == topology::NodeKind::kSwitch && node.tier == 1) {
      EXPECT_EQ(p.members()[p.lp_of_node[n]], std::vector<NodeId>{n}) << name;
    } else if (node.kind == topology::NodeKind::kSwitch) {
      const std::uint32_t leaf = static_cast<std::uint32_t>(std::stoul(name.substr(name.find('.') + 1)));
      EXPECT_EQ(p.lp_of_node[n], leaf / 4) << name;
    } else {
      EXPECT_EQ(p.lp_of_node[n], node.host / 4) << name;
    }
  }
  EXPECT_EQ(p.lookahead, Time::us(2));
  EXPECT_EQ(p.cross_cables, 8u * 4u);  // every ToR to every spine
  EXPECT_EQ(p.rule, "delay < 1us");
}

// Two groups of the six LPs (two racks of 4 hosts and their ToRs, four spines), by node count:
// a rack and two spines each, so the groups hold as many nodes; the lookahead stays the spine
// cables' 2 us. More groups than LPs leave the LPs as they were.
TEST(LpPartition, GroupsMergeLpsByNodeCount) {
  const Topology t = rail_fabric();
  const LpPartition lps = partition_by_delay(t, Time::us(1));
  const LpPartition two = group_lps(t, lps, 2);
  ASSERT_EQ(two.lp_count, 2u);
  const std::vector<std::vector<NodeId>> members = two.members();
  EXPECT_EQ(members[0].size(), members[1].size());
  for (NodeId n = 0; n < t.node_count(); ++n) {
    for (NodeId m = 0; m < t.node_count(); ++m) {
      if (lps.lp_of_node[n] == lps.lp_of_node[m]) {
        EXPECT_EQ(two.lp_of_node[n], two.lp_of_node[m]) << n << " " << m;
      }
    }
  }
  EXPECT_EQ(two.lookahead, Time::us(2));
  EXPECT_EQ(two.rule, "delay < 1us, LPs in 2 groups");
  EXPECT_EQ(group_lps(t, lps, 10).lp_of_node, lps.lp_of_node);
  EXPECT_EQ(partition_for(t, Time::us(1), false, 2).lp_of_node, two.lp_of_node);
}

TEST(LpPartition, LookaheadIsTheSmallestDelayBetweenLps) {
  const Topology t = rail_fabric();
  // At the NIC cables' 100 ns (below NVLink's 150 ns and PCIe's 250 ns) every node is alone and
  // the NIC cables set the lookahead.
  const LpPartition nodes = partition_by_delay(t, Time::ns(100));
  EXPECT_EQ(nodes.lp_count, t.node_count());
  EXPECT_EQ(nodes.lookahead, Time::ns(100));
  // Between NVLink and PCIe: a host's GPUs and NVSwitch are one LP, each NIC with its ToR (and
  // through the ToR with its rail's other NICs in the rack) another; PCIe's 250 ns is the lookahead.
  const LpPartition rails = partition_by_delay(t, Time::ns(200));
  EXPECT_EQ(rails.lp_count, 8u + 8u + 4u);  // hosts' GPUs, rails of each rack, spines
  EXPECT_EQ(rails.lookahead, Time::ns(250));
  // Above every delay: one LP, nothing to wait for.
  const LpPartition one = partition_by_delay(t, Time::us(3));
  EXPECT_EQ(one.lp_count, 1u);
  EXPECT_EQ(one.lookahead, Time::max());
  EXPECT_EQ(one.cross_cables, 0u);
  // ζ = 0: every node alone; the smallest cable delay of all (NVLink, PCIe or NIC) is the lookahead.
  const LpPartition each = partition_by_delay(t, Time::zero());
  EXPECT_EQ(each.lp_count, t.node_count());
  Time smallest = Time::max();
  for (topology::LinkId l = 0; l < t.link_count(); ++l) smallest = std::min(smallest, t.link(l).latency);
  EXPECT_EQ(each.lookahead, smallest);
}

TEST(LpPartition, ExplicitPartitionsAreRenumberedByTheirLowestNode) {
  Topology t;
  const NodeId g0 = t.add_node(topology::NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId g1 = t.add_node(topology::NodeKind::kGpu, "host.1.gpu.0", 1);
  const NodeId s = t.add_node(topology::NodeKind::kSwitch, "switch.0");
  t.add_duplex_link(g0, s, Bandwidth::gbps(100), Time::ns(300));
  t.add_duplex_link(g1, s, Bandwidth::gbps(100), Time::ns(700));
  const std::vector<std::uint32_t> groups = {7, 3, 7};
  const LpPartition p = partition_explicitly(t, groups);
  EXPECT_EQ(p.lp_of_node, (std::vector<LpId>{0, 1, 0}));
  EXPECT_EQ(p.lookahead, Time::ns(700));
  EXPECT_EQ(p.cross_cables, 1u);
  EXPECT_THROW(partition_explicitly(t, std::vector<std::uint32_t>{0, 1}), UserError);
}

// HPCC-style: every fabric cable 1 us, each host's GPU and NIC joined by a zero-delay cable.
// Two ToRs of two hosts each, both cabled to two aggregation switches. ζ = 1 ps makes 8 LPs
// (4 hosts, 2 ToRs, 2 aggregation switches); racks join each host to its ToR, and leave the
// ToRs (two neighbours each) and the aggregation switches alone: 4 LPs, the same lookahead.
TEST(LpPartition, RacksJoinEachHostToItsTor) {
  Topology t;
  const Bandwidth rate = Bandwidth::gbps(100);
  std::vector<NodeId> nics;
  for (std::uint32_t h = 0; h < 4; ++h) {
    const NodeId gpu = t.add_node(topology::NodeKind::kGpu, "host." + std::to_string(h) + ".gpu.0", h);
    const NodeId nic = t.add_node(topology::NodeKind::kNic, "host." + std::to_string(h) + ".nic.0", h);
    t.add_duplex_link(gpu, nic, rate, Time::zero());
    nics.push_back(nic);
  }
  const NodeId tor0 = t.add_node(topology::NodeKind::kSwitch, "tor.0");
  const NodeId tor1 = t.add_node(topology::NodeKind::kSwitch, "tor.1");
  const NodeId agg0 = t.add_node(topology::NodeKind::kSwitch, "agg.0");
  const NodeId agg1 = t.add_node(topology::NodeKind::kSwitch, "agg.1");
  for (std::uint32_t h = 0; h < 4; ++h) t.add_duplex_link(nics[h], h < 2 ? tor0 : tor1, rate, Time::us(1));
  for (const NodeId tor : {tor0, tor1}) {
    for (const NodeId agg : {agg0, agg1}) t.add_duplex_link(tor, agg, rate, Time::us(1));
  }
  const LpPartition nodes = partition_by_delay(t, Time::ps(1));
  EXPECT_EQ(nodes.lp_count, 8u);
  const LpPartition racks = partition_for(t, Time::ps(1), true);
  EXPECT_EQ(racks.lp_count, 4u);
  // Hosts 0 and 1 (nodes 0-3) with tor.0, hosts 2 and 3 (nodes 4-7) with tor.1.
  EXPECT_EQ(racks.lp_of_node, (std::vector<LpId>{0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 2, 3}));
  EXPECT_EQ(racks.lookahead, Time::us(1));
  EXPECT_EQ(racks.cross_cables, 4u);
  EXPECT_EQ(racks.rule, "delay < 1ps, racks joined");
  // Joined once: the result's racks, each now cabled to the two aggregation switches, stay.
  EXPECT_EQ(join_racks(t, racks).lp_of_node, racks.lp_of_node);
  // Two LPs that are each other's only neighbour become one.
  Topology pair;
  const NodeId a = pair.add_node(topology::NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId b = pair.add_node(topology::NodeKind::kSwitch, "switch.0");
  pair.add_duplex_link(a, b, rate, Time::us(1));
  EXPECT_EQ(partition_for(pair, Time::ps(1), true).lp_count, 1u);
}

TEST(LpPartition, AZeroDelayCableBetweenLpsIsRefusedByName) {
  Topology t;
  const NodeId a = t.add_node(topology::NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId b = t.add_node(topology::NodeKind::kSwitch, "switch.0");
  t.add_duplex_link(a, b, Bandwidth::gbps(100), Time::zero());
  try {
    partition_by_delay(t, Time::zero());
    FAIL() << "a zero-delay cable between LPs was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("the cable host.0.gpu.0 <-> switch.0 has zero delay but joins two LPs"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(partition_explicitly(t, std::vector<std::uint32_t>{0, 1}), UserError);
  // Any threshold above zero keeps that cable inside an LP.
  EXPECT_EQ(partition_by_delay(t, Time::ps(1)).lp_count, 1u);
  EXPECT_THROW(partition_by_delay(t, Time::ps(-1)), UserError);
}

}  // namespace
}  // namespace loom::network::packet::parallel
