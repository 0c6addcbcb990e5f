// The barrier that ends the windowed executor's windows (parallel/window_barrier.h): one
// completion per phase, run after every thread's work of the phase and seen by every thread
// after it, whether the waiting threads spin, sleep at once, or outnumber the cores.
#include "loom/network/packet/parallel/window_barrier.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace loom::network::packet::parallel {
namespace {

// `threads` threads each add their phase's work to a counter of their own, then meet; the
// completion checks that every thread's work of the phase is visible and publishes the phase's
// total, which every thread reads after the barrier. Returns the mismatches seen (0 expected).
std::uint64_t run_phases(std::uint32_t threads, std::uint32_t phases, WindowBarrier& barrier) {
  // Plain (non-atomic) memory: only the barrier orders it. One cache line per thread.
  struct alignas(64) Work {
    std::uint64_t done = 0;
    std::uint64_t mismatches = 0;  // totals this thread read wrong after the barrier
  };
  std::vector<Work> work(threads);
  std::uint64_t total = 0;  // written by the completion only
  std::uint64_t completions = 0, completion_mismatches = 0;
  const auto body = [&](std::uint32_t t) {
    for (std::uint32_t phase = 1; phase <= phases; ++phase) {
      // Uneven work, so that threads arrive in changing orders.
      if ((phase + t) % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
      work[t].done += phase;
      barrier.arrive_and_wait([&]() noexcept {
        ++completions;
        std::uint64_t sum = 0;
        for (const Work& w : work) sum += w.done;
        // Each thread has added 1 + ... + phase.
        if (sum != threads * (std::uint64_t{phase} * (phase + 1) / 2)) ++completion_mismatches;
        total = sum;
      });
      if (total != threads * (std::uint64_t{phase} * (phase + 1) / 2)) ++work[t].mismatches;
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (std::uint32_t t = 1; t < threads; ++t) helpers.emplace_back(body, t);
    body(0);
  }
  EXPECT_EQ(completions, phases);
  EXPECT_EQ(barrier.phases(), phases);
  std::uint64_t seen = completion_mismatches;
  for (const Work& w : work) seen += w.mismatches;
  return seen;
}

TEST(WindowBarrier, OneCompletionPerPhaseAfterEveryThreadsWork) {
  for (const std::uint32_t threads : {1u, 2u, 3u}) {
    WindowBarrier barrier(threads);
    EXPECT_EQ(run_phases(threads, 300, barrier), 0u) << threads << " threads";
  }
}

TEST(WindowBarrier, SleepingWaitersAreWoken) {
  // No spin: every waiter sleeps on the phase word, and each phase must wake it.
  WindowBarrier barrier(2, std::chrono::nanoseconds::zero());
  EXPECT_EQ(run_phases(2, 200, barrier), 0u);
  EXPECT_GT(barrier.sleeps(), 0u);
}

TEST(WindowBarrier, MoreThreadsThanCoresSleepAtOnce) {
  // More threads than cores: a spinner could hold the core the last thread needs, so none spins.
  const std::uint32_t threads = std::thread::hardware_concurrency() + 2;
  WindowBarrier barrier(threads, std::chrono::seconds(10));
  EXPECT_EQ(run_phases(threads, 100, barrier), 0u);
  EXPECT_GT(barrier.sleeps(), 0u);
}

TEST(WindowBarrier, TheSpinShrinksWhenWaitsOutlastIt) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two cores";
  const auto max = std::chrono::microseconds(100);
  WindowBarrier barrier(2, max);
  // Thread 1 arrives 20 ms late three times: thread 0's waits spin out and halve the budget
  // (down to max / 8 unless thread 0 itself was held up 20 ms on a busy machine).
  const auto body = [&](std::uint32_t t) {
    for (int i = 0; i < 3; ++i) {
      if (t == 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      barrier.arrive_and_wait([]() noexcept {});
    }
  };
  {
    std::jthread other(body, 1);
    body(0);
  }
  EXPECT_GE(barrier.sleeps(), 1u);
  EXPECT_LT(barrier.spin_budget(), max);
  EXPECT_GE(barrier.spin_budget(), WindowBarrier::kMinSpin);
}

TEST(WindowBarrier, ASpinLongerThanTheWaitNeverSleeps) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two cores";
  // The waiter spins through the other thread's 50 us pauses without sleeping.
  WindowBarrier barrier(2, std::chrono::seconds(10));
  EXPECT_EQ(run_phases(2, 50, barrier), 0u);
  EXPECT_EQ(barrier.sleeps(), 0u);
}

}  // namespace
}  // namespace loom::network::packet::parallel
