// The window profile of a packet run: windows, packets handed between LPs and the span on P
// threads, against counts the fabric keeps and bounds that hold for any run.
#include "loom/network/packet/parallel/window_profiler.h"

#include <gtest/gtest.h>

#include <array>

#include "network/packet/star.h"

namespace loom::network::packet::parallel {
namespace {

using testing::Star;

constexpr std::array<std::uint32_t, 3> kThreads = {1, 2, 4};

// A 4-to-1 incast on the star (1 us cables), rate-only senders into a small buffer with PFC on:
// PAUSE frames cross LPs too.
PacketParams storm() {
  PacketParams p;
  p.nic.window = false;
  p.sw.buffer_bytes = 1'000'000;
  return p;
}

struct ProfiledIncast {
  explicit ProfiledIncast(Time threshold) : star(4, storm()), partition(partition_by_delay(star.topo, threshold)) {
    WindowProfiler profiler(star.simulator, star.backend->fabric(), partition);
    star.incast(2'000'000);
    profile = profiler.finish(kThreads);
  }
  Star star;
  LpPartition partition;
  WindowProfile profile;
};

TEST(WindowProfiler, EveryNodeAloneHandsEveryHopAndPfcFrameBetweenLps) {
  const ProfiledIncast run(Time::zero());
  const FabricCounters& c = run.star.backend->fabric().counters();
  const WindowProfile& p = run.profile;
  EXPECT_EQ(p.lps, 6u);
  EXPECT_EQ(p.lookahead, Time::us(1));
  EXPECT_EQ(p.events, run.star.simulator.events_processed());
  // Each data packet and each ACK crosses two cables (GPU-switch, switch-GPU); each PAUSE or
  // RESUME one.
  ASSERT_GT(c.pauses, 0u);
  EXPECT_EQ(p.cross_lp, c.data_packet_hops + 2 * c.control_packets + c.pauses + c.resumes);
  // Windows open at events and last one lookahead: at most one per microsecond of the run. The
  // receiver's cable is busy for 4 x 2 MB at 100 Gb/s = 640 us with a packet every 80 ns, so
  // no microsecond of those is without events: at least 640 windows.
  const Time last = run.star.simulator.now();
  EXPECT_LE(p.windows, static_cast<std::uint64_t>(last.picoseconds() / Time::us(1).picoseconds()) + 1);
  EXPECT_GE(p.windows, 640u);
  // One thread runs everything; more threads never do more than all nor less than their share.
  ASSERT_EQ(p.splits.size(), 3u);
  for (const Placement& one : {p.splits[0].balanced, p.splits[0].round_robin}) {
    EXPECT_EQ(one.span, p.events);
    EXPECT_DOUBLE_EQ(one.imbalance, 1.0);
  }
  for (const ThreadSplit& s : p.splits) {
    for (const Placement& placed : {s.balanced, s.round_robin}) {
      EXPECT_LE(placed.span, p.events);
      EXPECT_GE(placed.span * s.threads, p.events);
      EXPECT_GE(placed.imbalance, 1.0);
    }
    // Here (6 LPs) longest-processing-time first balances at least as well as round robin.
    EXPECT_LE(s.balanced.imbalance, s.round_robin.imbalance + 1e-12) << s.threads;
  }
  EXPECT_LT(p.splits[1].balanced.span, p.events);  // the switch and the GPUs do work side by side
  EXPECT_GT(p.serial, 0u);                // the transfers' starts belong to no LP
}

TEST(WindowProfiler, OneLpIsOneWindowWithNothingToHandOver) {
  const ProfiledIncast run(Time::us(2));
  const WindowProfile& p = run.profile;
  EXPECT_EQ(p.lps, 1u);
  EXPECT_EQ(p.windows, 1u);
  EXPECT_EQ(p.cross_lp, 0u);
  for (const ThreadSplit& s : p.splits) EXPECT_EQ(s.balanced.span, p.events);  // nothing to share out
}

TEST(WindowProfiler, ProfilingChangesNothingInTheRun) {
  Star plain(4, storm());
  const std::vector<Time> done = plain.incast(2'000'000);
  const ProfiledIncast run(Time::zero());
  EXPECT_EQ(run.star.recorder.done, done);
  EXPECT_EQ(run.star.simulator.events_processed(), plain.simulator.events_processed());
}

}  // namespace
}  // namespace loom::network::packet::parallel
