// Packet fast-forward under the windowed executor (network.packet.lp_delay_threshold > 0): its
// samples, skips, skip-backs and memo replays run as global steps between windows, a skip moves
// the partition's events in every LP's queue and in the lanes' hand-overs, and the run equals
// the serial fast-forward run on 1, 2 and 4 threads: completion times, every fabric counter and
// every fast-forward statistic (skips, skip-backs, skipped packets, memo hits, events).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "network/packet/star.h"

namespace loom::network::packet {
namespace {

using testing::Star;

struct StarRun {
  std::vector<Time> done;
  std::vector<std::pair<std::string, std::uint64_t>> statistics;  // but windows.*
  std::uint64_t windows = 0;
  std::uint64_t handed_over = 0;
};

std::uint64_t value_of(const StarRun& run, const std::string& key) {
  for (const auto& [k, v] : run.statistics) {
    if (k == key) return v;
  }
  ADD_FAILURE() << "no statistic " << key;
  return 0;
}

// What happens during the incast: a late flow, a cable's rate change (when not zero).
struct Disturbances {
  bool late_flow = true;
  Time rate_change = Time::zero();
};

// Three senders into one receiver on a star (100 Gb/s, 1 us cables): senders 0 and 1 start
// 60 MB each at time zero and are skipped once steady (from 0.45 ms); with `late_flow` sender 2
// starts 20 MB at 3 ms, inside that skip (skip-back); at `rate_change` sender 1's cable drops to
// 50 Gb/s (every skip ends there). ζ = 1 ps makes every node an LP (lookahead 1 us); zero runs
// serially.
StarRun incast(CcKind cc, Time threshold, std::uint32_t threads, Disturbances disturbances = {}) {
  PacketParams params = testing::fast_forward_params(cc, true);
  params.lp_delay_threshold = threshold;
  params.threads = threads;
  Star star(3, params);
  if (threshold > Time::zero()) star.backend->use_windows();
  star.recorder.simulator = &star.simulator;
  star.recorder.done.assign(3, Time::max());
  for (std::uint32_t i = 0; i < 2; ++i) star.backend->start({star.senders[i], star.receiver, 60'000'000, i}, star.recorder, i);
  struct Late {
    Star* star;
    static void start(void* self, std::uint64_t) {
      Star& s = *static_cast<Late*>(self)->star;
      s.backend->start({s.senders[2], s.receiver, 20'000'000, 2}, s.recorder, 2);
    }
  } late{&star};
  if (disturbances.late_flow) star.simulator.schedule_at(Time::ms(3), &Late::start, &late);
  if (disturbances.rate_change > Time::zero()) {
    const topology::LinkId cable = star.topo.out_links(star.senders[1]).front();
    star.backend->schedule_link_rate(disturbances.rate_change, cable, Bandwidth::gbps(50));
  }
  star.backend->run(star.simulator);
  StarRun run{star.recorder.done, {}};
  for (const Statistic& s : star.backend->statistics()) {
    if (s.key.starts_with("windows.")) {
      if (s.key == "windows.windows") run.windows = s.value;
      if (s.key == "windows.handed_over") run.handed_over = s.value;
      continue;
    }
    run.statistics.emplace_back(s.key, s.value);
  }
  return run;
}

void expect_same(const StarRun& serial, const StarRun& windowed, const std::string& what) {
  EXPECT_EQ(windowed.done, serial.done) << what;
  EXPECT_EQ(windowed.statistics, serial.statistics) << what;
  EXPECT_GT(windowed.windows, 100u) << what;
  EXPECT_GT(windowed.handed_over, 1000u) << what;
}

TEST(FastForwardWindowed, StarIncastWithALateFlowEqualsTheSerialRunOnOneTwoAndFourThreads) {
  for (const CcKind cc : {CcKind::kDcqcn, CcKind::kHpcc}) {
    const std::string name(to_string(cc));
    const StarRun serial = incast(cc, Time::zero(), 1);
    // The run did what the test is about: skips, one ended by the late flow, and all of it
    // moved packets that the fabric's counters count.
    EXPECT_GE(value_of(serial, "fast_forward.skips"), 2u) << name;
    EXPECT_GE(value_of(serial, "fast_forward.skip_backs"), 1u) << name;
    EXPECT_GT(value_of(serial, "fast_forward.skipped_data_packets"), 10'000u) << name;
    for (const std::uint32_t threads : {1u, 2u, 4u}) {
      expect_same(serial, incast(cc, Time::ps(1), threads), name + " on " + std::to_string(threads) + " threads");
    }
  }
}

TEST(FastForwardWindowed, ALinkRateChangeInsideASkipEqualsTheSerialRun) {
  const Disturbances change{.late_flow = false, .rate_change = Time::ms(2)};
  const StarRun serial = incast(CcKind::kDcqcn, Time::zero(), 1, change);
  const StarRun unchanged = incast(CcKind::kDcqcn, Time::zero(), 1, {.late_flow = false});
  EXPECT_EQ(value_of(unchanged, "fast_forward.skip_backs"), 0u);
  EXPECT_EQ(value_of(serial, "fast_forward.skip_backs"), 1u);
  EXPECT_NE(serial.done, unchanged.done);
  for (const std::uint32_t threads : {1u, 2u}) {
    expect_same(serial, incast(CcKind::kDcqcn, Time::ps(1), threads, change), std::to_string(threads) + " threads");
  }
}

}  // namespace
}  // namespace loom::network::packet
