// Stream priorities: transfers carry their stream's weight into the flow backend's weighted
// max-min sharing.
#include <gtest/gtest.h>

#include "loom/network/flow/flow_backend.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"

namespace loom::system {
namespace {

using testing::DagBuilder;
using testing::StarFabric;

TEST(StreamWeights, WeightedStreamsShareABottleneckTwoToOne) {
  // Two sends of S bytes from rank 0 to rank 1 on streams 0 (weight 2) and 1 (weight 1) share
  // the 400Gbps path. Stream 0 drains at 2B/3 and ends after 1.5 S/B; stream 1 has then sent
  // S/2 and finishes the rest at B: 2 S/B. Both add the path latency alpha.
  const StarFabric fabric(2);
  DagBuilder dag(2);
  const Bytes s = 3'000'000;
  const auto heavy = dag.transfer(0, 1, s, 0);
  const auto light = dag.transfer(0, 1, s, 1);
  Simulator simulator;
  network::flow::FlowBackend backend(simulator, fabric.topology, fabric.routing);
  RuntimeOptions options;
  options.stream_weights = {2.0, 1.0};
  Runtime runtime(simulator, fabric.topology, dag.workload(), backend, options);
  const RunResult r = runtime.run();
  const Time s_over_b = serialization_time(s, StarFabric::bottleneck());  // 60us
  const auto near = [](Time a, Time b) { return std::llabs(a.picoseconds() - b.picoseconds()) <= 4; };
  EXPECT_TRUE(near(r.nodes[heavy].end, StarFabric::kAlpha + s_over_b * 3 / 2)) << r.nodes[heavy].end;
  EXPECT_TRUE(near(r.nodes[light].end, StarFabric::kAlpha + s_over_b * 2)) << r.nodes[light].end;
}

TEST(StreamWeights, NonPositiveWeightsAreUserErrors) {
  const StarFabric fabric(2);
  DagBuilder dag(2);
  Simulator simulator;
  network::flow::FlowBackend backend(simulator, fabric.topology, fabric.routing);
  RuntimeOptions options;
  options.stream_weights = {1.0, 0.0};
  EXPECT_THROW(Runtime(simulator, fabric.topology, dag.workload(), backend, options), UserError);
}

}  // namespace
}  // namespace loom::system
