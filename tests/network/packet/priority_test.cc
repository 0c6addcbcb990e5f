// Traffic classes at switch egress ports: strict priority, weighted round robin, and PFC per
// (ingress port, class). Line-rate senders (no congestion control, no window) so the switch
// scheduler alone decides the shares. Wire packets are 1000 + 48 = 1048 bytes: 83.84 ns at
// 100 Gb/s, 11.93 M packets/s, 11.93 GB/s of payload.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "loom/core/error.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/packet_backend.h"
#include "loom/network/packet/shared_buffer.h"
#include "network/packet/star.h"

namespace loom::network::packet {
namespace {

using testing::Star;
using topology::NodeId;

PacketParams line_rate(QueueScheduler scheduler) {
  PacketParams p;
  p.cc.kind = CcKind::kNone;
  p.nic.window = false;
  p.sw.scheduler = scheduler;
  return p;
}

struct Deliveries final : FabricListener {
  void on_qp_delivered(QpId, std::uint64_t tag) override { done[tag] = simulator->now(); }
  void on_qp_acked(QpId, std::uint64_t) override {}
  Simulator* simulator = nullptr;
  std::map<std::uint64_t, Time> done;
};

QpId add_qp(Fabric& fabric, const topology::Routing& routing, NodeId src, NodeId dst, Bytes bytes,
            std::uint32_t priority, std::uint64_t tag) {
  std::vector<topology::LinkId> forward, reverse;
  routing.route(src, dst, tag, forward);
  routing.route(dst, src, tag, reverse);
  QpSpec spec;
  spec.forward = forward;
  spec.reverse = reverse;
  spec.bytes = bytes;
  spec.priority = priority;
  spec.tag = tag;
  return fabric.add_qp(spec);
}

// Received payload bytes after `t` of a line-rate QP alone on a 100 Gb/s, two-hop path: the
// first packet needs two serialisations and 2 us, then one packet per 83.84 ns.
double alone_received(Time t) { return (t.seconds() - 2.16768e-6) * 100e9 / 8 * 1000 / 1048; }

// Two senders into one 100 Gb/s port, class 1 against class 2 under strict priority: the high
// class runs at line rate as if alone; the low class gets at most a packet in while the high one
// is backlogged, is paused upstream (PFC on its class only) and loses nothing, then takes the
// port: both finish together at 2 x 10 MB of wire bytes = 1676.8 us.
TEST(PacketPriority, StrictPriorityStarvesTheLowClassWhileTheHighIsBacklogged) {
  const PacketParams p = line_rate(QueueScheduler::kStrict);
  Star star(2, p);
  Fabric fabric(star.simulator, star.topo, p);
  fabric.record_pfc_events(true);
  Deliveries deliveries;
  deliveries.simulator = &star.simulator;
  fabric.set_listener(&deliveries);
  const QpId high = add_qp(fabric, *star.routing, star.senders[0], star.receiver, 10'000'000, 1, 0);
  const QpId low = add_qp(fabric, *star.routing, star.senders[1], star.receiver, 10'000'000, 2, 1);
  EXPECT_EQ(fabric.qp_priority(high), 1u);
  EXPECT_EQ(fabric.qp_priority(low), 2u);
  star.simulator.run_until(Time::us(400));
  EXPECT_NEAR(static_cast<double>(fabric.qp_received(high)), alone_received(Time::us(400)), 0.01 * 4.75e6);
  EXPECT_LE(fabric.qp_received(low), 1000u);
  EXPECT_TRUE(fabric.class_paused(fabric.qp_path(low, true)[0], 2));
  EXPECT_FALSE(fabric.class_paused(fabric.qp_path(high, true)[0], 1));
  star.simulator.run();
  const Time high_alone = Time::ps(838'400'000 + 83'840 + 2'000'000);
  EXPECT_NEAR(deliveries.done.at(0).seconds(), high_alone.seconds(), 0.01 * high_alone.seconds());
  EXPECT_NEAR(deliveries.done.at(1).seconds(), 1676.8e-6, 0.01 * 1676.8e-6);
  EXPECT_EQ(fabric.counters().drops, 0u);
  EXPECT_EQ(fabric.counters().delivered_bytes, 20'000'000u);
  ASSERT_GT(fabric.counters().pauses, 0u);
  for (const PfcEvent& e : fabric.pfc_events()) EXPECT_EQ(e.priority, 2u);
}

// The same port under weighted round robin: weights 3:1 split it 3:1 (received bytes within 2%)
// while both are backlogged, 1:1 evenly; together at line rate; nothing lost with PFC on.
TEST(PacketPriority, WeightedRoundRobinSplitsThePortByClassWeight) {
  for (const std::uint32_t heavy : {3u, 1u}) {
    PacketParams p = line_rate(QueueScheduler::kWrr);
    p.sw.class_weights[1] = heavy;
    p.sw.class_weights[2] = 1;
    Star star(2, p);
    Fabric fabric(star.simulator, star.topo, p);
    const QpId a = add_qp(fabric, *star.routing, star.senders[0], star.receiver, 10'000'000, 1, 0);
    const QpId b = add_qp(fabric, *star.routing, star.senders[1], star.receiver, 10'000'000, 2, 1);
    star.simulator.run_until(Time::us(400));
    const double got_a = static_cast<double>(fabric.qp_received(a));
    const double got_b = static_cast<double>(fabric.qp_received(b));
    EXPECT_NEAR(got_a / got_b, heavy, 0.02 * heavy) << heavy;
    EXPECT_NEAR(got_a + got_b, alone_received(Time::us(400)), 0.01 * 4.75e6) << heavy;
    star.simulator.run();
    EXPECT_EQ(fabric.counters().drops, 0u) << heavy;
    EXPECT_EQ(fabric.counters().delivered_bytes, 20'000'000u) << heavy;
    EXPECT_GT(fabric.counters().pauses, 0u) << heavy;
  }
}

// Two switches: hosts a, b on s1; c, d, e on s2; s1 -> s2 at 200 Gb/s, the rest 100 Gb/s, 1 us
// each. a -> c and e -> c (class 1, 20 MB each) overload the port to c, so s2 pauses class 1 on
// the s1 -> s2 link, and s1 then pauses a. b -> d (10 MB) crosses the same s1 -> s2 link:
//  - in class 2 it is never paused and finishes at its ideal time: the first packet crosses
//    three links (83.84 + 41.92 + 83.84 ns + 3 us), the other 9,999 follow at 100 Gb/s
//    (838.316 us): 841.526 us;
//  - in class 1 the pauses of that link stop it too (head-of-line blocking): much later.
struct TwoSwitches {
  explicit TwoSwitches(const PacketParams& params) {
    const NodeId s1 = topo.add_node(topology::NodeKind::kSwitch, "switch.1");
    const NodeId s2 = topo.add_node(topology::NodeKind::kSwitch, "switch.2");
    topo.add_duplex_link(s1, s2, Bandwidth::gbps(200), Time::us(1));
    std::uint32_t host = 0;
    for (NodeId* node : {&a, &b, &c, &d, &e}) {
      *node = topo.add_node(topology::NodeKind::kGpu, "host." + std::to_string(host) + ".gpu.0", host);
      topo.add_duplex_link(*node, host < 2 ? s1 : s2, Bandwidth::gbps(100), Time::us(1));
      ++host;
    }
    routing = std::make_unique<topology::Routing>(topo);
    fabric = std::make_unique<Fabric>(simulator, topo, params);
    fabric->record_pfc_events(true);
    deliveries.simulator = &simulator;
    fabric->set_listener(&deliveries);
  }
  topology::Topology topo;
  NodeId a = 0, b = 0, c = 0, d = 0, e = 0;
  Simulator simulator;
  std::unique_ptr<topology::Routing> routing;
  std::unique_ptr<Fabric> fabric;
  Deliveries deliveries;
};

TEST(PacketPriority, PfcPausesOnlyTheCongestedClass) {
  PacketParams p = line_rate(QueueScheduler::kStrict);
  p.sw.buffer_bytes = 2'000'000;
  const Time ideal = Time::ps(9'999 * 83'840 + 83'840 + 41'920 + 83'840 + 3'000'000);
  for (const std::uint32_t bystander : {2u, 1u}) {
    TwoSwitches net(p);
    add_qp(*net.fabric, *net.routing, net.a, net.c, 20'000'000, 1, 0);
    add_qp(*net.fabric, *net.routing, net.e, net.c, 20'000'000, 1, 1);
    add_qp(*net.fabric, *net.routing, net.b, net.d, 10'000'000, bystander, 2);
    net.simulator.run();
    const FabricCounters& counters = net.fabric->counters();
    EXPECT_EQ(counters.drops, 0u) << bystander;
    EXPECT_EQ(counters.delivered_bytes, 50'000'000u) << bystander;
    ASSERT_GT(counters.pauses, 0u) << bystander;
    const double took = net.deliveries.done.at(2).seconds();
    if (bystander == 2) {
      EXPECT_NEAR(took, ideal.seconds(), 0.01 * ideal.seconds());
      for (const PfcEvent& e : net.fabric->pfc_events()) EXPECT_EQ(e.priority, 1u);
    } else {
      EXPECT_GT(took, 1.2 * ideal.seconds());
    }
  }
}

// The MMU keeps each class of an ingress port apart: filling class 1 pauses class 1 only.
TEST(PacketPriority, SharedBufferAccountsEachClassApart) {
  topology::Topology topo;
  const NodeId host = topo.add_node(topology::NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId sw = topo.add_node(topology::NodeKind::kSwitch, "switch.0");
  const topology::LinkId in = topo.add_duplex_link(host, sw, Bandwidth::gbps(100), Time::us(1));
  SwitchParams params;
  params.buffer_bytes = 1'000'000;
  SharedBuffer buffer(topo, params, Bandwidth::gbps(100));
  while (!buffer.take_pause(in, 1)) ASSERT_TRUE(buffer.admit(in, 1000, 1));
  EXPECT_TRUE(buffer.paused(in, 1));
  EXPECT_FALSE(buffer.paused(in, 2));
  EXPECT_FALSE(buffer.take_pause(in, 2));
  EXPECT_EQ(buffer.shared_used(in, 2), 0u);
  EXPECT_TRUE(buffer.admit(in, 1000, 2));
  EXPECT_FALSE(buffer.take_pause(in, 2));
  std::vector<IngressQueue> resumed;
  while (resumed.empty()) {
    buffer.release(in, 1000, 1);
    buffer.take_resumable(sw, resumed);
  }
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0].link, in);
  EXPECT_EQ(resumed[0].priority, 1u);
  EXPECT_FALSE(buffer.paused(in, 1));
}

void expect_user_error(const PacketParams& p, const std::string& message) {
  try {
    check_packet_params(p);
    ADD_FAILURE() << "no error, expected: " << message;
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(PacketPriority, InvalidClassSettingsAreUserErrors) {
  PacketParams p;
  p.sw.queues = 1;
  expect_user_error(p, "packet backend: switch.queues = 1: expected 2..8 (class 0 is control)");
  p = PacketParams{};
  p.sw.queues = 9;
  expect_user_error(p, "packet backend: switch.queues = 9: expected 2..8 (class 0 is control)");
  p = PacketParams{};
  p.sw.queues = 3;
  expect_user_error(p, "packet backend: data_priority = 3: expected 1..2 (0 is the control class; switch.queues = 3)");
  p = PacketParams{};
  p.sw.class_weights[2] = 0;
  expect_user_error(p, "packet backend: switch.class_weights[2] = 0: expected 1..1024 packets per turn");
  p = PacketParams{};
  p.sw.class_weights[0] = 0;  // the control class has no weight
  EXPECT_NO_THROW(check_packet_params(p));
  EXPECT_EQ(parse_queue_scheduler("wrr"), QueueScheduler::kWrr);
  EXPECT_EQ(to_string(QueueScheduler::kStrict), "strict");
  try {
    parse_queue_scheduler("fifo");
    ADD_FAILURE() << "no error for scheduler fifo";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "packet backend: switch.scheduler 'fifo': expected strict or wrr");
  }
}

TEST(PacketPriority, TransferInAClassBeyondTheQueuesIsAUserError) {
  PacketParams p;
  p.sw.queues = 4;
  p.data_priority = 2;
  Star star(1, p);
  Star::Recorder recorder;
  recorder.simulator = &star.simulator;
  recorder.done.assign(1, Time::max());
  try {
    star.backend->start({.src = star.senders[0], .dst = star.receiver, .bytes = 1000, .traffic_class = 4}, recorder, 0);
    ADD_FAILURE() << "no error for class 4";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "packet backend: traffic class 4: expected 1..3 (switch.queues = 4), or 0 for data_priority");
  }
  EXPECT_EQ(star.backend->active_transfers(), 0u);
  star.backend->start({.src = star.senders[0], .dst = star.receiver, .bytes = 1000, .traffic_class = 3}, recorder, 0);
  EXPECT_EQ(star.backend->fabric().qp_priority(0), 3u);
  star.simulator.run();
  EXPECT_NE(recorder.done[0], Time::max());
  std::vector<topology::LinkId> forward, reverse;
  star.routing->route(star.senders[0], star.receiver, 0, forward);
  star.routing->route(star.receiver, star.senders[0], 0, reverse);
  QpSpec spec;
  spec.forward = forward;
  spec.reverse = reverse;
  spec.bytes = 1000;
  spec.priority = 7;
  EXPECT_THROW(star.backend->fabric().add_qp(spec), UserError);
}

}  // namespace
}  // namespace loom::network::packet
