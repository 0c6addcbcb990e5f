// EventQueue::shift: moved events keep their ids and come out where a reference model of
// (time, scheduling order) says, with cancellations, runs and negative shifts mixed in; and
// EventQueue::remove, its sibling that takes the selected events out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "loom/core/error.h"
#include "loom/core/event_queue.h"
#include "loom/core/random.h"
#include "core/event_queue_support.h"

namespace loom {
namespace {

using namespace time_literals;
using testing_support::noop;

bool odd(void*, const EventQueue::Fired& e) { return e.arg % 2 == 1; }

TEST(EventQueueShift, MovesTheSelectedEventsAndKeepsTheirIds) {
  EventQueue q;
  const EventId a = q.push(10_ns, noop, nullptr, 1);
  q.push(10_ns, noop, nullptr, 2);
  q.post(20_ns, noop, nullptr, 3);
  q.push(30_ns, noop, nullptr, 4);
  EXPECT_EQ(q.shift(15_ns, odd, nullptr), 2u);
  EXPECT_TRUE(q.contains(a));
  std::vector<std::pair<Time, std::uint64_t>> order;
  while (!q.empty()) {
    const auto f = q.pop();
    order.emplace_back(f.time, f.arg);
  }
  const std::vector<std::pair<Time, std::uint64_t>> expected{{10_ns, 2}, {25_ns, 1}, {30_ns, 4}, {35_ns, 3}};
  EXPECT_EQ(order, expected);
}

TEST(EventQueueShift, ShiftedIdsCanBeCancelledAtTheirNewTime) {
  EventQueue q;
  const EventId a = q.push(1_us, noop, nullptr, 1);
  q.push(2_us, noop, nullptr, 2);
  q.shift(5_us, odd, nullptr);
  EXPECT_TRUE(q.cancel(a));
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.pop().arg, 2u);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueueShift, RemoveTakesTheSelectedEventsAsCancelWould) {
  EventQueue q;
  const EventId a = q.push(10_ns, noop, nullptr, 1);
  const EventId b = q.push(10_ns, noop, nullptr, 2);
  q.post(20_ns, noop, nullptr, 3);
  q.push(30_ns, noop, nullptr, 4);
  q.post(40_ns, noop, nullptr, 5);
  EXPECT_EQ(q.remove(odd, nullptr), 3u);
  EXPECT_EQ(q.size(), 2u);
  EXPECT_FALSE(q.contains(a));
  EXPECT_FALSE(q.cancel(a));  // gone, as if cancelled
  EXPECT_TRUE(q.contains(b));
  std::vector<std::uint64_t> left;
  while (!q.empty()) left.push_back(q.pop().arg);
  EXPECT_EQ(left, (std::vector<std::uint64_t>{2, 4}));
  // The freed slots serve new events.
  const EventId c = q.push(50_ns, noop, nullptr, 7);
  EXPECT_TRUE(q.contains(c));
  EXPECT_EQ(q.remove(odd, nullptr), 1u);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueueShift, NegativeShiftBeforeTheFloorIsABug) {
  EventQueue q;
  q.push(5_ns, noop, nullptr, 2);
  q.push(10_ns, noop, nullptr, 1);
  q.pop();
  EXPECT_THROW(q.shift(Time::ns(-6), odd, nullptr), InternalError);
}

// Random pushes, posts, cancels, pops and shifts (by +- delta, never before the floor) against
// a reference: pending events ordered by (time, scheduling order); a shift re-schedules the
// moved events in their old order.
TEST(EventQueueShift, RandomisedAgainstAReference) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RandomStream random(seed, "shift");
    EventQueue q;
    struct Pending {
      Time time;
      std::uint64_t order;
      EventId id;
    };
    std::map<std::uint64_t, Pending> pending;  // by arg
    std::uint64_t order = 0;
    std::uint64_t next_arg = 0;
    Time floor;
    for (int step = 0; step < 4000; ++step) {
      const double r = random.uniform();
      if (r < 0.45 || pending.empty()) {
        const Time when = floor + Time::ps(static_cast<std::int64_t>(random.uniform() * (random.bernoulli(0.5) ? 600 : 5e6)));
        const std::uint64_t arg = next_arg++;
        const bool posted = random.bernoulli(0.5);
        EventId id;
        if (posted) {
          q.post(when, noop, nullptr, arg);
        } else {
          id = q.push(when, noop, nullptr, arg);
        }
        pending[arg] = {when, order++, id};
      } else if (r < 0.55) {
        auto it = pending.begin();
        std::advance(it, static_cast<long>(random.uniform() * static_cast<double>(pending.size())));
        if (it->second.id.valid()) {
          ASSERT_TRUE(q.cancel(it->second.id));
          pending.erase(it);
        }
      } else if (r < 0.58) {
        // Shift the odd args: forward, or back as far as the earliest of them allows.
        Time earliest = Time::max();
        std::vector<std::tuple<Time, std::uint64_t, std::uint64_t>> moved;
        for (const auto& [arg, p] : pending) {
          if (arg % 2 == 1) {
            earliest = std::min(earliest, p.time);
            moved.emplace_back(p.time, p.order, arg);
          }
        }
        if (moved.empty()) continue;
        Time delta = Time::ps(static_cast<std::int64_t>(random.uniform() * 3e6));
        if (random.bernoulli(0.4)) delta = Time::zero() - std::min(delta, earliest - floor);
        std::sort(moved.begin(), moved.end());
        ASSERT_EQ(q.shift(delta, odd, nullptr), moved.size());
        for (const auto& [time, old_order, arg] : moved) {
          pending[arg].time = time + delta;
          pending[arg].order = order++;
          if (pending[arg].id.valid()) {
            ASSERT_TRUE(q.contains(pending[arg].id));
          }
        }
      } else {
        auto best = pending.begin();
        for (auto it = pending.begin(); it != pending.end(); ++it) {
          if (std::tie(it->second.time, it->second.order) < std::tie(best->second.time, best->second.order)) best = it;
        }
        const auto fired = q.pop();
        ASSERT_EQ(fired.arg, best->first) << "seed " << seed << " step " << step;
        ASSERT_EQ(fired.time, best->second.time);
        floor = fired.time;
        pending.erase(best);
      }
      ASSERT_EQ(q.size(), pending.size());
    }
  }
}

}  // namespace
}  // namespace loom
