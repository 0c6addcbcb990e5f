// Fabric::completion_bound (fabric_completions.cc): before every instant T of a run, the
// bound it gives for the packets in the fabric is never later than the next QP delivery, unless
// that delivery comes from a packet sent later, which takes at least a path's latency (here
// 2 us: in a windowed run, a lookahead to reach another LP); and for a lone packet on an idle
// fabric it is the delivery time itself. A windowed `loom run` cuts its windows there, so a bound that is
// too late would start the runtime's reactions late (the LOOM_ASSERT in PacketBackend::start),
// and one that is too early only costs windows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "loom/network/packet/fabric.h"
#include "star.h"

namespace loom::network::packet {
namespace {

using testing::Star;

struct Deliveries final : FabricListener {
  void on_qp_delivered(QpId, std::uint64_t) override { times.push_back(simulator->now()); }
  void on_qp_acked(QpId, std::uint64_t) override {}
  const Simulator* simulator = nullptr;
  std::vector<Time> times;
};

struct Bounded {
  std::vector<std::pair<Time, parallel::ReactionBound>> bounds;  // (instant, bound before running it)
  std::vector<Time> deliveries;
};

// `senders` QPs of `bytes` each into the star's receiver, started at time zero, run instant by
// instant with the bound taken before each.
Bounded run_bounded(const PacketParams& params, std::uint32_t senders, Bytes bytes) {
  Star star(senders, params);
  Fabric fabric(star.simulator, star.topo, params);
  fabric.bound_completions();
  Deliveries deliveries;
  deliveries.simulator = &star.simulator;
  fabric.set_listener(&deliveries);
  for (std::uint32_t i = 0; i < senders; ++i) star.add_qp_to_receiver(fabric, i, bytes);
  Bounded out;
  for (Time at = star.simulator.next_event_time(); at != Time::max(); at = star.simulator.next_event_time()) {
    out.bounds.emplace_back(at, fabric.completion_bound());
    star.simulator.run_until(at);
  }
  out.deliveries = deliveries.times;
  return out;
}

// Every path of the star: two cables of 1 us.
constexpr Time kPathLatency = Time::us(2);

// Every bound is at or after its instant T, and at or before the first delivery at or after T
// when that comes before T + kPathLatency; returns how many bounds were finite.
std::size_t expect_bounds_hold(const Bounded& run, const std::string& what) {
  std::vector<Time> sorted = run.deliveries;
  std::sort(sorted.begin(), sorted.end());
  std::size_t finite = 0;
  for (const auto& [at, terms] : run.bounds) {
    const Time bound = terms.at(at);
    EXPECT_GE(bound, at) << what;
    const auto next = std::lower_bound(sorted.begin(), sorted.end(), at);
    if (next != sorted.end()) {
      EXPECT_LE(std::min(bound, at + kPathLatency), *next) << what << ": bound at " << to_string(at);
    }
    if (bound != Time::max()) ++finite;
  }
  return finite;
}

TEST(CompletionBound, ALonePacketsBoundIsItsDelivery) {
  // One 1,000-byte packet over two 100 Gb/s cables of 1 us: 2 x (80 ns + 1 us) at 48 bytes of
  // header (1,048 bytes: 83.84 ns each).
  const Bounded run = run_bounded(PacketParams{}, 1, 1'000);
  ASSERT_EQ(run.deliveries.size(), 1u);
  EXPECT_EQ(run.deliveries[0], Time::ps(2 * (83'840 + 1'000'000)));
  ASSERT_FALSE(run.bounds.empty());
  EXPECT_EQ(run.bounds.front().second.at(run.bounds.front().first), run.deliveries[0]);
  expect_bounds_hold(run, "lone packet");
}

TEST(CompletionBound, SplitsIntoQueuedAndInFlightTerms) {
  // Two senders' single 1,000-byte packets meet at the switch at 1,083.84 ns (each hop: 83.84 ns
  // of serialisation and 1 us of cable); the first leaves at once and is delivered at
  // D = 2,167.68 ns, the second queues behind it. Before the instant the first's serialisation
  // ends, the first is in flight (the `fixed` term: D, whatever the start) and the second is
  // queued with one hop left (`after_start`: 1,083.84 ns), so for a window starting at s the
  // bound is min(D, s + 1,083.84 ns): the old bound, which took the start as its argument.
  const Time hop = Time::ps(83'840 + 1'000'000);
  const Bounded run = run_bounded(PacketParams{}, 2, 1'000);
  ASSERT_EQ(run.deliveries.size(), 2u);
  const Time first = *std::min_element(run.deliveries.begin(), run.deliveries.end());
  EXPECT_EQ(first, hop + hop);
  std::size_t both = 0;
  for (const auto& [at, bound] : run.bounds) {
    if (bound.fixed == Time::max() || bound.after_start == Time::max()) continue;
    ++both;
    EXPECT_EQ(at, hop + Time::ps(83'840));
    EXPECT_EQ(bound.fixed, first);
    EXPECT_EQ(bound.after_start, hop);
    for (const Time later : {Time::zero(), Time::ns(1), Time::ns(500), Time::us(3)}) {
      EXPECT_EQ(bound.at(at + later), std::min(first, at + later + hop)) << "start " << to_string(at + later);
    }
  }
  EXPECT_EQ(both, 1u);
  // Before they meet, both are in flight: the bound is their arrival plus one hop, fixed.
  EXPECT_EQ(run.bounds.size() >= 2 ? run.bounds[1].second.after_start : Time::zero(), Time::max());
}

TEST(CompletionBound, CombinedBoundsAreTheEarliestOfEachForEveryStart) {
  // As ranks combine theirs (rank_sync.h): the bounds of a lossy incast's instants, pairwise.
  PacketParams p;
  p.sw.buffer_bytes = 400'000;
  p.link_error_rate = 0.002;
  const Bounded run = run_bounded(p, 6, 150'000);
  ASSERT_GT(run.bounds.size(), 100u);
  for (std::size_t i = 0; i + 1 < run.bounds.size(); i += 7) {
    const auto& [at, a] = run.bounds[i];
    const parallel::ReactionBound& b = run.bounds[i + 1].second;
    parallel::ReactionBound both = a;
    both.combine(b);
    for (const Time later : {Time::zero(), Time::ns(50), Time::us(3)}) {
      EXPECT_EQ(both.at(at + later), std::min(a.at(at + later), b.at(at + later))) << "at " << to_string(at);
    }
  }
}

TEST(CompletionBound, NeverLaterThanTheNextDeliveryUnderLossAndPfc) {
  for (const bool selective : {false, true}) {
    PacketParams p;
    p.sw.buffer_bytes = 400'000;  // PFC pauses the senders
    p.link_error_rate = 0.002;    // last packets are lost and sent again
    p.nic.retransmit_timeout = Time::us(50);
    p.nic.selective_repeat = selective;
    const std::string what = selective ? "selective repeat" : "go-back-N";
    const Bounded run = run_bounded(p, 6, 150'000);
    ASSERT_EQ(run.deliveries.size(), 6u) << what;
    EXPECT_GT(expect_bounds_hold(run, what), 100u) << what;
  }
}

}  // namespace
}  // namespace loom::network::packet
