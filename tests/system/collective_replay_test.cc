// Closed-form collective timing (system/collective_replay.h, RuntimeOptions::closed_form):
// a replayed operation against the alpha-beta hand computation, including the analytical
// backend's link sharing; and runs with and without the closed form agreeing node by node on
// equal and staggered arrivals, on a fabric where routes depend on the flow hash (each
// operation replayed with its own hashes) and with a link change (every transfer in the run).
#include <gtest/gtest.h>

#include "loom/collective/collective.h"
#include "loom/system/collective_replay.h"
#include "system/fabric_fixture.h"
#include "system/staggered_workload.h"

namespace loom::system {
namespace {

using collective::Algorithm;
using collective::CollectiveOp;
using testing::kUnit;
using testing::StarFabric;
using testing::staggered;

OperationTiming replay_ring(const topology::Topology& topology, const topology::Routing& routing,
                            const collective::CollectiveSpec& spec) {
  CollectiveReplay replay(topology, routing);
  const auto execution = collective::make_execution(Algorithm::kRing, spec);
  const CollectiveReplay::EndpointNode node_of = [&topology](std::uint32_t member, std::uint32_t) {
    return topology.gpu_node(member);
  };
  const CollectiveReplay::FlowHash flow_hash = [](const collective::Transfer& t) {
    return std::uint64_t{t.src} * 131 + t.dst * 7 + t.channel;
  };
  return replay.time(*execution, node_of, flow_hash);
}

TEST(CollectiveReplay, RingAllReduceMatchesTheHandComputation) {
  constexpr std::uint32_t n = 5;
  const StarFabric fabric(n);
  const Bytes size = Bytes{n} * 3 * 65'536;
  // 2(n-1) steps of alpha + (S/n) / B, every member ending with the last step.
  const Time step = StarFabric::kAlpha + serialization_time(size / n, StarFabric::bottleneck());
  for (const std::uint32_t channels : {1u, 2u, 4u}) {
    collective::CollectiveSpec spec{CollectiveOp::kAllReduce, n, size};
    spec.channels = channels;
    const OperationTiming timing = replay_ring(fabric.topology, fabric.routing, spec);
    // With P channels each step carries S/(nP) per channel, and the P transfers leaving a GPU
    // share its NIC (k = P): the step still takes (S/n) / B. Without the sharing rule it
    // would take (S/(nP)) / B.
    ASSERT_EQ(timing.ends.size(), n) << channels;
    for (const MemberEnd& end : timing.ends) EXPECT_EQ(end.offset, step * (2 * (n - 1))) << channels;
    EXPECT_EQ(timing.at_start, 0u);
    EXPECT_EQ(timing.transfers, std::uint64_t{2 * (n - 1) * n * channels});
    EXPECT_EQ(timing.payload_bytes, 2 * (n - 1) * size);
    EXPECT_EQ(timing.wire_bytes, timing.payload_bytes);  // Simple: no framing
    EXPECT_TRUE(timing.hash_free);  // one switch: every pair has one path
  }
}

TEST(CollectiveReplay, ALoneMemberEndsAtTheStart) {
  const StarFabric fabric(2);
  const OperationTiming timing = replay_ring(fabric.topology, fabric.routing, {CollectiveOp::kAllReduce, 1, 4096});
  ASSERT_EQ(timing.ends.size(), 1u);
  EXPECT_EQ(timing.at_start, 1u);
  EXPECT_EQ(timing.ends[0].offset, Time::zero());
  EXPECT_EQ(timing.transfers, 0u);
}

// Four single-GPU hosts, one per leaf, two spines: cross-leaf transfers pick a spine by flow
// hash, and spine links slower than the NICs make collisions decide the times.
topology::Topology two_spines() {
  topology::LeafSpineParams p;
  p.hosts = 4;
  p.host.gpus_per_host = 1;
  p.hosts_per_leaf = 1;
  p.spines = 2;
  p.links_per_pair = 1;
  p.spine_link_bandwidth = Bandwidth::gbps(100);
  return topology::make_leaf_spine(p);
}

TEST(CollectiveReplay, RoutesThatDependOnTheFlowHashAreFlagged) {
  const topology::Topology topology = two_spines();
  const topology::Routing routing(topology);
  collective::CollectiveSpec spec{CollectiveOp::kAllReduce, 4, 1 << 20};
  spec.channels = 4;
  EXPECT_FALSE(replay_ring(topology, routing, spec).hash_free);
}


// The closed form's run against every transfer in the run: every node's timing, every
// collective record and the totals. Returns the two runs' event counts.
std::pair<std::uint64_t, std::uint64_t> expect_same_runs(const topology::Topology& topology,
                                                         const topology::Routing& routing,
                                                         const workload::Workload& workload, RuntimeOptions options,
                                                         bool rate_change = false) {
  RunResult runs[2];
  for (const bool closed_form : {true, false}) {
    options.closed_form = closed_form;
    Simulator simulator;
    network::AnalyticalBackend backend(simulator, topology, routing);
    if (rate_change) backend.schedule_link_rate(Time::us(12), 0, Bandwidth::gbps(50));
    Runtime runtime(simulator, topology, workload, backend, options);
    runs[closed_form ? 0 : 1] = runtime.run();
  }
  const RunResult& on = runs[0];
  const RunResult& off = runs[1];
  EXPECT_EQ(on.makespan, off.makespan);
  EXPECT_EQ(on.transfers, off.transfers);
  EXPECT_EQ(on.bytes_moved, off.bytes_moved);
  EXPECT_EQ(on.rank_finish, off.rank_finish);
  EXPECT_EQ(on.nodes.size(), off.nodes.size());
  for (std::size_t i = 0; i < on.nodes.size() && i < off.nodes.size(); ++i) {
    EXPECT_EQ(on.nodes[i].start, off.nodes[i].start) << "node " << i;
    EXPECT_EQ(on.nodes[i].end, off.nodes[i].end) << "node " << i;
    EXPECT_EQ(on.nodes[i].enabler, off.nodes[i].enabler) << "node " << i;
    EXPECT_EQ(on.nodes[i].rendezvous, off.nodes[i].rendezvous) << "node " << i;
  }
  EXPECT_EQ(on.collectives.size(), off.collectives.size());
  for (std::size_t i = 0; i < on.collectives.size() && i < off.collectives.size(); ++i) {
    const CollectiveRecord& a = on.collectives[i];
    const CollectiveRecord& b = off.collectives[i];
    EXPECT_EQ(std::tie(a.communicator, a.sequence, a.start, a.end, a.transfers, a.bytes_moved, a.channels),
              std::tie(b.communicator, b.sequence, b.start, b.end, b.transfers, b.bytes_moved, b.channels))
        << "collective " << i;
  }
  return {on.events, off.events};
}

TEST(ClosedFormRuntime, EqualAndStaggeredArrivalsMatchEveryTransfer) {
  const StarFabric fabric(6);
  RuntimeOptions options;
  options.channels = 2;
  for (const Time stagger : {Time::zero(), Time::ns(1500)}) {
    const workload::Workload w = staggered(6, stagger);
    const auto [on, off] = expect_same_runs(fabric.topology, fabric.routing, w, options);
    EXPECT_LT(on, off) << "stagger " << stagger;
  }
  // The operation starts at the last arrival and then takes the hand-computed ring time.
  Simulator simulator;
  network::AnalyticalBackend backend(simulator, fabric.topology, fabric.routing);
  const workload::Workload w = staggered(6, Time::ns(1500));
  Runtime runtime(simulator, fabric.topology, w, backend, options);
  const RunResult result = runtime.run();
  const CollectiveRecord& first = result.collectives.front();
  EXPECT_EQ(first.start, Time::us(10) + Time::ns(1500) * 5);
  const Time step = StarFabric::kAlpha + serialization_time(kUnit / 6, StarFabric::bottleneck());
  EXPECT_EQ(first.duration(), step * 10);
}

TEST(ClosedFormRuntime, HashDependentRoutesAreReplayedPerOperation) {
  const topology::Topology topology = two_spines();
  const topology::Routing routing(topology);
  RuntimeOptions options;
  options.channels = 4;
  const auto [on, off] = expect_same_runs(topology, routing, staggered(4, Time::ns(700)), options);
  EXPECT_LT(on, off);
}

TEST(ClosedFormRuntime, ALinkChangeKeepsEveryTransferInTheRun) {
  const StarFabric fabric(4);
  RuntimeOptions options;
  options.channels = 2;
  const auto [on, off] = expect_same_runs(fabric.topology, fabric.routing, staggered(4, Time::ns(300)), options, true);
  EXPECT_EQ(on, off);  // the fallback: the same events, transfer by transfer
}

// Protocol hop latencies (arrivals batched apart from deliveries): exact, and timed in closed
// form, where every path has a latency; on a fabric with a zero-latency link the order of an
// instant's starts could depend on other operations, so every transfer stays in the run.
TEST(ClosedFormRuntime, HopLatenciesNeedPathsWithALatency) {
  RuntimeOptions options;
  options.channels = 2;
  for (auto& row : options.protocol_costs.hop_latency) row.fill(Time::ns(900));
  const StarFabric fabric(4);
  const auto [on, off] = expect_same_runs(fabric.topology, fabric.routing, staggered(4, Time::ns(300)), options);
  EXPECT_LT(on, off);
  topology::SingleSwitchParams p;
  p.hosts = 4;
  p.host.gpus_per_host = 1;
  p.link_latency = Time::zero();
  const topology::Topology zero_latency = topology::make_single_switch(p);
  const topology::Routing routing(zero_latency);
  const auto [on_zero, off_zero] = expect_same_runs(zero_latency, routing, staggered(4, Time::ns(300)), options);
  EXPECT_EQ(on_zero, off_zero);
}

}  // namespace
}  // namespace loom::system
