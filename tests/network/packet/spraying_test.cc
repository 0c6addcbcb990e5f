#include <gtest/gtest.h>

#include <vector>

#include "loom/network/packet/packet_backend.h"

namespace loom::network::packet {
namespace {

// Two leaves joined by two spines with 100 Gb/s cables; one GPU on each leaf with a 200 Gb/s
// cable. One 4 MB transfer at line rate (no congestion control, no window): on one ECMP path
// it is held to 100 Gb/s; sprayed, its packets alternate between the spines and it runs at
// 200 Gb/s, so it takes half as long (1 us cables: the latency part is the same), each spine
// carries half of the packets, and selective repeat absorbs the reordering.
struct LeafSpine {
  LeafSpine() {
    const auto leaf0 = topo.add_node(topology::NodeKind::kSwitch, "leaf.0");
    const auto leaf1 = topo.add_node(topology::NodeKind::kSwitch, "leaf.1");
    for (int s = 0; s < 2; ++s) {
      const auto spine = topo.add_node(topology::NodeKind::kSwitch, "spine." + std::to_string(s), topology::kNone, 1);
      uplinks.push_back(topo.add_duplex_link(leaf0, spine, Bandwidth::gbps(100), Time::us(1)));
      topo.add_duplex_link(spine, leaf1, Bandwidth::gbps(100), Time::us(1));
    }
    a = topo.add_node(topology::NodeKind::kGpu, "host.0.gpu.0", 0);
    b = topo.add_node(topology::NodeKind::kGpu, "host.1.gpu.0", 1);
    topo.add_duplex_link(a, leaf0, Bandwidth::gbps(200), Time::us(1));
    topo.add_duplex_link(b, leaf1, Bandwidth::gbps(200), Time::us(1));
    routing = std::make_unique<topology::Routing>(topo);
  }
  topology::Topology topo;
  topology::NodeId a = 0, b = 0;
  std::vector<topology::LinkId> uplinks;
  std::unique_ptr<topology::Routing> routing;
};

struct Done final : CompletionHandler {
  void on_transfer_complete(std::uint64_t) override { at = simulator->now(); }
  Simulator* simulator = nullptr;
  Time at = Time::max();
};

struct Outcome {
  Time done;
  std::uint64_t spine_packets[2] = {0, 0};
  FabricCounters counters;
};

Outcome run(bool spraying) {
  LeafSpine t;
  Simulator simulator;
  PacketParams p;
  p.cc.kind = CcKind::kNone;
  p.nic.window = false;
  p.nic.selective_repeat = true;
  p.packet_spraying = spraying;
  PacketBackend backend(simulator, t.topo, *t.routing, p);
  Done done;
  done.simulator = &simulator;
  backend.start({t.a, t.b, 4'000'000, 7}, done, 0);
  simulator.run();
  Outcome o;
  o.done = done.at;
  for (int s = 0; s < 2; ++s) o.spine_packets[s] = backend.fabric().tx_bytes(t.uplinks[s]) / 1048;
  o.counters = backend.fabric().counters();
  return o;
}

TEST(PacketSpraying, UsesEveryEqualCostPathPerPacket) {
  const Outcome single = run(false);
  const Outcome sprayed = run(true);
  ASSERT_NE(single.done, Time::max());
  ASSERT_NE(sprayed.done, Time::max());
  // one path: 4,000 packets of 1,048 bytes at 100 Gb/s = 335.36 us plus ~4 us of latency
  EXPECT_NEAR(single.done.seconds(), 335.36e-6 + 4e-6, 1e-6);
  EXPECT_EQ(single.spine_packets[0] + single.spine_packets[1], 4000u);
  EXPECT_TRUE(single.spine_packets[0] == 0 || single.spine_packets[1] == 0);
  // sprayed: 200 Gb/s end to end, 167.68 us plus ~4 us
  EXPECT_NEAR(sprayed.done.seconds(), 167.68e-6 + 4e-6, 1e-6);
  EXPECT_EQ(sprayed.spine_packets[0], 2000u);
  EXPECT_EQ(sprayed.spine_packets[1], 2000u);
  EXPECT_EQ(sprayed.counters.delivered_bytes, 4'000'000u);
  EXPECT_EQ(sprayed.counters.retransmitted_bytes, 0u);
}

}  // namespace
}  // namespace loom::network::packet
