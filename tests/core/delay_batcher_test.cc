#include "loom/core/delay_batcher.h"

#include <stdexcept>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace loom {
namespace {

using namespace time_literals;

// Records (time, arg) of every call; optionally adds follow-up calls or throws.
struct Recorder {
  Simulator* simulator = nullptr;
  DelayBatcher* batcher = nullptr;
  std::vector<std::pair<Time, std::uint64_t>> calls;
  std::uint64_t follow_up_of = ~0ull;  // arg whose call adds arg + 1000 with delay zero
  std::uint64_t throw_on = ~0ull;

  static void call(void* self, std::uint64_t arg) {
    auto* r = static_cast<Recorder*>(self);
    r->calls.emplace_back(r->simulator->now(), arg);
    if (arg == r->throw_on) throw std::runtime_error("call failed");
    if (arg == r->follow_up_of) r->batcher->add(Time::zero(), arg + 1000);
  }
};

struct Fixture {
  Simulator simulator;
  Recorder recorder;
  DelayBatcher batcher{simulator, &Recorder::call, &recorder};
  Fixture() {
    recorder.simulator = &simulator;
    recorder.batcher = &batcher;
  }
};

TEST(DelayBatcherTest, CallsRunAtNowPlusDelayInTimeOrder) {
  Fixture f;
  f.batcher.add(5_ns, 1);
  f.batcher.add(2_ns, 2);
  f.batcher.add(5_ns, 3);
  // Added later, with a delay already seen: due after the earlier calls of that delay.
  f.simulator.schedule_at(1_ns, [](void* self, std::uint64_t) {
    static_cast<Fixture*>(self)->batcher.add(2_ns, 4);
  }, &f);
  f.simulator.run();
  const std::vector<std::pair<Time, std::uint64_t>> expected{{2_ns, 2}, {3_ns, 4}, {5_ns, 1}, {5_ns, 3}};
  EXPECT_EQ(f.recorder.calls, expected);
  EXPECT_EQ(f.batcher.waiting(), 0u);
}

TEST(DelayBatcherTest, CallsDueTogetherShareOneEvent) {
  Fixture f;
  for (std::uint64_t i = 0; i < 8; ++i) f.batcher.add(7_us, i);
  EXPECT_EQ(f.batcher.waiting(), 8u);
  EXPECT_EQ(f.simulator.pending(), 1u);
  f.simulator.run();
  EXPECT_EQ(f.simulator.events_processed(), 1u);
  ASSERT_EQ(f.recorder.calls.size(), 8u);
  for (std::uint64_t i = 0; i < 8; ++i) EXPECT_EQ(f.recorder.calls[i], std::make_pair(7_us, i));
}

TEST(DelayBatcherTest, NextInBatchNamesTheFollowingCallOfTheSameInstant) {
  struct Peeker {
    Simulator simulator;
    DelayBatcher batcher{simulator, &Peeker::call, this};
    std::vector<std::uint64_t> seen;  // per call: the next arg, or 99 when none
    static void call(void* self, std::uint64_t) {
      auto* p = static_cast<Peeker*>(self);
      std::uint64_t next = 0;
      p->seen.push_back(p->batcher.next_in_batch(next) ? next : 99);
    }
  } peeker;
  peeker.batcher.add(2_ns, 1);
  peeker.batcher.add(2_ns, 2);
  peeker.simulator.schedule_at(1_ns, [](void* self, std::uint64_t) {
    static_cast<Peeker*>(self)->batcher.add(2_ns, 3);  // due at 3 ns: not in the first batch
  }, &peeker);
  std::uint64_t none = 0;
  EXPECT_FALSE(peeker.batcher.next_in_batch(none));  // outside a batch
  peeker.simulator.run();
  EXPECT_EQ(peeker.seen, (std::vector<std::uint64_t>{2, 99, 99}));
}

TEST(DelayBatcherTest, ZeroDelayCallAddedByACallJoinsTheRunningBatch) {
  Fixture f;
  f.recorder.follow_up_of = 1;
  f.batcher.add(Time::zero(), 1);
  f.batcher.add(Time::zero(), 2);
  f.simulator.run();
  const std::vector<std::pair<Time, std::uint64_t>> expected{{0_ns, 1}, {0_ns, 2}, {0_ns, 1001}};
  EXPECT_EQ(f.recorder.calls, expected);
  EXPECT_EQ(f.simulator.events_processed(), 1u);
}

TEST(DelayBatcherTest, DelaysBeyondTheFifosFallBackToTheirOwnEvents) {
  Fixture f;
  const std::size_t delays = DelayBatcher::kMaxLines + 4;
  for (std::size_t d = delays; d >= 1; --d) f.batcher.add(Time::ns(static_cast<std::int64_t>(d)), d);
  EXPECT_EQ(f.batcher.waiting(), DelayBatcher::kMaxLines);
  f.simulator.run();
  ASSERT_EQ(f.recorder.calls.size(), delays);
  for (std::size_t d = 1; d <= delays; ++d) {
    EXPECT_EQ(f.recorder.calls[d - 1], std::make_pair(Time::ns(static_cast<std::int64_t>(d)), std::uint64_t{d}));
  }
}

TEST(DelayBatcherTest, AnEmptyFifoServesANewDelay) {
  Fixture f;
  for (std::size_t d = 1; d <= DelayBatcher::kMaxLines; ++d) f.batcher.add(Time::ns(static_cast<std::int64_t>(d)), d);
  f.simulator.run();
  // Every FIFO has run empty: further delays are batched again.
  for (std::uint64_t i = 0; i < 4; ++i) f.batcher.add(100_ns, 100 + i);
  EXPECT_EQ(f.batcher.waiting(), 4u);
  EXPECT_EQ(f.simulator.pending(), 1u);
  f.simulator.run();
  EXPECT_EQ(f.recorder.calls.back(), std::make_pair(Time::ns(static_cast<std::int64_t>(DelayBatcher::kMaxLines) + 100), std::uint64_t{103}));
}

TEST(DelayBatcherTest, FifoGrowsAcrossItsWrapAroundWithoutLosingOrder) {
  // A call at every nanosecond, each due 40 ns later: the FIFO wraps and grows while full.
  struct Driver {
    Fixture f;
    std::uint64_t next = 0;
    static void tick(void* self, std::uint64_t) {
      auto* d = static_cast<Driver*>(self);
      d->f.batcher.add(40_ns, d->next++);
      if (d->next < 100) d->f.simulator.schedule_in(1_ns, &Driver::tick, d);
    }
  } driver;
  driver.f.simulator.schedule_at(Time::zero(), &Driver::tick, &driver);
  driver.f.simulator.run();
  ASSERT_EQ(driver.f.recorder.calls.size(), 100u);
  for (std::uint64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(driver.f.recorder.calls[i], std::make_pair(Time::ns(static_cast<std::int64_t>(i) + 40), i));
  }
}

TEST(DelayBatcherTest, ACallThatThrowsLeavesTheRestDue) {
  Fixture f;
  f.recorder.throw_on = 2;
  for (std::uint64_t i = 1; i <= 3; ++i) f.batcher.add(3_ns, i);
  f.batcher.add(3_ns, 4);
  EXPECT_THROW(f.simulator.run(), std::runtime_error);
  f.simulator.run();
  const std::vector<std::pair<Time, std::uint64_t>> expected{{3_ns, 1}, {3_ns, 2}, {3_ns, 3}, {3_ns, 4}};
  EXPECT_EQ(f.recorder.calls, expected);
  // The line is idle again and takes new calls.
  f.batcher.add(1_ns, 5);
  f.simulator.run();
  EXPECT_EQ(f.recorder.calls.back(), std::make_pair(4_ns, std::uint64_t{5}));
}

}  // namespace
}  // namespace loom
