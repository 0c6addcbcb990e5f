// Why QPs are not skipped: fast-forward counts the bytes of QPs that finished without their
// window ever filling, split into those that lived less than one window and those whose
// partition kept changing (every start or finish on a shared port empties the windows).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "network/packet/star.h"

namespace loom::network::packet {
namespace {

using testing::Star;

PacketParams hpcc_fast_forward() {
  PacketParams p;
  p.cc.kind = CcKind::kHpcc;
  p.fast_forward.enabled = true;  // 50 us samples at 100 Gb/s, 20 of them: a 1 ms window
  return p;
}

TEST(FastForwardUnjudged, FlowsShorterThanAWindowAreCountedAsShort) {
  Star star(2, hpcc_fast_forward());
  star.incast(500'000);  // 80 us at half the line rate
  const auto& c = star.backend->fast_forward()->counters();
  EXPECT_EQ(c.finished_bytes, 1'000'000u);
  EXPECT_EQ(c.unjudged_short_bytes, 1'000'000u);
  EXPECT_EQ(c.unjudged_disturbed_bytes, 0u);
  EXPECT_EQ(c.skips, 0u);
}

// A 20 MB flow alone is judged and skipped; with a 50 kB flow joining its bottleneck every
// 300 us (each start and finish empties its window), it never is, and counts as disturbed.
TEST(FastForwardUnjudged, AFlowWhosePartitionKeepsChangingIsCountedAsDisturbed) {
  for (const std::uint32_t short_flows : {0u, 20u}) {
    Star star(2, hpcc_fast_forward());
    star.recorder.simulator = &star.simulator;
    star.recorder.done.assign(short_flows + 1, Time::max());
    star.backend->start({star.senders[0], star.receiver, 20'000'000, 0}, star.recorder, 0);
    struct Short {
      Star* star;
      std::uint64_t cookie;
      static void start(void* self, std::uint64_t) {
        const Short& s = *static_cast<Short*>(self);
        s.star->backend->start({s.star->senders[1], s.star->receiver, 50'000, s.cookie}, s.star->recorder, s.cookie);
      }
    };
    std::vector<Short> shorts;
    for (std::uint64_t k = 1; k <= short_flows; ++k) shorts.push_back({&star, k});
    for (Short& s : shorts) star.simulator.schedule_at(Time::us(300) * static_cast<std::int64_t>(s.cookie), &Short::start, &s);
    star.simulator.run();
    const auto& c = star.backend->fast_forward()->counters();
    EXPECT_EQ(c.finished_bytes, 20'000'000u + 50'000u * short_flows);
    EXPECT_EQ(c.unjudged_short_bytes, 50'000u * short_flows);
    if (short_flows == 0) {
      EXPECT_EQ(c.unjudged_disturbed_bytes, 0u);
      EXPECT_GE(c.skips, 1u);
    } else {
      EXPECT_EQ(c.unjudged_disturbed_bytes, 20'000'000u);
      EXPECT_EQ(c.skips, 0u);
    }
  }
}

}  // namespace
}  // namespace loom::network::packet
