// Cables going down and up during a run, in the flow and analytical backends (the packet
// backend's reroute is tested in tests/network/packet/fabric_test.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "loom/core/error.h"
#include "loom/network/analytical.h"
#include "loom/network/flow/flow_backend.h"

namespace loom::network {
namespace {

using namespace time_literals;
using ::testing::HasSubstr;
using topology::LinkId;
using topology::NodeId;

struct Recorder final : CompletionHandler {
  explicit Recorder(Simulator& s) : simulator(s) {}
  void on_transfer_complete(std::uint64_t cookie) override { done[cookie] = simulator.now(); }
  Simulator& simulator;
  std::map<std::uint64_t, Time> done;
};

// GPU a and GPU b, each behind its NIC, joined by two switches: a fast plane (400 Gb/s, fast.0)
// and a slow one (100 Gb/s, slow.0). Both are shortest paths, so ECMP may pick either.
struct TwoPlanes {
  TwoPlanes() {
    a = topo.add_node(topology::NodeKind::kGpu, "a", 0);
    const NodeId nic_a = topo.add_node(topology::NodeKind::kNic, "a.nic", 0);
    b = topo.add_node(topology::NodeKind::kGpu, "b", 1);
    const NodeId nic_b = topo.add_node(topology::NodeKind::kNic, "b.nic", 1);
    const NodeId fast = topo.add_node(topology::NodeKind::kSwitch, "fast.0");
    const NodeId slow = topo.add_node(topology::NodeKind::kSwitch, "slow.0");
    topo.add_duplex_link(a, nic_a, Bandwidth::gbps(1600), 1_us);
    topo.add_duplex_link(b, nic_b, Bandwidth::gbps(1600), 1_us);
    fast_cable = topo.add_duplex_link(nic_a, fast, Bandwidth::gbps(400), 1_us);
    topo.add_duplex_link(fast, nic_b, Bandwidth::gbps(400), 1_us);
    slow_cable = topo.add_duplex_link(nic_a, slow, Bandwidth::gbps(100), 1_us);
    topo.add_duplex_link(slow, nic_b, Bandwidth::gbps(100), 1_us);
    topo.attach_nic(0, nic_a);
    topo.attach_nic(1, nic_b);
  }
  // A flow hash whose route from a to b takes the fast plane.
  std::uint64_t fast_hash(const topology::Routing& routing) const {
    for (std::uint64_t h = 0;; ++h) {
      std::vector<LinkId> path;
      routing.route(a, b, h, path);
      if (path[1] == fast_cable) return h;
    }
  }
  topology::Topology topo;
  NodeId a = 0, b = 0;
  LinkId fast_cable = 0, slow_cable = 0;
};

constexpr Bytes kBytes = 10'000'000;  // 200 us at 400 Gb/s, 800 us at 100 Gb/s
const Time kLatency = 4_us;            // four cables, no forwarding latency

// One flow-backend run over TwoPlanes; started transfers go from a to b on the fast plane.
struct FlowRun {
  FlowRun() : routing(net.topo), backend(simulator, net.topo, routing), done(simulator) {}
  void start(std::uint64_t cookie) { backend.start({net.a, net.b, kBytes, net.fast_hash(routing)}, done, cookie); }
  void change(Time at, LinkId cable, bool up) { backend.schedule_link_change(at, cable, up, routing); }

  TwoPlanes net;
  topology::Routing routing;
  Simulator simulator;
  flow::FlowBackend backend;
  Recorder done;
};

// The fast cable goes down halfway: the flow keeps its 5 MB left and sends them over the slow
// plane, finishing at 100 us + 400 us + the path latency, not at 200 us.
TEST(LinkChange, FlowMovesToTheOtherPlaneWithItsBytesLeft) {
  FlowRun run;
  ASSERT_TRUE(run.backend.capabilities().link_changes);
  run.start(1);
  run.change(100_us, run.net.fast_cable, false);
  run.simulator.run();
  EXPECT_EQ(run.done.done.at(1), 100_us + 400_us + kLatency);
  EXPECT_FALSE(run.routing.link_up(run.net.fast_cable));
}

// A cable the flow does not use changes nothing; bringing the fast cable back does not move a
// flow already on the slow plane.
TEST(LinkChange, UnusedCablesAndRecoveriesLeaveRunningFlowsAlone) {
  FlowRun unused;
  unused.start(1);
  unused.change(50_us, unused.net.slow_cable, false);
  unused.simulator.run();
  EXPECT_EQ(unused.done.done.at(1), 200_us + kLatency);

  FlowRun recovered;
  recovered.start(1);
  recovered.change(100_us, recovered.net.fast_cable, false);
  recovered.change(200_us, recovered.net.fast_cable, true);
  recovered.simulator.run();
  EXPECT_EQ(recovered.done.done.at(1), 100_us + 400_us + kLatency);
}

// Two flows on the fast plane share it; when it fails both move to the slow plane and share that.
TEST(LinkChange, MovedFlowsShareTheirNewPath) {
  FlowRun run;
  run.start(1);
  run.start(2);
  // 200 Gb/s each until 100 us (2.5 MB sent), then 50 Gb/s each for the 7.5 MB left: 1200 us.
  run.change(100_us, run.net.fast_cable, false);
  run.simulator.run();
  EXPECT_EQ(run.done.done.at(1), 100_us + 1200_us + kLatency);
  EXPECT_EQ(run.done.done.at(2), run.done.done.at(1));
}

TEST(LinkChange, AFlowLeftWithoutARouteIsAUserError) {
  FlowRun run;
  run.start(1);
  run.change(10_us, run.net.slow_cable, false);
  run.change(20_us, run.net.fast_cable, false);
  try {
    run.simulator.run();
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no path from 'a' to 'b'"));
  }
}

// Analytical transfers are timed when they start: one under way finishes as timed, one that
// starts after the cable went down takes the slow plane.
TEST(LinkChange, AnalyticalReroutesTransfersThatStartLater) {
  TwoPlanes net;
  topology::Routing routing(net.topo);
  Simulator simulator;
  AnalyticalBackend backend(simulator, net.topo, routing);
  Recorder done(simulator);
  const std::uint64_t h = net.fast_hash(routing);
  backend.start({net.a, net.b, kBytes, h}, done, 1);
  backend.schedule_link_change(100_us, net.fast_cable, false, routing);
  simulator.run_until(150_us);
  backend.start({net.a, net.b, kBytes, h}, done, 2);
  simulator.run();
  EXPECT_EQ(done.done.at(1), 200_us + kLatency);
  EXPECT_EQ(done.done.at(2), 150_us + 800_us + kLatency);
}

TEST(LinkChange, BackendsNameWhatTheyLack) {
  TwoPlanes net;
  topology::Routing routing(net.topo);
  Simulator simulator;
  AnalyticalBackend backend(simulator, net.topo, routing);
  EXPECT_FALSE(backend.capabilities().link_loads);
  std::vector<double> carried;
  try {
    backend.carried_bytes(carried);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "network.mode analytical does not model per-link carried bytes");
  }
}

}  // namespace
}  // namespace loom::network
