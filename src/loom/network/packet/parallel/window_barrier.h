// The barrier that ends each window of the windowed executor's threads (windowed_executor.h):
// the last thread to arrive runs the completion (the work between windows) while the others
// wait, then releases them.
//
// Why not std::barrier: libstdc++'s waits spin for a few dozen iterations and then sleep on a
// futex, so nearly every window costs the waiting thread a sleep and a wake-up (a system call
// on each side and the scheduler's latency, tens of microseconds on a virtual machine) against
// windows of 0.1-1 ms of work. Here a waiting thread spins (with the CPU's pause hint) for up to
// a budget of wall time, which covers the usual wait (the other thread's last events of the
// window and the completion), and only then sleeps on the phase word (std::atomic::wait). The
// budget adapts: it halves after a wait that ended asleep (on a busy machine the awaited thread
// is often descheduled, and spinning would only take the core from it) and doubles after one
// that ended spinning, between kMinSpin and the spin given. The releasing thread makes the
// wake-up system call only when some thread sleeps.
//
// Memory order: everything a thread wrote before arriving is visible to the completion, and
// everything the completion wrote to every thread after the barrier (acquire/release on the
// arrival count and the phase).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace loom::network::packet::parallel {

class WindowBarrier {
 public:
  // Long enough to cover a window's imbalance between two threads and the completion on an
  // idle machine; short against the scheduler's time slice (a few ms), so a descheduled peer
  // costs a waiting thread at most this much CPU before it sleeps.
  static constexpr std::chrono::nanoseconds kSpin = std::chrono::microseconds(200);
  // The least the budget shrinks to (about a wake-up's system calls).
  static constexpr std::chrono::nanoseconds kMinSpin = std::chrono::microseconds(2);

  // `threads` >= 1 threads meet at each phase; `spin`: the longest a waiting thread spins
  // before it sleeps, and the first budget (zero: it always sleeps at once). More threads than the machine's cores never spin: the
  // thread they wait for may be waiting for the core they spin on.
  explicit WindowBarrier(std::uint32_t threads, std::chrono::nanoseconds spin = kSpin);
  WindowBarrier(const WindowBarrier&) = delete;
  WindowBarrier& operator=(const WindowBarrier&) = delete;

  // Arrives and waits for the other threads; the last to arrive runs completion() first (it
  // must not throw) and then releases every thread of the phase.
  template <class Completion>
  void arrive_and_wait(Completion&& completion) {
    const std::uint32_t phase = phase_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      // Nobody arrives again before the release below.
      arrived_.store(0, std::memory_order_relaxed);
      completion();
      release();
    } else {
      wait(phase);
    }
  }

  // Phases completed, for tests.
  std::uint32_t phases() const { return phase_.load(std::memory_order_acquire); }
  // Times a waiting thread went to sleep (spun out its budget), for tests and measurements.
  std::uint64_t sleeps() const { return sleeps_.load(std::memory_order_relaxed); }
  // The spin budget now.
  std::chrono::nanoseconds spin_budget() const {
    return std::chrono::nanoseconds(budget_ns_.load(std::memory_order_relaxed));
  }

 private:
  void release();
  void wait(std::uint32_t phase);

  const std::uint32_t threads_;
  const std::chrono::nanoseconds spin_;
  std::atomic<std::int64_t> budget_ns_;  // read and adapted by every waiter, relaxed
  // Each written by every thread once per phase: on cache lines of their own.
  alignas(64) std::atomic<std::uint32_t> arrived_{0};
  alignas(64) std::atomic<std::uint32_t> phase_{0};
  alignas(64) std::atomic<std::uint32_t> sleepers_{0};
  std::atomic<std::uint64_t> sleeps_{0};
};

}  // namespace loom::network::packet::parallel
