#include "loom/core/simulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace loom {
namespace {

using namespace time_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Records (now, arg) for each call; used as the context of plain-function events.
struct Log {
  Simulator* sim = nullptr;
  std::vector<std::pair<Time, std::uint64_t>> calls;
};

void record(void* context, std::uint64_t arg) {
  Log* log = static_cast<Log*>(context);
  log->calls.emplace_back(log->sim->now(), arg);
}

TEST(Simulator, RunsEventsInTimeOrderAndAdvancesTheClock) {
  Simulator sim;
  Log log{&sim, {}};
  sim.schedule_at(30_ns, record, &log, 3);
  sim.schedule_at(10_ns, record, &log, 1);
  sim.schedule_in(20_ns, record, &log, 2);
  sim.schedule_at(10_ns, record, &log, 4);
  EXPECT_EQ(sim.pending(), 4u);
  sim.run();
  EXPECT_THAT(log.calls, ElementsAre(std::pair{10_ns, 1u}, std::pair{10_ns, 4u},
                                     std::pair{20_ns, 2u}, std::pair{30_ns, 3u}));
  EXPECT_EQ(sim.now(), 30_ns);
  EXPECT_EQ(sim.events_processed(), 4u);
  EXPECT_EQ(sim.pending(), 0u);
}

// A component that reschedules itself: fires `remaining` times, `period` apart.
struct Ticker {
  Simulator* sim;
  Time period;
  int remaining;
  std::vector<Time> ticks;
  void tick() {
    ticks.push_back(sim->now());
    if (--remaining > 0) sim->schedule_in<&Ticker::tick>(period, this);
  }
};

TEST(Simulator, MemberFunctionWithoutArgument) {
  Simulator sim;
  Ticker ticker{&sim, 250_ps, 4, {}};
  sim.schedule_at<&Ticker::tick>(1_ns, &ticker);
  sim.run();
  EXPECT_THAT(ticker.ticks, ElementsAre(1000_ps, 1250_ps, 1500_ps, 1750_ps));
}

struct Receiver {
  std::vector<std::uint64_t> packets;
  void deliver(std::uint64_t packet) { packets.push_back(packet); }
};

TEST(Simulator, MemberFunctionWithArgument) {
  Simulator sim;
  Receiver rx;
  sim.schedule_in<&Receiver::deliver>(5_ns, &rx, 17);
  sim.schedule_at<&Receiver::deliver>(2_ns, &rx, 99);
  sim.run();
  EXPECT_THAT(rx.packets, ElementsAre(99, 17));
}

// Each call schedules a follow-up at the current time: it runs after everything already due.
struct Chain {
  Simulator* sim;
  std::vector<std::uint64_t> order;
  void step(std::uint64_t id) {
    order.push_back(id);
    if (id < 3) sim->schedule_in<&Chain::step>(Time::zero(), this, id + 10);
  }
};

TEST(Simulator, ZeroDelayEventsRunAfterThoseAlreadyDue) {
  Simulator sim;
  Chain chain{&sim, {}};
  for (std::uint64_t i = 0; i < 5; ++i) sim.schedule_at<&Chain::step>(1_us, &chain, i);
  sim.run();
  EXPECT_THAT(chain.order, ElementsAre(0, 1, 2, 3, 4, 10, 11, 12));
  EXPECT_EQ(sim.now(), 1_us);
}

TEST(Simulator, RunUntilIncludesTheLimitAndLeavesLaterEvents) {
  Simulator sim;
  Log log{&sim, {}};
  sim.schedule_at(1_us, record, &log, 1);
  sim.schedule_at(2_us, record, &log, 2);
  sim.schedule_at(3_us, record, &log, 3);
  sim.run_until(2_us);
  EXPECT_THAT(log.calls, ElementsAre(std::pair{1_us, 1u}, std::pair{2_us, 2u}));
  EXPECT_EQ(sim.now(), 2_us);
  sim.run_until(2500_ns);
  EXPECT_EQ(sim.now(), 2500_ns) << "the queue outlasts the limit, so the clock moves to it";
  EXPECT_EQ(sim.pending(), 1u);
  // Scheduling between the limit and the next event is allowed.
  sim.schedule_in(100_ns, record, &log, 4);
  sim.run();
  EXPECT_THAT(log.calls, ElementsAre(std::pair{1_us, 1u}, std::pair{2_us, 2u},
                                     std::pair{2600_ns, 4u}, std::pair{3_us, 3u}));
}

TEST(Simulator, RunUntilStopsAtTheLastEventWhenTheQueueDrains) {
  Simulator sim;
  Log log{&sim, {}};
  sim.schedule_at(4_us, record, &log, 1);
  sim.run_until(10_us);
  EXPECT_EQ(sim.now(), 4_us);
  EXPECT_EQ(sim.events_processed(), 1u);
  EXPECT_THROW(sim.run_until(3_us), InternalError);
}

TEST(Simulator, RunUntilSkipsCancelledEventsBeforeTheLimit) {
  Simulator sim;
  Log log{&sim, {}};
  const EventId early = sim.schedule_at(1_us, record, &log, 1);
  sim.schedule_at(5_us, record, &log, 2);
  ASSERT_TRUE(sim.cancel(early));
  sim.run_until(2_us);
  EXPECT_TRUE(log.calls.empty());
  EXPECT_EQ(sim.now(), 2_us);
  sim.schedule_at(3_us, record, &log, 3);
  sim.run();
  EXPECT_THAT(log.calls, ElementsAre(std::pair{3_us, 3u}, std::pair{5_us, 2u}));
}

struct Stopper {
  Simulator* sim;
  int calls = 0;
  void fire(std::uint64_t stop_here) {
    ++calls;
    if (stop_here != 0) sim->stop();
  }
};

TEST(Simulator, StopReturnsAfterTheCurrentEventAndRunResumes) {
  Simulator sim;
  Stopper s{&sim};
  sim.schedule_at<&Stopper::fire>(1_ns, &s, 0);
  sim.schedule_at<&Stopper::fire>(2_ns, &s, 1);
  sim.schedule_at<&Stopper::fire>(2_ns, &s, 0);
  sim.schedule_at<&Stopper::fire>(3_ns, &s, 0);
  sim.run();
  EXPECT_EQ(s.calls, 2);
  EXPECT_EQ(sim.now(), 2_ns);
  EXPECT_EQ(sim.pending(), 2u);
  sim.run_until(2_ns);
  EXPECT_EQ(s.calls, 3) << "stop() does not outlive the run that saw it";
  sim.schedule_at<&Stopper::fire>(10_ns, &s, 1);
  sim.schedule_at<&Stopper::fire>(50_ns, &s, 0);
  sim.run_until(100_ns);
  EXPECT_EQ(s.calls, 5);
  EXPECT_EQ(sim.now(), 10_ns) << "stopped, so the clock stays at the stopping event";
  EXPECT_EQ(sim.pending(), 1u);
}

TEST(Simulator, CancelAndRescheduleThroughTheSimulator) {
  Simulator sim;
  Log log{&sim, {}};
  const EventId a = sim.schedule_at(5_ns, record, &log, 1);
  const EventId b = sim.schedule_at(6_ns, record, &log, 2);
  const EventId c = sim.schedule_at(7_ns, record, &log, 3);
  EXPECT_TRUE(sim.cancel(b));
  EXPECT_FALSE(sim.cancel(b));
  const EventId a2 = sim.reschedule(a, 8_ns);
  EXPECT_TRUE(sim.is_pending(a2));
  EXPECT_FALSE(sim.is_pending(a));
  EXPECT_FALSE(sim.reschedule(b, 9_ns).valid());
  sim.run();
  EXPECT_THAT(log.calls, ElementsAre(std::pair{7_ns, 3u}, std::pair{8_ns, 1u}));
  EXPECT_FALSE(sim.cancel(c)) << "c has run";
  EXPECT_FALSE(sim.reschedule(a2, 9_ns).valid());
  EXPECT_EQ(sim.events_processed(), 2u);
}

TEST(Simulator, SchedulingInThePastIsABug) {
  Simulator sim;
  Log log{&sim, {}};
  sim.schedule_at(5_ns, record, &log, 1);
  const EventId later = sim.schedule_at(9_ns, record, &log, 2);
  sim.run_until(6_ns);
  try {
    sim.schedule_at(4_ns, record, &log, 3);
    FAIL() << "expected InternalError";
  } catch (const InternalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("event scheduled at 4ns, before now 6ns"));
  }
  EXPECT_THROW(sim.schedule_in(Time::ps(-1), record, &log, 3), InternalError);
  EXPECT_THROW(sim.reschedule(later, 5_ns), InternalError);
  EXPECT_EQ(sim.pending(), 1u);
}

void throw_user_error(void*, std::uint64_t) { throw UserError("bad input"); }

TEST(Simulator, ExceptionFromAnActionLeavesTheSimulatorUsable) {
  Simulator sim;
  Log log{&sim, {}};
  sim.schedule_at(1_ns, throw_user_error, nullptr);
  sim.schedule_at(2_ns, record, &log, 7);
  EXPECT_THROW(sim.run(), UserError);
  EXPECT_EQ(sim.now(), 1_ns);
  sim.run();
  EXPECT_THAT(log.calls, ElementsAre(std::pair{2_ns, 7u}));
}

// Reposts itself `delay` later until `left` runs out.
struct Repeater {
  Simulator* sim = nullptr;
  Time delay;
  std::uint64_t left = 0;
  void fire() {
    if (left-- > 0) sim->post_in<&Repeater::fire>(delay, this);
  }
};

TEST(Simulator, WatchdogStopsARunWhoseClockNoLongerAdvances) {
  Simulator sim;
  Repeater stuck{&sim, Time::zero(), ~std::uint64_t{0}};
  sim.schedule_at<&Repeater::fire>(5_ns, &stuck);
  sim.set_watchdog(std::chrono::nanoseconds(1));
  sim.run();
  EXPECT_TRUE(sim.stalled());
  EXPECT_EQ(sim.now(), 5_ns);
  // The first window moved the clock from 0 to 5 ns; the second did not.
  EXPECT_EQ(sim.events_processed(), 2 * Simulator::kWatchdogEvents);
}

TEST(Simulator, WatchdogLetsAnAdvancingClockRun) {
  Simulator sim;
  Repeater ticking{&sim, Time::ps(1), 3 * Simulator::kWatchdogEvents};
  sim.schedule_at<&Repeater::fire>(Time::zero(), &ticking);
  sim.set_watchdog(std::chrono::nanoseconds(1));
  sim.run();
  EXPECT_FALSE(sim.stalled());
  EXPECT_EQ(sim.events_processed(), 3 * Simulator::kWatchdogEvents + 1);
}

// Over MPI ranks each process's verdict goes through an agreement; what it returns is what
// every process does, whatever its own clock says.
struct Verdicts {
  std::vector<bool> seen;  // this process's verdict at each check
  std::size_t stall_at = 0;  // the agreement says "stalled" at this check (1-based; 0 = never)
  static bool agree(void* context, bool stalled_here) {
    auto* v = static_cast<Verdicts*>(context);
    v->seen.push_back(stalled_here);
    return v->seen.size() == v->stall_at;
  }
};

TEST(Simulator, AStallAgreedElsewhereStopsARunWhoseOwnClockAdvances) {
  Simulator sim;
  Repeater ticking{&sim, Time::ps(1), 10 * Simulator::kWatchdogEvents};
  sim.schedule_at<&Repeater::fire>(Time::zero(), &ticking);
  sim.set_watchdog(std::chrono::hours(1));
  Verdicts verdicts{{}, 2};
  sim.set_stall_agreement(&Verdicts::agree, &verdicts);
  sim.run();
  EXPECT_TRUE(sim.stalled());
  EXPECT_EQ(verdicts.seen, (std::vector<bool>{false, false}));
  EXPECT_EQ(sim.events_processed(), 2 * Simulator::kWatchdogEvents);
}

TEST(Simulator, AStallNotAgreedDoesNotStopTheRun) {
  Simulator sim;
  Repeater stuck{&sim, Time::zero(), 3 * Simulator::kWatchdogEvents};
  sim.schedule_at<&Repeater::fire>(5_ns, &stuck);
  sim.set_watchdog(std::chrono::nanoseconds(1));
  Verdicts verdicts;  // never agrees
  sim.set_stall_agreement(&Verdicts::agree, &verdicts);
  sim.run();
  EXPECT_FALSE(sim.stalled());
  // This process saw its clock stand still at every check after the first.
  EXPECT_EQ(verdicts.seen, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(sim.events_processed(), 3 * Simulator::kWatchdogEvents + 1);
}

TEST(Simulator, CheckHookSeesEveryWindowAndCanStopTheRun) {
  constexpr std::uint64_t k = Simulator::kWatchdogEvents;
  Simulator sim;
  Repeater ticking{&sim, Time::ps(1), 10 * k};
  sim.schedule_at<&Repeater::fire>(Time::zero(), &ticking);
  struct Seen {
    Simulator* sim;
    std::vector<std::uint64_t> events;
  } seen{&sim, {}};
  sim.set_check_hook(
      [](void* context) {
        auto* s = static_cast<Seen*>(context);
        s->events.push_back(s->sim->events_processed());
        return s->events.size() < 3;  // stop at the third check
      },
      &seen);
  sim.run();
  EXPECT_TRUE(sim.interrupted());
  EXPECT_FALSE(sim.stalled());
  EXPECT_EQ(seen.events, (std::vector<std::uint64_t>{k, 2 * k, 3 * k}));
  EXPECT_EQ(sim.events_processed(), 3 * k);
  // Without the hook a later run resumes the pending events to the end and is not interrupted.
  sim.set_check_hook(nullptr, nullptr);
  sim.run();
  EXPECT_FALSE(sim.interrupted());
  EXPECT_EQ(sim.events_processed(), 10 * k + 1);
}

}  // namespace
}  // namespace loom
