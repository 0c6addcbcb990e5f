#include "loom/network/pxn_relay.h"

#include <gtest/gtest.h>

#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/analytical.h"
#include "loom/network/flow/flow_backend.h"
#include "loom/topology/rail_fabrics.h"
#include "loom/topology/routing.h"

namespace loom::network {
namespace {

using topology::kNone;

// Two hosts of 4 GPUs on a rail-optimised fabric: NIC i of every host on rail i's ToR, ToRs
// joined by 2 spines. GPU 4h + i is host h's GPU on rail i.
topology::Topology two_hosts() {
  topology::SegmentFabricParams p;
  p.hosts = 2;
  p.host.gpus_per_host = 4;
  p.hosts_per_segment = 2;
  p.spines = 2;
  return topology::make_segment_fabric(topology::SegmentLayout::kRailOptimized, p);
}

struct Recorder final : CompletionHandler {
  void on_transfer_complete(std::uint64_t cookie) override { done.emplace_back(cookie, simulator->now()); }
  Simulator* simulator = nullptr;
  std::vector<std::pair<std::uint64_t, Time>> done;
};

TEST(PxnRelay, RelaysOnlyCrossRailInterHostTransfers) {
  const auto topo = two_hosts();
  const topology::Routing routing(topo);
  Simulator simulator;
  AnalyticalBackend analytical(simulator, topo, routing);
  const PxnRelay pxn(topo, analytical);
  const auto gpu = [&](std::uint32_t rank) { return topo.gpu_node(rank); };
  EXPECT_EQ(pxn.relay_for(gpu(0), gpu(1)), kNone);  // same host: scale-up fabric
  EXPECT_EQ(pxn.relay_for(gpu(0), gpu(4)), kNone);  // same rail
  EXPECT_EQ(pxn.relay_for(gpu(0), gpu(5)), gpu(1)); // host 0's GPU on rail 1
  EXPECT_EQ(pxn.relay_for(gpu(7), gpu(2)), gpu(6)); // host 1's GPU on rail 2
}

TEST(PxnRelay, RelayedTransferTakesTheSlowerLegAndCompletesOnce) {
  const auto topo = two_hosts();
  const topology::Routing routing(topo);
  Simulator simulator;
  AnalyticalBackend analytical(simulator, topo, routing);
  PxnRelay pxn(topo, analytical);
  Recorder recorder;
  recorder.simulator = &simulator;
  const TransferRequest request{topo.gpu_node(0), topo.gpu_node(5), 8 << 20, 7};
  TransferRequest to_relay = request;
  to_relay.dst = topo.gpu_node(1);
  TransferRequest from_relay = request;
  from_relay.src = topo.gpu_node(1);
  const Time expected = std::max(analytical.ideal_time(to_relay), analytical.ideal_time(from_relay));
  EXPECT_EQ(pxn.ideal_time(request), expected);
  // The rail-aligned leg (PCIe + 400G NIC) is the slow one; NVLink is faster.
  EXPECT_EQ(expected, analytical.ideal_time(from_relay));
  pxn.start(request, recorder, 42);
  simulator.run();
  ASSERT_EQ(recorder.done.size(), 1u);
  EXPECT_EQ(recorder.done[0].first, 42u);
  EXPECT_EQ(recorder.done[0].second, expected);
  EXPECT_EQ(pxn.relayed(), 1u);
}

TEST(PxnRelay, CrossRailTrafficStaysOffTheSpines) {
  const auto topo = two_hosts();
  const topology::Routing routing(topo);
  for (const bool relay : {false, true}) {
    Simulator simulator;
    flow::FlowBackend flow(simulator, topo, routing, flow::FlowParams{});
    PxnRelay pxn(topo, flow);
    Backend& backend = relay ? static_cast<Backend&>(pxn) : flow;
    Recorder recorder;
    recorder.simulator = &simulator;
    // Every GPU of host 0 sends to the next rail's GPU of host 1, as a ring crossing hosts does.
    for (std::uint32_t i = 0; i < 4; ++i) {
      backend.start({topo.gpu_node(i), topo.gpu_node(4 + (i + 1) % 4), 1 << 20, i}, recorder, i);
    }
    simulator.run();
    EXPECT_EQ(recorder.done.size(), 4u);
    std::vector<double> carried;
    flow.carried_bytes(carried);
    double spine_bytes = 0;
    for (topology::LinkId l = 0; l < topo.link_count(); ++l) {
      const auto& link = topo.link(l);
      // ToR <-> spine cables are the only ones joining two fabric switches (no host).
      if (topo.node(link.src).host == kNone && topo.node(link.dst).host == kNone) spine_bytes += carried[l];
    }
    if (relay) {
      EXPECT_EQ(spine_bytes, 0.0);
      EXPECT_EQ(pxn.relayed(), 4u);
    } else {
      EXPECT_GE(spine_bytes, 2.0 * 4 * (1 << 20));  // up to and down from a spine
    }
  }
}

}  // namespace
}  // namespace loom::network
