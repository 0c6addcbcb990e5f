// Twins: a batch of identical partitions beginning at the same instant (k disjoint 2-to-1
// incasts on one star) simulates one and has the others follow it; their completion times
// are those of simulating each (fast-forward without twins) and of the full run, and a flow
// arriving on a follower mid-transient releases it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "loom/core/error.h"
#include "network/packet/star.h"

namespace loom::network::packet {
namespace {

using testing::Outcome;
using testing::Star;

PacketParams twin_params(CcKind cc, bool fast_forward, bool twins) {
  PacketParams p = testing::fast_forward_params(cc, fast_forward);
  p.fast_forward.twins = twins;
  return p;
}

// `batch` 2-to-1 incasts at time zero: senders 3j + 1 (`bytes`) and 3j + 2 (`second` bytes)
// into sender 3j (disjoint ports). With `late` > 0, one more flow of bytes / 4 from the
// receiver into sender 3 (incast 1's sink) at `late`.
Outcome batch_run(const PacketParams& params, std::uint32_t batch, Bytes bytes, Bytes second, Time late) {
  Star star(3 * batch + 1, params);
  const std::uint32_t flows = 2 * batch + (late > Time::zero() ? 1 : 0);
  star.recorder.simulator = &star.simulator;
  star.recorder.done.assign(flows, Time::max());
  for (std::uint32_t j = 0; j < batch; ++j) {
    for (std::uint32_t f = 0; f < 2; ++f) {
      star.backend->start({star.senders[3 * j + 1 + f], star.senders[3 * j], f == 0 ? bytes : second, 2 * j + f}, star.recorder,
                          2 * j + f);
    }
  }
  struct Late {
    Star* star;
    Bytes bytes;
    std::uint64_t cookie;
    static void start(void* self, std::uint64_t) {
      const Late& l = *static_cast<Late*>(self);
      l.star->backend->start({l.star->receiver, l.star->senders[3], l.bytes, l.cookie}, l.star->recorder, l.cookie);
    }
  } joiner{&star, bytes / 4, 2 * batch};
  if (late > Time::zero()) star.simulator.schedule_at(late, &Late::start, &joiner);
  star.simulator.run();
  star.backend->finish();
  Outcome out;
  out.done = star.recorder.done;
  out.events = star.simulator.events_processed();
  if (const auto* ff = star.backend->fast_forward()) out.counters = ff->counters();
  return out;
}

// Followers whose copy was refused, for any reason.
std::uint64_t refused(const Outcome& run) {
  return std::accumulate(run.counters.twins_refused.begin(), run.counters.twins_refused.end(), std::uint64_t{0});
}

// The full run, fast-forward simulating each partition, and fast-forward with twins.
struct Runs {
  Outcome full, each, twins;
};

Runs three_runs(const char* label, CcKind cc, Time late = Time::zero(), Bytes second = 50'000'000) {
  constexpr Bytes kBytes = 50'000'000;
  Runs r{batch_run(twin_params(cc, false, false), 4, kBytes, second, late), batch_run(twin_params(cc, true, false), 4, kBytes, second, late),
         batch_run(twin_params(cc, true, true), 4, kBytes, second, late)};
  std::printf("%s %s: worst FCT error twins vs each %.4f%%, vs full %.4f%% (each vs full %.4f%%); events %llu -> %llu -> %llu; "
              "twins followed %llu, replayed %llu, released %llu, copied %llu, refused %llu\n",
              label, std::string(to_string(cc)).c_str(), 100 * testing::worst_fct_error(r.each.done, r.twins.done),
              100 * testing::worst_fct_error(r.full.done, r.twins.done), 100 * testing::worst_fct_error(r.full.done, r.each.done),
              static_cast<unsigned long long>(r.full.events), static_cast<unsigned long long>(r.each.events),
              static_cast<unsigned long long>(r.twins.events), static_cast<unsigned long long>(r.twins.counters.twins_followed),
              static_cast<unsigned long long>(r.twins.counters.twins_replayed),
              static_cast<unsigned long long>(r.twins.counters.twins_released),
              static_cast<unsigned long long>(r.twins.counters.twins_copied), static_cast<unsigned long long>(refused(r.twins)));
  return r;
}


TEST(FastForwardTwins, ABatchOfIdenticalPartitionsFollowsOneAsIfEachWereSimulated) {
  const auto [full, each, twins] = three_runs("4 x 2-to-1", CcKind::kDcqcn);
  EXPECT_EQ(twins.counters.twins_followed, 3u);
  EXPECT_EQ(twins.counters.twins_replayed, 3u);
  EXPECT_EQ(twins.counters.twins_copied, 3u);  // each an exact copy of its leader
  EXPECT_EQ(each.counters.twins_followed, 0u);
  EXPECT_LT(testing::worst_fct_error(each.done, twins.done), 0.0005);
  EXPECT_LT(testing::worst_fct_error(full.done, twins.done), 0.005);
  EXPECT_LT(static_cast<double>(twins.events), 0.5 * static_cast<double>(each.events));
}

// HPCC's simultaneous incasts on one star part ways within the first sample (the order of
// equal-time events differs by port), so none is parked: the run is the one without twins.
TEST(FastForwardTwins, PartitionsThatPartedWaysAreNotFollowed) {
  const auto [full, each, twins] = three_runs("4 x 2-to-1", CcKind::kHpcc);
  EXPECT_EQ(twins.counters.twins_followed, 0u);
  EXPECT_EQ(twins.done, each.done);
  EXPECT_EQ(twins.events, each.events);
}

TEST(FastForwardTwins, AFlowJoiningAFollowerReleasesItWithItsLeadersProgress) {
  // Inside the transient: before the first window (8 samples, 400 us) fills.
  const auto [full, each, twins] = three_runs("4 x 2-to-1, a flow joins incast 1 at 200 us", CcKind::kDcqcn, Time::us(200));
  EXPECT_GE(twins.counters.twins_released, 1u);
  EXPECT_GE(twins.counters.twins_replayed, 1u);
  EXPECT_LT(testing::worst_fct_error(full.done, twins.done), 0.005);
}

// Each incast's second flow (2 MB) ends at about 320 us, before the 8-sample window (400 us)
// fills: the leader's transient is cut by its own QP's end. Its followers are released with a
// copy a sample or two before that end (near_end), while the leader's QPs all still run;
// released after it, the copy would be refused (queue_pairs: a QP of the leader has ended)
// and each follower would go on from its own park-time state.
TEST(FastForwardTwins, FollowersOfALeaderAboutToEndAreCopiedBeforeItEnds) {
  const auto [full, each, twins] = three_runs("4 x 2-to-1, 50 MB and 2 MB", CcKind::kDcqcn, Time::zero(), 2'000'000);
  EXPECT_GE(twins.counters.twins_followed, 3u);
  EXPECT_EQ(twins.counters.twins_copied, twins.counters.twins_followed);
  EXPECT_EQ(refused(twins), 0u);
  EXPECT_GE(twins.counters.twins_released, 3u);  // at the cut, before the short flows end
  EXPECT_LT(testing::worst_fct_error(each.done, twins.done), 0.0005);
  EXPECT_LT(testing::worst_fct_error(full.done, twins.done), 0.005);
  EXPECT_LT(twins.events, each.events);
}

// The copy reads and rewrites the serial simulator's queue: with the windowed executor the
// configuration is refused, naming both keys.
TEST(FastForwardTwins, AreRefusedWithTheWindowedExecutor) {
  PacketParams p = twin_params(CcKind::kHpcc, true, true);
  p.lp_delay_threshold = Time::ns(500);
  try {
    check_packet_params(p);
    ADD_FAILURE() << "twins with lp_delay_threshold > 0 accepted";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("fast_forward.twins = true"), std::string::npos) << message;
    EXPECT_NE(message.find("lp_delay_threshold > 0"), std::string::npos) << message;
  }
  p.lp_delay_threshold = Time::zero();
  EXPECT_NO_THROW(check_packet_params(p));
}

TEST(FastForwardTwins, NeedTheMemo) {
  PacketParams p = twin_params(CcKind::kHpcc, true, true);
  p.fast_forward.memo = false;
  p.fast_forward.whole_life = false;
  EXPECT_THROW(check_packet_params(p), UserError);
}

}  // namespace
}  // namespace loom::network::packet
