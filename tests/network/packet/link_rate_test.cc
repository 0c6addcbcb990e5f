// Link rate changes in the packet backend: a port serialises the packets that start after a
// change at the new rate (Fabric::set_link_rate through Backend::schedule_link_rate).
#include <gtest/gtest.h>

#include <cmath>

#include "network/packet/star.h"

namespace loom::network::packet {
namespace {

using namespace time_literals;
using testing::Star;

double relative_error(Time got, Time want) {
  return std::abs(static_cast<double>(got.picoseconds() - want.picoseconds())) /
         static_cast<double>(want.picoseconds());
}

// The sender's cable (links 2 and 3 of the star: sender -> switch and back).
void slow_sender(Star& star, Time at, Bandwidth rate) {
  star.backend->schedule_link_rate(at, 2, rate);
  star.backend->schedule_link_rate(at, 3, rate);
}

// 10 MB in 1000-byte payloads: 10,000 packets of 1048 wire bytes. With the sender's cable at
// 25 Gb/s before the transfer starts, its ideal time is the first packet at 25 and at 100 Gb/s
// (335.36 + 83.84 ns), the other 9,999 packets at 25 Gb/s and the two links' 1 us:
// 10,480,000 x 8 / 25e9 s = 3353.6 us for all packets, so 3353.6 us + 83.84 ns + 2 us.
TEST(PacketLinkRate, TransfersStartedAfterTheChangeRunAtTheNewRate) {
  Star star(1, PacketParams{});
  ASSERT_TRUE(star.backend->capabilities().link_rate_changes);
  slow_sender(star, Time::zero(), Bandwidth::gbps(25));
  star.simulator.run();
  EXPECT_EQ(star.backend->fabric().link_rate(2), Bandwidth::gbps(25));
  const Time ideal = Time::ps(3'353'600'000 + 83'840 + 2'000'000);
  EXPECT_EQ(star.backend->ideal_time({star.senders[0], star.receiver, 10'000'000, 0}), ideal);
  const auto done = star.incast(10'000'000);
  EXPECT_GE(done[0], ideal);
  EXPECT_LT(relative_error(done[0], ideal), 0.01) << done[0];
  EXPECT_EQ(star.backend->fabric().counters().delivered_bytes, 10'000'000u);
}

// The sender's cable runs at 25 Gb/s in [200 us, 400 us) while a 10 MB transfer (838.4 us of
// serialisation at 100 Gb/s) is under way: its NIC sends a quarter of the bytes in the window,
// so the transfer ends 3/4 x 200 us = 150 us later than alone (2,042.4 us with 2 us latency).
TEST(PacketLinkRate, AWindowDuringATransferCostsItsLengthTimesTheRateLost) {
  Star star(1, PacketParams{});
  slow_sender(star, 200_us, Bandwidth::gbps(25));
  slow_sender(star, 400_us, Bandwidth::gbps(100));
  const Time alone = Time::ps(838'400'000 + 83'840 + 2'000'000);
  const auto done = star.incast(10'000'000);
  EXPECT_GT(done[0], alone + 149_us);
  EXPECT_LT(relative_error(done[0], alone + 150_us), 0.01) << done[0];
  EXPECT_EQ(star.backend->fabric().link_rate(2), Bandwidth::gbps(100));
  EXPECT_EQ(star.backend->fabric().counters().delivered_bytes, 10'000'000u);
}

}  // namespace
}  // namespace loom::network::packet
