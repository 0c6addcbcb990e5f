// Proves that the event kernel does not allocate per event once it has reached its working
// size. This binary replaces the global operator new with a counting one.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "loom/core/event_queue.h"
#include "loom/core/random.h"
#include "loom/core/simulator.h"

namespace {
std::atomic<std::uint64_t> allocation_count{0};

void* counted_allocation(std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) { return counted_allocation(size); }
void* operator new[](std::size_t size) { return counted_allocation(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace loom {
namespace {

void noop(void*, std::uint64_t) {}

TEST(EventQueueAllocation, CounterSeesTheFirstPush) {
  EventQueue q;
  const std::uint64_t before = allocation_count.load();
  q.push(Time::ns(1), noop, nullptr, 0);
  EXPECT_GT(allocation_count.load(), before) << "the counting operator new is not in effect";
}

// Hold model with cancellations and reschedules: 10^4 pending events, each pop pushes one
// event a random delay ahead (ties included); every 8th step cancels a pending event and
// pushes a replacement, every 8th reschedules one.
void hold(EventQueue& q, RandomStream& rng, std::vector<EventId>& ids, int steps) {
  for (int i = 0; i < steps; ++i) {
    const EventQueue::Fired f = q.pop();
    const Time delay = Time::ps(static_cast<std::int64_t>(rng.uniform_int(0, 2'000'000)) & ~0xffLL);
    ids[f.arg] = q.push(f.time + delay, noop, nullptr, f.arg);
    const std::uint64_t victim = rng.uniform_int(0, ids.size() - 1);
    if (i % 8 == 0 && q.cancel(ids[victim])) {
      ids[victim] = q.push(f.time + delay * 2, noop, nullptr, victim);
    } else if (i % 8 == 4) {
      const EventId moved = q.reschedule(ids[victim], f.time + delay / 2);
      if (moved.valid()) ids[victim] = moved;
    }
  }
}

TEST(EventQueueAllocation, SteadyStateHoldDoesNotAllocate) {
  EventQueue q;
  RandomStream rng(11, "alloc-hold");
  std::vector<EventId> ids(10'000);
  for (std::uint64_t i = 0; i < ids.size(); ++i) {
    ids[i] = q.push(Time::ps(static_cast<std::int64_t>(rng.uniform_int(0, 2'000'000))), noop,
                    nullptr, i);
  }
  hold(q, rng, ids, 400'000);  // reach the working size
  const std::uint64_t before = allocation_count.load();
  hold(q, rng, ids, 1'000'000);
  EXPECT_EQ(allocation_count.load() - before, 0u);
  EXPECT_EQ(q.size(), ids.size());
  // Entries (48 bytes), chunks and slots (44): a budget of 240 bytes per pending event.
  EXPECT_LT(q.memory_bytes(), 240 * ids.size());
}

// Components that reschedule themselves through the member-function thunk.
struct Source {
  Simulator* sim;
  RandomStream* rng;
  EventId timeout;
  void emit(std::uint64_t n) {
    const Time gap = Time::ps(static_cast<std::int64_t>(rng->uniform_int(1, 500'000)));
    sim->schedule_in<&Source::emit>(gap, this, n + 1);
    // A timeout that is pushed back on every emission and so never fires.
    timeout = timeout.valid() ? sim->reschedule(timeout, sim->now() + gap * 4)
                              : sim->schedule_in<&Source::expire>(gap * 4, this);
  }
  void expire() {}
};

TEST(SimulatorAllocation, SteadyStateRunDoesNotAllocate) {
  Simulator sim;
  RandomStream rng(12, "alloc-sim");
  std::vector<Source> sources(1'000, Source{&sim, &rng, EventId{}});
  for (Source& s : sources) sim.schedule_in<&Source::emit>(Time::zero(), &s, 0);
  sim.run_until(Time::us(100));
  const std::uint64_t before = allocation_count.load();
  const std::uint64_t processed_before = sim.events_processed();
  sim.run_until(Time::us(400));
  EXPECT_EQ(allocation_count.load() - before, 0u);
  EXPECT_GT(sim.events_processed() - processed_before, 1'000'000u);
}

}  // namespace
}  // namespace loom
