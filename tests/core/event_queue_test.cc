#include "loom/core/event_queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "loom/core/chunk_pool.h"
#include "loom/core/random.h"
#include "core/event_queue_support.h"

namespace loom {
namespace {

using namespace time_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using testing_support::drain;
using testing_support::noop;

TEST(EventQueue, PopsByTimeThenInsertionOrder) {
  EventQueue q;
  q.push(5_ns, noop, nullptr, 0);
  q.push(3_ns, noop, nullptr, 1);
  q.push(5_ns, noop, nullptr, 2);
  q.push(1_ns, noop, nullptr, 3);
  q.push(3_ns, noop, nullptr, 4);
  q.push(0_ns, noop, nullptr, 5);
  EXPECT_EQ(q.size(), 6u);
  EXPECT_EQ(q.next_time(), 0_ns);
  EXPECT_THAT(drain(q), ElementsAre(5, 3, 1, 4, 0, 2));
  EXPECT_EQ(q.floor(), 5_ns);
}

TEST(EventQueue, PopReturnsTheAction) {
  EventQueue q;
  int context = 0;
  q.push(7_us, noop, &context, 42);
  const EventQueue::Fired f = q.pop();
  EXPECT_EQ(f.time, 7_us);
  EXPECT_EQ(f.fn, &noop);
  EXPECT_EQ(f.context, &context);
  EXPECT_EQ(f.arg, 42u);
  EXPECT_TRUE(q.empty());
}

// Simultaneous events leave by order key, equal keys in scheduling order, whichever way the
// queue holds them: a whole bucket reached at once (groups over and under the insertion-sort
// size), a run of nearby keys, and a run's key that later pushes join through a level-0
// bucket. Events pushed at the current time after it was reached follow, in scheduling order.
TEST(EventQueue, EqualTimesLeaveByOrderKeyThenSchedulingOrder) {
  for (const std::uint64_t count : {5u, 40u}) {
    EventQueue q;
    for (std::uint64_t i = 0; i < count; ++i) {
      q.push(10_ns, noop, nullptr, i, static_cast<std::uint32_t>((i * 7) % 3));
    }
    std::vector<std::uint64_t> expected;
    for (std::uint32_t order = 0; order < 3; ++order) {
      for (std::uint64_t i = 0; i < count; ++i) {
        if ((i * 7) % 3 == order) expected.push_back(i);
      }
    }
    std::vector<std::uint64_t> popped;
    while (!q.empty()) {
      const auto f = q.pop();
      popped.push_back(f.arg);
      if (f.arg == 0) q.push(10_ns, noop, nullptr, 1'000, 0);  // late: after the others
    }
    expected.push_back(1'000);
    EXPECT_EQ(popped, expected) << count << " simultaneous events";
  }
  // A run: keys 1000..1003 ps share a 256 ps window; key 1002 gets entries from the run and,
  // pushed after the run was built, from a level-0 bucket.
  EventQueue q;
  q.push(Time::ps(1'000), noop, nullptr, 1, 0);
  for (std::uint64_t i = 0; i < 20; ++i) q.push(Time::ps(1'001 + static_cast<std::int64_t>(i % 3)), noop, nullptr, 100 + i, static_cast<std::uint32_t>(9 - i % 5));
  q.push(Time::ps(5'000), noop, nullptr, 2, 0);  // keeps the window's bucket below a higher one
  EXPECT_EQ(q.pop().arg, 1u);                    // the run is built now
  q.push(Time::ps(1'002), noop, nullptr, 50, 7);
  q.push(Time::ps(1'002), noop, nullptr, 51, 0);
  std::vector<std::pair<std::int64_t, std::uint32_t>> seen;  // (time, order) in pop order
  std::vector<std::uint64_t> at_1002;
  const auto order_of = [](std::uint64_t arg) -> std::uint32_t {
    if (arg == 50) return 7;
    if (arg == 51) return 0;
    return static_cast<std::uint32_t>(9 - (arg - 100) % 5);
  };
  while (q.next_time() < Time::ps(5'000)) {
    const auto f = q.pop();
    seen.emplace_back(f.time.picoseconds(), order_of(f.arg));
    if (f.time == Time::ps(1'002)) at_1002.push_back(f.arg);
  }
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end())) << "by time, then order key";
  EXPECT_EQ(seen.size(), 22u);
  // Order keys 9 - i % 5 for i = 1, 4, 7, ... (i % 3 == 1): equal keys keep push order, and the
  // later pushes (50 with key 7, 51 with key 0) join by key, behind earlier equal keys.
  EXPECT_EQ(at_1002, (std::vector<std::uint64_t>{51, 104, 119, 113, 107, 50, 101, 116, 110}));
}

TEST(EventQueue, EqualTimesInterleavedWithPushesKeepSchedulingOrder) {
  // 100 events at 10ns, pushed among events at other times. While the 10ns batch is being
  // processed, every even event pushes a follow-up at 10ns and every odd one at 11ns. Expected:
  // the 100 originals in push order, then the 50 follow-ups in push order, then 11ns ones.
  EventQueue q;
  for (std::uint64_t i = 0; i < 100; ++i) {
    q.push(10_ns, noop, nullptr, i);
    q.push(Time::ns(20 + static_cast<std::int64_t>(i)), noop, nullptr, 10'000 + i);
  }
  std::vector<std::uint64_t> order;
  while (q.next_time() <= 11_ns) {
    const auto f = q.pop();
    order.push_back(f.arg);
    if (f.arg < 100) q.push(f.arg % 2 == 0 ? 10_ns : 11_ns, noop, nullptr, 1'000 + f.arg);
  }
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 0; i < 100; ++i) expected.push_back(i);
  for (std::uint64_t i = 0; i < 100; i += 2) expected.push_back(1'000 + i);
  for (std::uint64_t i = 1; i < 100; i += 2) expected.push_back(1'000 + i);
  EXPECT_EQ(order, expected);
  EXPECT_EQ(q.size(), 100u);
  EXPECT_EQ(q.next_time(), 20_ns);
}

TEST(EventQueue, TiesKeepSchedulingOrderAcrossRedistributions) {
  // Events at 1000ps are pushed while the floor moves up in steps, so some of them are
  // redistributed several times and others land directly in lower buckets.
  EventQueue q;
  q.push(1000_ps, noop, nullptr, 0);
  q.push(3_ps, noop, nullptr, 100);
  EXPECT_EQ(q.pop().arg, 100u);
  q.push(1000_ps, noop, nullptr, 1);
  q.push(600_ps, noop, nullptr, 101);
  q.push(1000_ps, noop, nullptr, 2);
  EXPECT_EQ(q.pop().arg, 101u);
  q.push(1000_ps, noop, nullptr, 3);
  q.push(999_ps, noop, nullptr, 102);
  q.push(1001_ps, noop, nullptr, 103);
  EXPECT_EQ(q.pop().arg, 102u);
  q.push(1000_ps, noop, nullptr, 4);
  EXPECT_THAT(drain(q), ElementsAre(0, 1, 2, 3, 4, 103));
}

TEST(EventQueue, PushBeforeFloorIsABug) {
  EventQueue q;
  q.push(5_ns, noop, nullptr, 0);
  q.pop();
  q.push(5_ns, noop, nullptr, 1);  // equal to the floor is fine
  try {
    q.push(4_ns, noop, nullptr, 2);
    FAIL() << "expected InternalError";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("event scheduled at 4ns, before the queue's floor 5ns"));
  }
  EXPECT_THROW(EventQueue().push(Time::ps(-1), noop, nullptr, 0), InternalError);
  EXPECT_THROW(EventQueue().push(1_ns, nullptr, nullptr, 0), InternalError);
}

TEST(EventQueue, PopOnEmptyIsABug) {
  EventQueue q;
  EXPECT_THROW(q.pop(), InternalError);
  EXPECT_THROW(q.next_time(), InternalError);
}

TEST(EventQueue, CancelRemovesExactlyOnce) {
  EventQueue q;
  const EventId a = q.push(1_ns, noop, nullptr, 1);
  const EventId b = q.push(2_ns, noop, nullptr, 2);
  const EventId c = q.push(3_ns, noop, nullptr, 3);
  EXPECT_TRUE(q.contains(b));
  EXPECT_TRUE(q.cancel(b));
  EXPECT_FALSE(q.contains(b));
  EXPECT_FALSE(q.cancel(b));
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q.pop().arg, 1u);
  EXPECT_FALSE(q.cancel(a)) << "a has fired";
  EXPECT_TRUE(q.cancel(c));
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.cancel(EventId{}));
  EXPECT_FALSE(q.cancel(EventId{12345, 0}));
}

TEST(EventQueue, StaleIdDoesNotTouchTheEventReusingItsSlot) {
  EventQueue q;
  const EventId old_id = q.push(1_ns, noop, nullptr, 1);
  ASSERT_TRUE(q.cancel(old_id));
  const EventId new_id = q.push(2_ns, noop, nullptr, 2);
  EXPECT_EQ(new_id.slot, old_id.slot) << "the freed slot is reused";
  EXPECT_NE(new_id.generation, old_id.generation);
  EXPECT_FALSE(q.cancel(old_id));
  EXPECT_FALSE(q.reschedule(old_id, 5_ns).valid());
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.pop().arg, 2u);
}

TEST(EventQueue, CancelledMinimumIsSkippedByNextTimeAndPop) {
  EventQueue q;
  const EventId first = q.push(1_ns, noop, nullptr, 1);
  q.push(1_ns, noop, nullptr, 2);
  const EventId third = q.push(4_ns, noop, nullptr, 3);
  q.push(9_ns, noop, nullptr, 4);
  q.cancel(first);
  EXPECT_EQ(q.next_time(), 1_ns);
  EXPECT_EQ(q.pop().arg, 2u);
  q.cancel(third);
  EXPECT_EQ(q.next_time(), 9_ns);
  EXPECT_EQ(q.pop().arg, 4u);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, RescheduleMovesTheEventAndKeepsItsAction) {
  EventQueue q;
  int context = 0;
  const EventId a = q.push(10_ns, noop, &context, 7);
  q.push(5_ns, noop, nullptr, 8);
  q.push(3_ns, noop, nullptr, 9);
  const EventId moved = q.reschedule(a, 3_ns);
  ASSERT_TRUE(moved.valid());
  EXPECT_FALSE(q.contains(a));
  EXPECT_TRUE(q.contains(moved));
  EXPECT_FALSE(q.cancel(a));
  EXPECT_EQ(q.size(), 3u);
  // Rescheduled to 3ns after event 9 was pushed at 3ns: it runs after it.
  EXPECT_EQ(q.pop().arg, 9u);
  const auto f = q.pop();
  EXPECT_EQ(f.time, 3_ns);
  EXPECT_EQ(f.arg, 7u);
  EXPECT_EQ(f.context, &context);
  EXPECT_FALSE(q.reschedule(moved, 4_ns).valid()) << "it has fired";
  // Later is allowed too, and a rescheduled id can be rescheduled again.
  const EventId b = q.push(6_ns, noop, nullptr, 10);
  const EventId b2 = q.reschedule(q.reschedule(b, 20_ns), 15_ns);
  EXPECT_EQ(q.next_time(), 5_ns);
  EXPECT_THAT(drain(q), ElementsAre(8, 10));
  EXPECT_FALSE(q.contains(b2));
}

TEST(EventQueue, RescheduleBeforeFloorIsABug) {
  EventQueue q;
  const EventId a = q.push(10_ns, noop, nullptr, 1);
  q.push(5_ns, noop, nullptr, 2);
  q.pop();
  EXPECT_THROW(q.reschedule(a, 4_ns), InternalError);
}

TEST(EventQueue, PopDueStopsAtTheLimitWithoutRaisingTheFloor) {
  EventQueue q;
  q.push(2_ns, noop, nullptr, 1);
  q.push(5_ns, noop, nullptr, 2);
  q.push(9_ns, noop, nullptr, 3);
  EventQueue::Fired f{};
  ASSERT_TRUE(q.pop_due(5_ns, f));
  EXPECT_EQ(f.arg, 1u);
  ASSERT_TRUE(q.pop_due(5_ns, f));
  EXPECT_EQ(f.arg, 2u);
  EXPECT_FALSE(q.pop_due(8_ns, f));
  EXPECT_EQ(q.floor(), 5_ns);
  q.push(6_ns, noop, nullptr, 4);  // between the floor and the next event: allowed
  EXPECT_THAT(drain(q), ElementsAre(4, 3));
  EXPECT_FALSE(q.pop_due(100_ns, f));
}

TEST(EventQueue, ManyCancellationsAreCompactedWithoutChangingOrder) {
  EventQueue q;
  RandomStream rng(3, "compact");
  std::vector<EventId> ids;
  for (std::uint64_t i = 0; i < 5'000; ++i) {
    ids.push_back(q.push(Time::ps(static_cast<std::int64_t>(rng.uniform_int(0, 999))), noop,
                         nullptr, i));
  }
  // Cancel all but every tenth: far more stale entries than live ones, forcing compaction.
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i % 10 != 0) {
      EXPECT_TRUE(q.cancel(ids[i]));
    }
  }
  EXPECT_EQ(q.size(), 500u);
  Time previous = Time::zero();
  std::uint64_t previous_arg = 0;
  std::size_t popped = 0;
  while (!q.empty()) {
    const auto f = q.pop();
    EXPECT_EQ(f.arg % 10, 0u);
    ASSERT_GE(f.time, previous);
    if (f.time == previous && popped > 0) {
      EXPECT_GT(f.arg, previous_arg);
    }
    previous = f.time;
    previous_arg = f.arg;
    ++popped;
  }
  EXPECT_EQ(popped, 500u);
}

TEST(EventQueue, PopDueAfterCompactionKeepsTheFloor) {
  // 100ps and 110ps share a bucket, whose recorded minimum is 100ps. Cancelling 100ps and then
  // enough others to force a compaction must not leave 100ps as the bucket's minimum: else
  // pop_due(105ps) would raise the floor to 100ps and refuse a legal push at 50ps.
  EventQueue q;
  const EventId early = q.push(100_ps, noop, nullptr, 1);
  q.push(110_ps, noop, nullptr, 2);
  std::vector<EventId> others;
  for (std::uint64_t i = 0; i < 100; ++i) others.push_back(q.push(5_ns, noop, nullptr, 100 + i));
  ASSERT_TRUE(q.cancel(early));
  // After cancelling k of the others, 1 + k cancelled entries face 101 - k live ones; the
  // queue compacts once they outnumber them by more than 64, at k = 83. Stopping right there
  // leaves no cancelled entry behind, so nothing else would correct the bucket's minimum.
  for (int k = 0; k < 83; ++k) ASSERT_TRUE(q.cancel(others[static_cast<std::size_t>(k)]));
  EventQueue::Fired f{};
  EXPECT_FALSE(q.pop_due(105_ps, f));
  EXPECT_EQ(q.floor(), Time::zero());
  q.push(50_ps, noop, nullptr, 3);
  EXPECT_EQ(q.pop().arg, 3u);
  EXPECT_EQ(q.pop().arg, 2u);
  EXPECT_EQ(q.size(), 17u);
}

TEST(EventQueue, IdsStayDistinctAcrossSlotGrowth) {
  // Past the initial slot capacity the slots grow; every pending id must stay cancellable.
  EventQueue q;
  std::vector<EventId> ids;
  for (std::uint64_t i = 0; i < 1'000; ++i) ids.push_back(q.push(Time::ns(1), noop, nullptr, i));
  for (std::size_t i = 0; i < ids.size(); i += 2) EXPECT_TRUE(q.cancel(ids[i]));
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 1; i < 1'000; i += 2) expected.push_back(i);
  EXPECT_EQ(drain(q), expected);
  for (const EventId id : ids) EXPECT_FALSE(q.contains(id));
}

TEST(EventQueue, ExtremeTimesUseTheTopBuckets) {
  EventQueue q;
  q.push(Time::max(), noop, nullptr, 1);
  q.push(Time::ps(std::int64_t{1} << 62), noop, nullptr, 2);
  q.push(Time::zero(), noop, nullptr, 3);
  q.push(Time::max(), noop, nullptr, 4);
  EXPECT_THAT(drain(q), ElementsAre(3, 2, 1, 4));
  EXPECT_EQ(q.floor(), Time::max());
}

// Differential test against a std::map keyed by (time, late, order key, sequence), late
// meaning pushed at the floor itself (those run after the others of that time, in scheduling
// order whatever their order key): ~10^5 random operations mixing push (with ties, a few order
// keys and wide spreads), pop, pop_due, cancel and reschedule, including stale ids.
TEST(EventQueue, MatchesReferenceUnderRandomOperations) {
  EventQueue q;
  using Key = std::tuple<std::int64_t, bool, std::uint32_t, std::uint64_t>;
  struct Pending {
    std::uint64_t arg;
    std::uint32_t order;
  };
  std::map<Key, Pending> reference;
  struct Issued {
    EventId id;
    Key key;
  };
  std::vector<Issued> issued;  // every id ever handed out, fired or not
  std::uint64_t sequence = 0;
  std::int64_t floor = 0;
  RandomStream rng(2024, "differential");

  const auto random_time = [&] {
    switch (rng.uniform_int(0, 3)) {
      case 0: return floor;                                                      // tie
      case 1: return floor + static_cast<std::int64_t>(rng.uniform_int(0, 15));  // near
      case 2: return floor + static_cast<std::int64_t>(rng.uniform_int(0, 100'000));
      default: return floor + static_cast<std::int64_t>(rng.uniform_int(0, 1ull << 40));
    }
  };
  const auto key_of = [&](std::int64_t t, std::uint32_t order) {
    const bool late = t == floor;
    return Key{t, late, late ? 0u : order, sequence++};
  };
  const auto first_time = [&] { return std::get<0>(reference.begin()->first); };
  const auto check_pop = [&](const EventQueue::Fired& f) {
    ASSERT_FALSE(reference.empty());
    const auto it = reference.begin();
    ASSERT_EQ(f.time.picoseconds(), std::get<0>(it->first));
    ASSERT_EQ(f.arg, it->second.arg);
    floor = std::get<0>(it->first);
    reference.erase(it);
  };

  for (int step = 0; step < 100'000; ++step) {
    const auto op = rng.uniform_int(0, 99);
    if (op < 45) {
      const std::int64_t t = random_time();
      const std::uint64_t arg = rng.next();
      const auto order = static_cast<std::uint32_t>(rng.uniform_int(0, 3));
      const EventId id = q.push(Time::ps(t), noop, nullptr, arg, order);
      const Key key = key_of(t, order);
      reference[key] = {arg, order};
      issued.push_back({id, key});
    } else if (op < 75) {
      if (q.empty()) continue;
      ASSERT_EQ(q.next_time().picoseconds(), first_time());
      check_pop(q.pop());
    } else if (op < 82) {
      const std::int64_t limit = floor + static_cast<std::int64_t>(rng.uniform_int(0, 50'000));
      EventQueue::Fired f{};
      const bool due = !reference.empty() && first_time() <= limit;
      ASSERT_EQ(q.pop_due(Time::ps(limit), f), due);
      if (due) check_pop(f);
    } else if (op < 93) {
      if (issued.empty()) continue;
      Issued& victim = issued[rng.uniform_int(0, issued.size() - 1)];
      const bool pending = reference.erase(victim.key) == 1;
      ASSERT_EQ(q.cancel(victim.id), pending);
    } else {
      if (issued.empty()) continue;
      Issued& victim = issued[rng.uniform_int(0, issued.size() - 1)];
      const std::int64_t t = random_time();
      const auto node = reference.extract(victim.key);
      const EventId moved = q.reschedule(victim.id, Time::ps(t));
      ASSERT_EQ(moved.valid(), !node.empty());
      if (!node.empty()) {
        const Key key = key_of(t, node.mapped().order);
        reference[key] = node.mapped();
        const Issued retired = victim;  // its id is now stale
        victim = {moved, key};
        issued.push_back(retired);
      }
    }
    ASSERT_EQ(q.size(), reference.size());
  }
  while (!q.empty()) check_pop(q.pop());
  EXPECT_TRUE(reference.empty());
}

// Posted events (no id) interleave with pushed ones in scheduling order, and peek() names
// exactly the event pop() returns next whenever it answers (no cancellations here, so its hint
// is exact). Cancelling pushed events in between must not disturb posted ones.
TEST(EventQueue, PostedEventsAndPeekMatchReference) {
  EventQueue q;
  std::map<std::pair<std::int64_t, std::uint64_t>, std::uint64_t> reference;  // -> arg
  std::uint64_t sequence = 0;
  std::int64_t floor = 0;
  RandomStream rng(7, "post and peek");
  std::size_t peeks = 0, answered = 0;
  for (int step = 0; step < 60'000; ++step) {
    const auto op = rng.uniform_int(0, 9);
    if (op < 5) {
      const std::int64_t t = floor + static_cast<std::int64_t>(
                                         rng.uniform_int(0, 1) == 0 ? rng.uniform_int(0, 300) : rng.uniform_int(0, 2'000'000));
      const std::uint64_t arg = rng.next();
      if (op < 3) {
        q.post(Time::ps(t), noop, nullptr, arg);
      } else {
        q.push(Time::ps(t), noop, nullptr, arg);
      }
      reference[{t, sequence++}] = arg;
    } else if (!q.empty()) {
      EventQueue::Fired next{};
      ++peeks;
      const bool known = q.peek(next);
      const EventQueue::Fired f = q.pop();
      const auto it = reference.begin();
      ASSERT_EQ(f.time.picoseconds(), it->first.first);
      ASSERT_EQ(f.arg, it->second);
      if (known) {
        ++answered;
        ASSERT_EQ(next.time, f.time);
        ASSERT_EQ(next.arg, f.arg);
      }
      floor = it->first.first;
      reference.erase(it);
    }
    ASSERT_EQ(q.size(), reference.size());
  }
  EXPECT_GT(answered, peeks / 2) << "peek answers when the next event is in order or nearly";
  // A cancelled pushed event between posted ones at one time: the posted ones still fire.
  const EventId doomed = q.push(q.floor(), noop, nullptr, 1);
  q.post(q.floor(), noop, nullptr, 2);
  EXPECT_TRUE(q.cancel(doomed));
  std::vector<std::uint64_t> rest;
  while (!q.empty()) rest.push_back(q.pop().arg);
  EXPECT_EQ(rest.size(), reference.size() + 1);
  EXPECT_EQ(std::count(rest.begin(), rest.end(), 2u), 1);
}

// Cancelling events spread over many buckets, then popping: only the buckets holding
// cancelled entries are scanned, but every cancelled entry must still vanish, including ones
// that were the recorded minimum of their bucket or sat in a level-0 bucket with live ones.
TEST(EventQueue, CancelledMinimaAndLevelZeroNeighboursAreSkipped) {
  EventQueue q;
  std::vector<EventId> ids;
  for (std::uint64_t i = 0; i < 2000; ++i) {
    ids.push_back(q.push(Time::ps(static_cast<std::int64_t>(1000 + (i % 500) * 977 + i / 500)), noop, nullptr, i));
  }
  for (std::uint64_t i = 0; i < 2000; i += 3) EXPECT_TRUE(q.cancel(ids[i]));
  std::int64_t last = 0;
  std::size_t fired = 0;
  while (!q.empty()) {
    const EventQueue::Fired f = q.pop();
    EXPECT_NE(f.arg % 3, 0u) << f.arg;
    EXPECT_GE(f.time.picoseconds(), last);
    last = f.time.picoseconds();
    ++fired;
  }
  EXPECT_EQ(fired, 2000u - 667u);
}

using SmallPool = ChunkPool<std::uint64_t, 4>;

std::vector<std::uint64_t> contents(const SmallPool& pool, const SmallPool::List& list) {
  std::vector<std::uint64_t> items;
  pool.for_each(list, [&items](std::uint64_t x) { items.push_back(x); });
  return items;
}

TEST(ChunkPool, FifoAcrossChunks) {
  SmallPool pool;
  SmallPool::List list;
  EXPECT_TRUE(list.empty());
  for (std::uint64_t i = 0; i < 10; ++i) pool.push_back(list, i);
  EXPECT_EQ(pool.chunk_count(), 16u) << "one slab of 16 chunks";
  std::vector<std::uint64_t> popped;
  for (int i = 0; i < 6; ++i) {
    popped.push_back(pool.front(list));
    pool.pop_front(list);
  }
  EXPECT_THAT(popped, ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THAT(contents(pool, list), ElementsAre(6, 7, 8, 9));
  pool.push_back(list, 10);
  EXPECT_FALSE(list.single());
  for (int i = 0; i < 4; ++i) pool.pop_front(list);
  EXPECT_TRUE(list.single());
  EXPECT_EQ(pool.front(list), 10u);
  pool.pop_front(list);
  EXPECT_TRUE(list.empty());
}

TEST(ChunkPool, EraseIfKeepsOrderAndFreesChunks) {
  SmallPool pool;
  SmallPool::List list;
  for (std::uint64_t i = 0; i < 20; ++i) pool.push_back(list, i);
  pool.pop_front(list);  // a consumed prefix, which erase_if compacts away
  EXPECT_EQ(pool.erase_if(list, [](std::uint64_t x) { return x % 3 != 0; }), 13u);
  EXPECT_THAT(contents(pool, list), ElementsAre(3, 6, 9, 12, 15, 18));
  pool.push_back(list, 21);
  EXPECT_THAT(contents(pool, list), ElementsAre(3, 6, 9, 12, 15, 18, 21));
  EXPECT_EQ(pool.erase_if(list, [](std::uint64_t) { return true; }), 7u);
  EXPECT_TRUE(list.empty());
}

TEST(ChunkPool, FirstLeastLooksOnlyAtSmallSingleChunkLists) {
  SmallPool pool;
  SmallPool::List list;
  const auto less = [](std::uint64_t a, std::uint64_t b) { return a < b; };
  EXPECT_EQ(pool.first_least(list, 4, less), nullptr);
  for (const std::uint64_t x : {7, 3, 5, 3}) pool.push_back(list, x);
  const std::uint64_t* least = pool.first_least(list, 4, less);
  ASSERT_NE(least, nullptr);
  EXPECT_EQ(*least, 3u);
  EXPECT_EQ(least, &pool.front(list) + 1) << "the first of equal least items";
  EXPECT_EQ(pool.first_least(list, 3, less), nullptr) << "more items than the limit";
  pool.push_back(list, 1);  // a second chunk
  EXPECT_EQ(pool.first_least(list, 8, less), nullptr);
}

TEST(ChunkPool, ConsumeRecyclesChunksForOtherLists) {
  SmallPool pool;
  SmallPool::List source, even, odd;
  for (std::uint64_t i = 0; i < 48; ++i) pool.push_back(source, i);  // 12 of 16 chunks
  pool.consume(source, [&](std::uint64_t x) { pool.push_back(x % 2 == 0 ? even : odd, x); });
  EXPECT_TRUE(source.empty());
  EXPECT_EQ(pool.chunk_count(), 16u) << "chunks freed by consume were reused";
  EXPECT_EQ(contents(pool, even).size(), 24u);
  EXPECT_EQ(contents(pool, odd).front(), 1u);
  EXPECT_EQ(contents(pool, odd).back(), 47u);
}

}  // namespace
}  // namespace loom
