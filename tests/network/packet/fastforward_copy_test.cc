// FabricSkipper::copy: a 2-to-1 incast set mid-transient from an identical one started at the
// same instant goes on as its leader does (equal state at once, equal completion times after),
// and a rack that differs (a faster cable, a third flow on one port) refuses the copy, says
// why, and is left as it was.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/fastforward/fabric_skipper.h"
#include "loom/topology/routing.h"
#include "network/packet/star.h"

namespace loom::network::packet {
namespace {

using fastforward::FabricSkipper;
using topology::LinkId;
using topology::NodeId;

// GPUs 0..6 on one switch, every cable 100 Gb/s and 1 us but GPU 5's (`gpu5_gbps`). Two
// 2-to-1 incasts: 1, 2 -> 0 (the leader) and 4, 5 -> 3 (the follower), started at time zero.
struct Racks final : FabricListener {
  Racks(const PacketParams& params, double gpu5_gbps) {
    const NodeId sw = topo.add_node(topology::NodeKind::kSwitch, "switch.0");
    for (std::uint32_t i = 0; i < 7; ++i) {
      gpus.push_back(topo.add_node(topology::NodeKind::kGpu, "host." + std::to_string(i) + ".gpu.0", i));
      topo.add_duplex_link(gpus[i], sw, Bandwidth::gbps(i == 5 ? gpu5_gbps : 100), Time::us(1));
    }
    routing = std::make_unique<topology::Routing>(topo);
    fabric = std::make_unique<Fabric>(simulator, topo, params);
    fabric->set_listener(this);
    leader = {start(1, 0), start(2, 0)};
    follower = {start(4, 3), start(5, 3)};
  }

  QpId start(std::uint32_t from, std::uint32_t to, std::uint64_t bytes = kBytes) {
    std::vector<LinkId> forward, reverse;
    routing->route(gpus[from], gpus[to], from, forward);
    routing->route(gpus[to], gpus[from], from, reverse);
    QpSpec spec;
    spec.forward = forward;
    spec.reverse = reverse;
    spec.bytes = bytes;
    spec.tag = tags++;
    const QpId qp = fabric->add_qp(spec);
    delivered.push_back(Time::max());
    return qp;
  }
  void on_qp_delivered(QpId, std::uint64_t tag) override { delivered[tag] = simulator.now(); }
  void on_qp_acked(QpId, std::uint64_t) override {}

  static constexpr std::uint64_t kBytes = 20'000'000;
  topology::Topology topo;
  std::vector<NodeId> gpus;
  Simulator simulator;
  std::unique_ptr<topology::Routing> routing;
  std::unique_ptr<Fabric> fabric;
  std::vector<QpId> leader, follower;
  std::vector<Time> delivered;  // by tag: leader 0, 1; follower 2, 3
  std::uint32_t tags = 0;
};

// What a QP's and its ports' state reads as from outside (the state a copy sets).
struct Seen {
  std::vector<std::uint64_t> bytes;  // per QP: sent, received, then per path port: queued
  std::vector<double> rates;
  friend bool operator==(const Seen&, const Seen&) = default;
};

Seen seen(Fabric& fabric, const std::vector<QpId>& qps) {
  const FabricSkipper skipper(fabric);
  Seen s;
  for (const QpId q : qps) {
    s.bytes.push_back(skipper.sent(q));
    s.bytes.push_back(fabric.qp_received(q));
    s.rates.push_back(fabric.qp_rate(q));
    for (const LinkId l : fabric.qp_path(q, true)) s.bytes.push_back(fabric.queue_bytes(l));
    for (const LinkId l : fabric.qp_path(q, false)) s.bytes.push_back(fabric.queue_bytes(l));
  }
  return s;
}

class FastForwardCopy : public ::testing::TestWithParam<CcKind> {};

TEST_P(FastForwardCopy, AFollowerSetFromItsLeaderGoesOnAsItsLeader) {
  const PacketParams params = testing::fast_forward_params(GetParam(), true);
  // The full run: both incasts simulated.
  Racks full(params, 100);
  full.simulator.run();
  // The copy 300 us in, mid-transient (packets queued and in flight, CC still moving).
  Racks copied(params, 100);
  copied.simulator.run_until(Time::us(300));
  const bool apart = seen(*copied.fabric, copied.leader) != seen(*copied.fabric, copied.follower);
  const std::size_t pending = copied.simulator.pending();
  FabricSkipper skipper(*copied.fabric);
  ASSERT_EQ(to_string(skipper.copy(copied.leader, copied.follower)), "none");
  EXPECT_EQ(seen(*copied.fabric, copied.follower), seen(*copied.fabric, copied.leader));
  EXPECT_GT(copied.simulator.pending(), pending / 2);
  copied.simulator.run();
  const auto& d = copied.delivered;
  std::printf("%s (twins %s before the copy): leader %.3f / %.3f us, follower %.3f / %.3f us; full run %.3f / %.3f and %.3f / %.3f us\n",
              std::string(to_string(GetParam())).c_str(), apart ? "apart" : "alike", d[0].seconds() * 1e6, d[1].seconds() * 1e6, d[2].seconds() * 1e6,
              d[3].seconds() * 1e6, full.delivered[0].seconds() * 1e6, full.delivered[1].seconds() * 1e6,
              full.delivered[2].seconds() * 1e6, full.delivered[3].seconds() * 1e6);
  // The follower completes as its leader does, to the picosecond (its ECN draws and the order
  // of its equal-time events are its own, and here change nothing), and both as in the full
  // run, where HPCC's twins part ways by a few hundred nanoseconds.
  EXPECT_EQ(d[2], d[0]);
  EXPECT_EQ(d[3], d[1]);
  EXPECT_LT(testing::worst_fct_error(full.delivered, d), 0.001);
  const FabricCounters& c = copied.fabric->counters();
  EXPECT_EQ(c.drops, 0u);
  EXPECT_EQ(copied.fabric->packets_in_flight(), 0u);  // every copied packet was delivered and freed
  EXPECT_EQ(c.delivered_bytes, full.fabric->counters().delivered_bytes);
}

std::string cc_name(const ::testing::TestParamInfo<CcKind>& param) { return std::string(to_string(param.param)); }

INSTANTIATE_TEST_SUITE_P(Cc, FastForwardCopy, ::testing::Values(CcKind::kDcqcn, CcKind::kHpcc), cc_name);

// A copy that would not be exact is refused, says why, and changes nothing.
void expect_refused(Racks& racks, std::string_view why) {
  racks.simulator.run_until(Time::us(300));
  const Seen leader = seen(*racks.fabric, racks.leader);
  const Seen follower = seen(*racks.fabric, racks.follower);
  const std::size_t pending = racks.simulator.pending();
  FabricSkipper skipper(*racks.fabric);
  EXPECT_EQ(to_string(skipper.copy(racks.leader, racks.follower)), why);
  EXPECT_EQ(seen(*racks.fabric, racks.leader), leader);
  EXPECT_EQ(seen(*racks.fabric, racks.follower), follower);
  EXPECT_EQ(racks.simulator.pending(), pending);
}

TEST(FastForwardCopyRefused, AFasterCableOnTheFollowersRack) {
  Racks racks(testing::fast_forward_params(CcKind::kHpcc, true), 200);
  expect_refused(racks, "queue_pairs");  // the QP sending over it has another line rate
}

TEST(FastForwardCopyRefused, AThirdFlowOnOneOfTheFollowersPorts) {
  Racks racks(testing::fast_forward_params(CcKind::kHpcc, true), 100);
  racks.start(3, 6, 1'000'000'000);  // the follower's sink sends too: its NIC port serves another QP
  expect_refused(racks, "shared_port");
}

TEST(FastForwardCopyRefused, MismatchedQueuePairs) {
  Racks racks(testing::fast_forward_params(CcKind::kDcqcn, true), 100);
  racks.simulator.run_until(Time::us(300));
  FabricSkipper skipper(*racks.fabric);
  const std::vector<QpId> one{racks.follower[0]};
  EXPECT_EQ(to_string(skipper.copy(racks.leader, one)), "queue_pairs");           // another count
  EXPECT_EQ(to_string(skipper.copy(racks.leader, racks.leader)), "queue_pairs");  // onto itself
  const std::vector<QpId> overlapping{racks.follower[0], racks.leader[1]};
  EXPECT_EQ(to_string(skipper.copy(racks.leader, overlapping)), "queue_pairs");
}

}  // namespace
}  // namespace loom::network::packet
