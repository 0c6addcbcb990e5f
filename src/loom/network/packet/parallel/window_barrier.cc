#include "loom/network/packet/parallel/window_barrier.h"

#include <algorithm>
#include <thread>

#include "loom/core/error.h"

namespace loom::network::packet::parallel {

namespace {

// Tells the core that this is a spin-wait (frees the pipeline for a sibling hyper-thread and
// eases the memory-order flush when the awaited write lands).
inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Pauses between looks at the clock while spinning (a clock read costs about as much as a few
// pauses; the spin's length need not be exact).
constexpr int kPausesPerClockRead = 64;

}  // namespace

WindowBarrier::WindowBarrier(std::uint32_t threads, std::chrono::nanoseconds spin)
    : threads_(threads),
      spin_(threads <= std::thread::hardware_concurrency() ? spin : std::chrono::nanoseconds::zero()),
      budget_ns_(spin_.count()) {
  LOOM_ASSERT(threads >= 1, "a barrier for no thread");
}

void WindowBarrier::release() {
  // Sequentially consistent with the sleepers' count (Dekker): either a thread about to sleep
  // sees the new phase, or this sees it counted and wakes it.
  phase_.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) != 0) phase_.notify_all();
}

void WindowBarrier::wait(std::uint32_t phase) {
  const std::int64_t budget = budget_ns_.load(std::memory_order_relaxed);
  if (budget > 0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(budget);
    for (;;) {
      for (int i = 0; i < kPausesPerClockRead; ++i) {
        if (phase_.load(std::memory_order_acquire) != phase) {
          budget_ns_.store(std::min(budget * 2, spin_.count()), std::memory_order_relaxed);
          return;
        }
        pause();
      }
      if (std::chrono::steady_clock::now() >= deadline) break;
    }
    budget_ns_.store(std::max(budget / 2, kMinSpin.count()), std::memory_order_relaxed);
  }
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  sleeps_.fetch_add(1, std::memory_order_relaxed);
  while (phase_.load(std::memory_order_seq_cst) == phase) phase_.wait(phase, std::memory_order_seq_cst);
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace loom::network::packet::parallel
