// Closed-form collective timing in flow mode (system/collective_replay.h, RuntimeOptions::
// closed_form, flow_backend.h "Link reservations"): a replay on a private FlowBackend against
// the hand computation and with the links it used; runs with and without the closed form
// agreeing node by node; a point-to-point transfer that meets a reserved operation reported as
// a conflict (and the run stopped), and the run repeated without that communicator in closed
// form agreeing with every transfer; weighted streams keeping every transfer.
#include <gtest/gtest.h>

#include <algorithm>

#include "loom/collective/collective.h"
#include "loom/network/flow/flow_backend.h"
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

TEST(FlowCollectiveReplay, RingAllReduceMatchesTheHandComputationAndNamesItsLinks) {
  constexpr std::uint32_t n = 4;
  const StarFabric fabric(n);
  CollectiveReplay replay(fabric.topology, fabric.routing, network::flow::FlowParams{});
  collective::CollectiveSpec spec{CollectiveOp::kAllReduce, n, kUnit};
  spec.channels = 2;
  const auto execution = collective::make_execution(Algorithm::kRing, spec);
  const CollectiveReplay::EndpointNode node_of = [&](std::uint32_t member, std::uint32_t) {
    return fabric.topology.gpu_node(member);
  };
  const CollectiveReplay::FlowHash flow_hash = [](const collective::Transfer& t) { return std::uint64_t{t.src}; };
  const OperationTiming timing = replay.time(*execution, node_of, flow_hash);
  // Two channels' flows share each NIC: every step still takes alpha + (S/n) / B, give or take
  // a picosecond per rate change.
  const Time step = StarFabric::kAlpha + serialization_time(kUnit / n, StarFabric::bottleneck());
  ASSERT_EQ(timing.ends.size(), n);
  Time last;
  for (const MemberEnd& end : timing.ends) {
    EXPECT_NEAR(end.offset.seconds(), (step * (2 * (n - 1))).seconds(), 1e-10);
    last = std::max(last, end.offset);
  }
  // Every link a ring transfer crosses, by id, each freed before the last member ends (its
  // last byte still has the path latency to go).
  std::vector<topology::LinkId> crossed;
  for (std::uint32_t r = 0; r < n; ++r) {
    std::vector<topology::LinkId> path;
    fabric.routing.route(fabric.topology.gpu_node(r), fabric.topology.gpu_node((r + 1) % n), 0, path);
    crossed.insert(crossed.end(), path.begin(), path.end());
  }
  std::sort(crossed.begin(), crossed.end());
  crossed.erase(std::unique(crossed.begin(), crossed.end()), crossed.end());
  ASSERT_EQ(timing.link_uses.size(), crossed.size());
  for (std::size_t i = 0; i < crossed.size(); ++i) {
    EXPECT_EQ(timing.link_uses[i].link, crossed[i]);
    EXPECT_GT(timing.link_uses[i].offset, Time::zero());
    EXPECT_LT(timing.link_uses[i].offset, last);
  }
}

RunResult run_flow(const StarFabric& fabric, const workload::Workload& w, RuntimeOptions options) {
  options.flow_closed_form = true;
  Simulator simulator;
  network::flow::FlowBackend backend(simulator, fabric.topology, fabric.routing);
  Runtime runtime(simulator, fabric.topology, w, backend, options);
  return runtime.run();
}

void expect_same_nodes(const RunResult& on, const RunResult& off) {
  EXPECT_EQ(on.makespan, off.makespan);
  EXPECT_EQ(on.transfers, off.transfers);
  EXPECT_EQ(on.bytes_moved, off.bytes_moved);
  ASSERT_EQ(on.nodes.size(), off.nodes.size());
  for (std::size_t i = 0; i < on.nodes.size(); ++i) {
    EXPECT_EQ(on.nodes[i].start, off.nodes[i].start) << "node " << i;
    EXPECT_EQ(on.nodes[i].end, off.nodes[i].end) << "node " << i;
  }
  ASSERT_EQ(on.collectives.size(), off.collectives.size());
  for (std::size_t i = 0; i < on.collectives.size(); ++i) {
    EXPECT_EQ(on.collectives[i].start, off.collectives[i].start) << "collective " << i;
    EXPECT_EQ(on.collectives[i].end, off.collectives[i].end) << "collective " << i;
  }
}

TEST(FlowClosedForm, EqualAndStaggeredArrivalsMatchEveryTransfer) {
  const StarFabric fabric(6);
  RuntimeOptions options;
  options.channels = 2;
  for (const Time stagger : {Time::zero(), Time::ns(1500)}) {
    const workload::Workload w = staggered(6, stagger);
    const RunResult on = run_flow(fabric, w, options);
    options.closed_form = false;
    const RunResult off = run_flow(fabric, w, options);
    options.closed_form = true;
    EXPECT_TRUE(on.closed_form_conflicts.empty());
    expect_same_nodes(on, off);
    EXPECT_LT(on.events * 3, off.events) << "stagger " << stagger;
  }
}

TEST(FlowClosedForm, AFlowMeetingAReservedOperationIsAConflict) {
  const StarFabric fabric(4);
  RuntimeOptions options;
  // The send starts 2 us into the first all-reduce (which starts at 10 us), on rank 0's NIC.
  const workload::Workload w = staggered(4, Time::zero(), kUnit, Time::us(2));
  const RunResult first = run_flow(fabric, w, options);
  ASSERT_EQ(first.closed_form_conflicts, std::vector<workload::CommunicatorId>{0});
  EXPECT_LT(first.makespan, Time::us(13));  // stopped at the conflict
  // Without the communicator in closed form, the run is the one with every transfer.
  options.closed_form_skips = {true};
  const RunResult again = run_flow(fabric, w, options);
  EXPECT_TRUE(again.closed_form_conflicts.empty());
  options.closed_form = false;
  expect_same_nodes(again, run_flow(fabric, w, options));
}

TEST(FlowClosedForm, LinksThatOtherFlowsCrossedStayTransferByTransfer) {
  // The send (at 0, 64 KiB) is over before the all-reduces start, but it crossed rank 0's
  // links: operations using them run transfer by transfer, with no conflict and the same times.
  const StarFabric fabric(4);
  RuntimeOptions options;
  const workload::Workload w = staggered(4, Time::zero(), 65'536);
  const RunResult on = run_flow(fabric, w, options);
  EXPECT_TRUE(on.closed_form_conflicts.empty());
  options.closed_form = false;
  const RunResult off = run_flow(fabric, w, options);
  expect_same_nodes(on, off);
  EXPECT_EQ(on.events, off.events);
}

TEST(FlowClosedForm, WeightedStreamsKeepEveryTransfer) {
  // The replay's flows weigh 1; a weight w scales every rate by w and back, which need not
  // round to the same bits.
  const StarFabric fabric(4);
  RuntimeOptions options;
  options.stream_weights = {3.0};
  const workload::Workload w = staggered(4, Time::ns(700));
  const RunResult on = run_flow(fabric, w, options);
  options.closed_form = false;
  const RunResult off = run_flow(fabric, w, options);
  expect_same_nodes(on, off);
  EXPECT_EQ(on.events, off.events);
}

}  // namespace
}  // namespace loom::system
