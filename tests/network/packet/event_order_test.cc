// Results must not depend on the order in which simultaneous causes ran, only on what they
// were: what a parallel run over logical processes needs (each process schedules its own
// events; packets from other processes join at window boundaries). Here the same transfers are
// started in two orders at the same instant, so every equal-time tie downstream (arrivals of
// the first packets at the switch, their queueing, ECN marks, PFC frames, link-error draws) is
// scheduled in another order; completion times and counters must be identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "network/packet/star.h"

namespace loom::network::packet {
namespace {

using testing::Star;

struct Outcome {
  std::vector<Time> done;  // by sender
  FabricCounters counters;
  std::size_t pfc_events = 0;
};

Outcome incast(const PacketParams& params, bool reversed) {
  constexpr std::uint32_t kSenders = 6;
  Star star(kSenders, params);
  star.recorder.simulator = &star.simulator;
  star.recorder.done.assign(kSenders, Time::max());
  std::vector<std::uint32_t> order(kSenders);
  std::iota(order.begin(), order.end(), 0u);
  if (reversed) std::reverse(order.begin(), order.end());
  star.backend->fabric().record_pfc_events(true);
  for (const std::uint32_t i : order) {
    star.backend->start({star.senders[i], star.receiver, 300'000 + 1'000 * Bytes{i}, i}, star.recorder, i);
  }
  star.simulator.run();
  const Fabric& fabric = star.backend->fabric();
  return Outcome{star.recorder.done, fabric.counters(), fabric.pfc_events().size()};
}

void expect_same(const Outcome& a, const Outcome& b, const char* what) {
  EXPECT_EQ(a.done, b.done) << what;
  EXPECT_EQ(a.counters.data_packets, b.counters.data_packets) << what;
  EXPECT_EQ(a.counters.ecn_marks, b.counters.ecn_marks) << what;
  EXPECT_EQ(a.counters.cnps, b.counters.cnps) << what;
  EXPECT_EQ(a.counters.drops, b.counters.drops) << what;
  EXPECT_EQ(a.counters.pauses, b.counters.pauses) << what;
  EXPECT_EQ(a.counters.retransmitted_bytes, b.counters.retransmitted_bytes) << what;
  EXPECT_EQ(a.pfc_events, b.pfc_events) << what;
}

TEST(PacketEventOrder, StartOrderOfSimultaneousTransfersDoesNotChangeResults) {
  for (const CcKind cc : {CcKind::kDcqcn, CcKind::kHpcc, CcKind::kTimely, CcKind::kDctcp, CcKind::kNone}) {
    PacketParams p;
    p.cc.kind = cc;
    p.sw.buffer_bytes = 300'000;  // PFC pauses the senders
    p.sw.ecn_table = {EcnSetting{Bandwidth::gbps(100), 5'000, 50'000, 0.5}};
    p.link_error_rate = 0.002;  // go-back-N resends
    const Outcome forward = incast(p, false);
    const Outcome reversed = incast(p, true);
    const std::string name(to_string(cc));
    for (const Time t : forward.done) ASSERT_NE(t, Time::max()) << name;
    EXPECT_GT(forward.counters.drops, 0u) << name;
    if (cc != CcKind::kNone) {
      EXPECT_GT(forward.counters.ecn_marks, 0u) << name;
    }
    expect_same(forward, reversed, name.c_str());
  }
  // PFC storms without congestion control: pauses, no marks needed.
  PacketParams p;
  p.cc.kind = CcKind::kNone;
  p.nic.window = false;
  p.sw.buffer_bytes = 400'000;
  const Outcome forward = incast(p, false);
  EXPECT_GT(forward.counters.pauses, 10u);
  expect_same(forward, incast(p, true), "pfc");
}

}  // namespace
}  // namespace loom::network::packet
