// Stream traffic classes: the runtime puts each stream's transfers in its class
// (RuntimeOptions::stream_classes -> TransferRequest::traffic_class), and the packet backend's
// switches schedule the classes by strict priority.
#include <gtest/gtest.h>

#include "loom/network/packet/packet_backend.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"

namespace loom::system {
namespace {

using testing::DagBuilder;
using testing::StarFabric;

struct Ends {
  Time stream0;
  Time stream1;
};

// Ranks 0 and 1 each send S bytes to rank 2 at time zero, rank 0 on stream 0 and rank 1 on
// stream 1: the switch port to rank 2 is a 2:1 bottleneck. Line-rate senders (no congestion
// control), PFC on, strict priority between classes.
Ends incast_by_stream(std::vector<std::uint8_t> classes) {
  const StarFabric fabric(3);
  DagBuilder dag(3);
  const Bytes s = 2'000'000;
  const auto first = dag.transfer(0, 2, s, 0);
  const auto second = dag.transfer(1, 2, s, 1);
  network::packet::PacketParams params;
  params.cc.kind = network::packet::CcKind::kNone;
  Simulator simulator;
  network::packet::PacketBackend backend(simulator, fabric.topology, fabric.routing, params);
  RuntimeOptions options;
  options.stream_classes = std::move(classes);
  Runtime runtime(simulator, fabric.topology, dag.workload(), backend, options);
  const RunResult r = runtime.run();
  return {r.nodes[first].end, r.nodes[second].end};
}

TEST(StreamClasses, TheHigherPriorityStreamTakesTheBottleneckFirst) {
  // S / B = 40us at 400 Gb/s. In class 1 (above data_priority 3) stream 1 drains at line rate
  // and ends near S / B; stream 0 gets what is left and ends near 2 S / B (plus headers).
  const Time s_over_b = serialization_time(2'000'000, StarFabric::bottleneck());
  const Ends high1 = incast_by_stream({0, 1});
  EXPECT_LT(high1.stream1, s_over_b * 6 / 5) << high1.stream1;
  EXPECT_GT(high1.stream0, s_over_b * 19 / 10) << high1.stream0;
  EXPECT_LT(high1.stream0, s_over_b * 23 / 10) << high1.stream0;
  // Swapping the classes swaps the order.
  const Ends high0 = incast_by_stream({1, 0});
  EXPECT_LT(high0.stream0, s_over_b * 6 / 5) << high0.stream0;
  EXPECT_GT(high0.stream1, s_over_b * 19 / 10) << high0.stream1;
  // In one class the two share the port and end within a few percent of each other, late.
  const Ends shared = incast_by_stream({});
  EXPECT_GT(shared.stream0, s_over_b * 17 / 10) << shared.stream0;
  EXPECT_GT(shared.stream1, s_over_b * 17 / 10) << shared.stream1;
}

}  // namespace
}  // namespace loom::system
