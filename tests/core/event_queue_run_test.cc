// The event queue's bottom level: level-1 buckets become sorted runs (event_queue.h, "The
// run"). Written-out interleavings, then a differential test against a std::map.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "loom/core/event_queue.h"
#include "loom/core/random.h"
#include "core/event_queue_support.h"

namespace loom {
namespace {

using ::testing::ElementsAre;

using testing_support::drain;
using testing_support::noop;

// The bottom level: a level-1 bucket (keys within one 256 ps window) becomes a sorted run,
// and later pushes into that window go to level-0 buckets or `current`. Written out: three
// keys of one window scheduled in reverse, then a push between them and one at the floor once
// the run is being consumed; ties keep scheduling order across the run and the buckets.
TEST(EventQueue, RunAndLaterPushesIntoItsWindowInterleaveByTimeThenScheduling) {
  EventQueue q;
  q.push(Time::ps(1030), noop, nullptr, 1);
  q.push(Time::ps(1020), noop, nullptr, 2);
  q.push(Time::ps(1010), noop, nullptr, 3);
  q.push(Time::ps(1020), noop, nullptr, 4);
  q.push(Time::ps(1300), noop, nullptr, 5);  // the next window
  EXPECT_EQ(q.pop().arg, 3u);                // floor 1010: the run is 1010, 1020, 1020, 1030
  q.push(Time::ps(1020), noop, nullptr, 6);  // into the window, a level-0 bucket: after 2 and 4
  q.push(Time::ps(1015), noop, nullptr, 7);  // before the run's next key
  q.push(Time::ps(1010), noop, nullptr, 8);  // at the floor
  EventQueue::Fired next{};
  ASSERT_TRUE(q.peek(next));
  EXPECT_EQ(next.arg, 8u);
  EXPECT_EQ(q.pop().arg, 8u);
  ASSERT_TRUE(q.peek(next));
  EXPECT_EQ(next.arg, 7u);
  EXPECT_EQ(q.next_time(), Time::ps(1015));
  EXPECT_THAT(drain(q), ElementsAre(7, 2, 4, 6, 1, 5));
}

// Differential test concentrated on the bottom levels: keys within a few hundred ps or up to
// 140 ns of the floor (runs sorted by insertion and, above 16 entries, by counting sort;
// level-0 buckets beside them), with ties, cancellations of entries in the run, reschedules and pop_due with
// limits inside the window (the floor must not move past the limit).
TEST(EventQueue, RunsMatchReferenceUnderDenseRandomOperations) {
  EventQueue q;
  std::map<std::pair<std::int64_t, std::uint64_t>, std::uint64_t> reference;  // -> arg
  std::vector<std::pair<EventId, std::pair<std::int64_t, std::uint64_t>>> issued;
  std::uint64_t sequence = 0;
  std::int64_t floor = 0;
  RandomStream rng(99, "dense");
  const auto check_pop = [&](const EventQueue::Fired& f) {
    ASSERT_FALSE(reference.empty());
    ASSERT_EQ(f.time.picoseconds(), reference.begin()->first.first);
    ASSERT_EQ(f.arg, reference.begin()->second);
    floor = reference.begin()->first.first;
    reference.erase(reference.begin());
  };
  for (int step = 0; step < 100'000; ++step) {
    const auto op = rng.uniform_int(0, 99);
    if (op < 40) {
      // Now and then a burst of up to 40 pushes into the next windows, often the same key.
      const auto burst = rng.uniform_int(0, 29) == 0 ? rng.uniform_int(17, 40) : 1;
      const std::int64_t base = floor + static_cast<std::int64_t>(rng.uniform_int(0, 700));
      for (std::uint64_t i = 0; i < burst; ++i) {
        const std::uint64_t spread = std::array<std::uint64_t, 4>{0, 300, 300, 140'000}[rng.uniform_int(0, 3)];
        const std::int64_t t = base + static_cast<std::int64_t>(rng.uniform_int(0, spread));
        const std::uint64_t arg = rng.next();
        if (rng.uniform_int(0, 1) == 0) {
          q.post(Time::ps(t), noop, nullptr, arg);
        } else {
          issued.push_back({q.push(Time::ps(t), noop, nullptr, arg), {t, sequence}});
        }
        reference[{t, sequence++}] = arg;
      }
    } else if (op < 80) {
      if (q.empty()) continue;
      if (op < 45) {
        ASSERT_EQ(q.next_time().picoseconds(), reference.begin()->first.first);
      }
      check_pop(q.pop());
    } else if (op < 88) {
      const std::int64_t limit = floor + static_cast<std::int64_t>(rng.uniform_int(0, 400));
      EventQueue::Fired f{};
      const bool due = !reference.empty() && reference.begin()->first.first <= limit;
      ASSERT_EQ(q.pop_due(Time::ps(limit), f), due);
      if (due) {
        check_pop(f);
      } else {
        ASSERT_EQ(q.floor().picoseconds(), floor);
      }
    } else if (op < 96) {
      if (issued.empty()) continue;
      auto& victim = issued[rng.uniform_int(0, issued.size() - 1)];
      ASSERT_EQ(q.cancel(victim.first), reference.erase(victim.second) == 1);
    } else {
      if (issued.empty()) continue;
      auto& victim = issued[rng.uniform_int(0, issued.size() - 1)];
      const std::int64_t t = floor + static_cast<std::int64_t>(rng.uniform_int(0, 300));
      const auto node = reference.extract(victim.second);
      const EventId moved = q.reschedule(victim.first, Time::ps(t));
      ASSERT_EQ(moved.valid(), !node.empty());
      if (!node.empty()) {
        reference[{t, sequence}] = node.mapped();
        victim = {moved, {t, sequence++}};
      }
    }
    ASSERT_EQ(q.size(), reference.size());
  }
  EXPECT_GT(reference.size(), 100u) << "the queue held a backlog, so runs were long";
  while (!q.empty()) check_pop(q.pop());
}

}  // namespace
}  // namespace loom
