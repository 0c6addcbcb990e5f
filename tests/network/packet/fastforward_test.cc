// Packet fast-forward against the full packet run: a long single flow and N-to-1 incasts under
// DCQCN and HPCC finish within 0.5% of the full run's times with far fewer events; a flow
// arriving inside a skipped span ends the skip (skip-back) and the times still agree; a run
// with fast-forward off is the full run, event for event.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "loom/core/error.h"
#include "network/packet/star.h"

namespace loom::network::packet {
namespace {

using testing::Outcome;
using testing::Star;

PacketParams params_for(CcKind cc, bool fast_forward, double threshold) {
  PacketParams p = testing::fast_forward_params(cc, fast_forward);
  p.fast_forward.threshold = threshold;
  return p;
}

Outcome incast(CcKind cc, std::uint32_t senders, Bytes bytes, bool fast_forward, double threshold = 0.05) {
  Star star(senders, params_for(cc, fast_forward, threshold));
  Outcome out;
  out.done = star.incast(bytes);
  out.events = star.simulator.events_processed();
  if (const auto* ff = star.backend->fast_forward()) out.counters = ff->counters();
  return out;
}

double worst_error(const Outcome& full, const Outcome& fast) { return testing::worst_fct_error(full.done, fast.done); }

struct Case {
  CcKind cc;
  std::uint32_t senders;
  Bytes bytes;
  double min_event_ratio;
  double threshold = 0.05;
};

class FastForwardAgrees : public ::testing::TestWithParam<Case> {};

TEST_P(FastForwardAgrees, WithTheFullPacketRun) {
  const Case c = GetParam();
  const Outcome full = incast(c.cc, c.senders, c.bytes, false);
  const Outcome fast = incast(c.cc, c.senders, c.bytes, true, c.threshold);
  const double ratio = static_cast<double>(full.events) / static_cast<double>(fast.events);
  std::printf("%s %u x %llu B: worst FCT error %.4f%%, events %llu -> %llu (%.1fx), skips %llu, skipped %.3f ms\n",
              std::string(to_string(c.cc)).c_str(), c.senders, static_cast<unsigned long long>(c.bytes),
              100 * worst_error(full, fast), static_cast<unsigned long long>(full.events),
              static_cast<unsigned long long>(fast.events), ratio,
              static_cast<unsigned long long>(fast.counters.skips), fast.counters.skipped_ps * 1e-9);
  EXPECT_GE(fast.counters.skips, 1u);
  EXPECT_LT(worst_error(full, fast), 0.005);
  EXPECT_GE(ratio, c.min_event_ratio);
}

INSTANTIATE_TEST_SUITE_P(Cases, FastForwardAgrees,
                         ::testing::Values(Case{CcKind::kDcqcn, 1, 400'000'000, 20},
                                           Case{CcKind::kHpcc, 1, 400'000'000, 20},
                                           Case{CcKind::kDcqcn, 8, 50'000'000, 5},
                                           Case{CcKind::kHpcc, 2, 50'000'000, 5}));

// HPCC 8-to-1 and 4-to-1: the flows' rates wander (README: HPCC as ns-3 runs it) by more
// than theta = 5% over the 1 ms window, or drift from one half of it to the other, so they are
// not skipped (with the trend test off, 4-to-1 was skipped and erred by 0.87%).
TEST(FastForward, HpccIncastsWhoseFlowsWanderAreNotSkipped) {
  for (const std::uint32_t senders : {4u, 8u}) {
    const Outcome full = incast(CcKind::kHpcc, senders, 20'000'000, false);
    const Outcome fast = incast(CcKind::kHpcc, senders, 20'000'000, true);
    EXPECT_EQ(fast.counters.skips, 0u) << senders;
    EXPECT_EQ(fast.done, full.done) << senders;
  }
}

// Sender 0 runs alone and is skipped; sender 1 starts on the same bottleneck inside the
// skipped span, which ends the skip there (skip-back); both then share the link.
Outcome late_arrival(CcKind cc, bool fast_forward) {
  Star star(2, params_for(cc, fast_forward, 0.05));
  star.recorder.simulator = &star.simulator;
  star.recorder.done.assign(2, Time::max());
  star.backend->start({star.senders[0], star.receiver, 100'000'000, 0}, star.recorder, 0);
  struct Late {
    Star* star;
    static void start(void* self, std::uint64_t) {
      Star& s = *static_cast<Late*>(self)->star;
      s.backend->start({s.senders[1], s.receiver, 20'000'000, 1}, s.recorder, 1);
    }
  } late{&star};
  star.simulator.schedule_at(Time::ms(3), &Late::start, &late);
  star.simulator.run();
  Outcome out;
  out.done = star.recorder.done;
  out.events = star.simulator.events_processed();
  if (const auto* ff = star.backend->fast_forward()) out.counters = ff->counters();
  return out;
}

TEST(FastForward, AFlowArrivingInsideASkipEndsItThere) {
  for (const CcKind cc : {CcKind::kDcqcn, CcKind::kHpcc}) {
    const Outcome full = late_arrival(cc, false);
    const Outcome fast = late_arrival(cc, true);
    std::printf("%s late arrival: worst FCT error %.4f%%, events %llu -> %llu, skips %llu, skip-backs %llu\n",
                std::string(to_string(cc)).c_str(), 100 * worst_error(full, fast),
                static_cast<unsigned long long>(full.events), static_cast<unsigned long long>(fast.events),
                static_cast<unsigned long long>(fast.counters.skips),
                static_cast<unsigned long long>(fast.counters.skip_backs));
    EXPECT_GE(fast.counters.skip_backs, 1u) << to_string(cc);
    // HPCC: the late flow's share while both run is frozen 1.7% below the full run's, which
    // keeps converging slowly (0.84% on its FCT): within theta, Wormhole's bound, not 0.5%.
    EXPECT_LT(worst_error(full, fast), cc == CcKind::kHpcc ? 0.05 : 0.005) << to_string(cc);
    EXPECT_LT(fast.events * 2, full.events) << to_string(cc);
  }
}

// Off, the fast-forward keys change nothing: same completion times, same event count.
TEST(FastForward, OffIsTheFullRunEventForEvent) {
  PacketParams tuned = params_for(CcKind::kDcqcn, false, 0.2);
  tuned.fast_forward.window = 3;
  tuned.fast_forward.interval = Time::us(5);
  Star plain(4, params_for(CcKind::kDcqcn, false, 0.05));
  Star off(4, tuned);
  EXPECT_EQ(plain.incast(2'000'000), off.incast(2'000'000));
  EXPECT_EQ(plain.simulator.events_processed(), off.simulator.events_processed());
  EXPECT_EQ(off.backend->fast_forward(), nullptr);
  EXPECT_EQ(plain.backend->statistics().size(), off.backend->statistics().size());
}

// Unless set, the sampling interval is the time the scale-out line rate takes to carry 625 KB;
// a run takes it from its GPU-to-switch (or NIC-to-switch) cables, and DCQCN's window of one
// increase-timer period follows it.
TEST(FastForward, SamplesEvery625KilobytesOfLineRateUnlessSet) {
  using fastforward::sampling_interval;
  fastforward::FastForwardParams p;
  EXPECT_EQ(sampling_interval(p, 100e9), Time::us(50));
  EXPECT_EQ(sampling_interval(p, 400e9), Time::ns(12500));
  EXPECT_EQ(sampling_interval(p, 0), Time::us(50));
  p.interval = Time::us(20);
  EXPECT_EQ(sampling_interval(p, 400e9), Time::us(20));
  Star star(2, params_for(CcKind::kDcqcn, true, 0.05));
  std::uint64_t interval = 0;
  std::uint64_t window = 0;
  for (const Statistic& s : star.backend->fast_forward()->statistics(0)) {
    if (s.key == "fast_forward.interval_ps") interval = s.value;
    if (s.key == "fast_forward.window_samples") window = s.value;
  }
  EXPECT_EQ(interval, 50'000'000u);  // the star's 100 Gb/s cables
  EXPECT_EQ(window, 19u);            // 900 us / 50 us + 1
}

// Packet spraying is refused with fast-forward, naming both keys.
TEST(FastForward, RefusesPacketSpraying) {
  PacketParams p = params_for(CcKind::kDcqcn, true, 0.05);
  p.packet_spraying = true;
  try {
    Star star(1, p);
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("packet_spraying"), std::string::npos);
  }
}

}  // namespace
}  // namespace loom::network::packet
