#include "loom/network/packet/monitor.h"

#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "packet/star.h"

namespace loom::network::packet {
namespace {

// One 10 MB flow alone: the sender's link runs at 100 Gb/s (a 10 us sample holds 119 or 120
// packets of 1048 bytes: within 1%), the bottleneck never queues more than one packet, the QP
// stays at line rate, and sampling stops by itself once the flow is done.
TEST(FabricMonitor, SamplesThroughputQueuesAndRates) {
  PacketParams p;
  testing::Star star(1, p);
  Fabric& fabric = star.backend->fabric();
  const topology::LinkId sender_link = star.topo.out_links(star.senders[0])[0];
  MonitorParams m;
  m.ports = {sender_link, star.bottleneck};
  m.qp_rates = true;
  FabricMonitor monitor(star.simulator, fabric, m);
  monitor.start();
  const auto done = star.incast(10'000'000);
  ASSERT_NE(done[0], Time::max());
  // samples every 10 us until the first one after the flow ended (its ACK came back)
  const std::size_t samples = monitor.throughput().size() / 2;
  EXPECT_EQ(samples, static_cast<std::size_t>(done[0].picoseconds() / 10'000'000) + 1);
  for (std::size_t i = 1; i + 2 < samples; ++i) {
    const ThroughputSample& s = monitor.throughput()[2 * i];
    EXPECT_EQ(s.link, sender_link);
    EXPECT_NEAR(s.bits_per_second / 100e9, 1.0, 0.01) << s.time;
  }
  for (const QueueSample& q : monitor.queues()) EXPECT_LE(q.bytes, 1048u);
  ASSERT_FALSE(monitor.qp_rates().empty());
  for (const QpRateSample& r : monitor.qp_rates()) EXPECT_DOUBLE_EQ(r.bits_per_second, 100e9);
  EXPECT_EQ(star.simulator.pending(), 0u);
}

TEST(FabricMonitor, RejectsBadParameters) {
  PacketParams p;
  testing::Star star(1, p);
  MonitorParams m;
  m.interval = Time::zero();
  EXPECT_THROW(FabricMonitor(star.simulator, star.backend->fabric(), m), UserError);
  m = MonitorParams{};
  m.ports = {999};
  try {
    FabricMonitor monitor(star.simulator, star.backend->fabric(), m);
    ADD_FAILURE() << "accepted link 999";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "packet monitor: port 999: expected a link id below 4");
  }
}

}  // namespace
}  // namespace loom::network::packet
