#include "loom/network/packet/scale_up_flow.h"

#include <gtest/gtest.h>

#include <vector>

#include "loom/network/packet/packet_backend.h"

namespace loom::network::packet {
namespace {

// Host 0: GPUs 0 and 1 on an NVSwitch (900 Gb/s, 100 ns) and each on a 100 Gb/s fabric switch
// cable; host 1: GPU 2 on the fabric switch.
struct TwoHosts {
  TwoHosts() {
    const auto nvswitch = topo.add_node(topology::NodeKind::kScaleUpSwitch, "host.0.nvswitch", 0);
    const auto fabric = topo.add_node(topology::NodeKind::kSwitch, "switch.0");
    for (std::uint32_t g = 0; g < 3; ++g) {
      const std::uint32_t host = g < 2 ? 0 : 1;
      gpus.push_back(topo.add_node(topology::NodeKind::kGpu, "host." + std::to_string(host) + ".gpu." + std::to_string(g), host));
      if (host == 0) topo.add_duplex_link(gpus.back(), nvswitch, Bandwidth::gbps(900), Time::ns(100));
      topo.add_duplex_link(gpus.back(), fabric, Bandwidth::gbps(100), Time::us(1));
    }
    routing = std::make_unique<topology::Routing>(topo);
  }
  topology::Topology topo;
  std::vector<topology::NodeId> gpus;
  std::unique_ptr<topology::Routing> routing;
};

struct Recorder final : CompletionHandler {
  void on_transfer_complete(std::uint64_t cookie) override { done[cookie] = simulator->now(); }
  Simulator* simulator = nullptr;
  Time done[2];
};

TEST(ScaleUpFlow, HandlesOnlyTransfersInsideAHost) {
  TwoHosts t;
  Simulator simulator;
  const ScaleUpFlow split(simulator, t.topo, *t.routing);
  EXPECT_TRUE(split.handles({t.gpus[0], t.gpus[1], 1000, 0}));
  EXPECT_TRUE(split.handles({t.gpus[1], t.gpus[0], 1000, 0}));
  EXPECT_FALSE(split.handles({t.gpus[0], t.gpus[2], 1000, 0}));
  EXPECT_FALSE(split.handles({t.gpus[2], t.gpus[1], 1000, 0}));
}

// With scale_up_flow, 9 MB from GPU 0 to GPU 1 take the flow backend's time over the NVSwitch
// (2 x 100 ns + 9 MB x 8 / 900 Gb/s = 80.2 us) and send no packet, while 1 MB to the other
// host runs on packets at the same time and finishes at its packet-level ideal. Without it both
// are packets and the intra-host one is slower (per-packet headers, store and forward).
TEST(ScaleUpFlow, IntraHostTransfersRunAtFlowLevel) {
  for (const bool split : {true, false}) {
    TwoHosts t;
    Simulator simulator;
    PacketParams p;
    p.scale_up_flow = split;
    PacketBackend backend(simulator, t.topo, *t.routing, p);
    Recorder recorder;
    recorder.simulator = &simulator;
    const TransferRequest inside{t.gpus[0], t.gpus[1], 9'000'000, 0};
    const TransferRequest across{t.gpus[0], t.gpus[2], 1'000'000, 0};
    backend.start(inside, recorder, 0);
    backend.start(across, recorder, 1);
    EXPECT_EQ(backend.active_transfers(), 2u);
    simulator.run();
    const std::uint64_t across_packets = 1000;
    if (split) {
      EXPECT_EQ(recorder.done[0], Time::ns(200) + Time::ps(80'000'000));
      EXPECT_EQ(backend.ideal_time(inside), recorder.done[0]);
      EXPECT_EQ(backend.fabric().counters().data_packets, across_packets);
    } else {
      EXPECT_GT(recorder.done[0], Time::ns(200) + Time::ps(80'000'000));
      EXPECT_EQ(backend.fabric().counters().data_packets, across_packets + 9000);
    }
    EXPECT_NEAR(recorder.done[1].seconds(), backend.ideal_time(across).seconds(), 1e-3 * recorder.done[1].seconds());
    EXPECT_EQ(backend.active_transfers(), 0u);
  }
}

}  // namespace
}  // namespace loom::network::packet
