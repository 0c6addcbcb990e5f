// Many calls that each wait one of a few fixed delays, driven by few simulator events.
//
// add(delay, arg) calls fn(context, arg) at now() + delay, as Simulator::post_in would, but
// the calls of one delay value wait in a FIFO (their due times never decrease, because now()
// never does) and share one pending simulator event: the event for the FIFO's head time runs
// every call due at that time, back to back, then posts one event for the next head. A
// collective step whose eight transfers all start a protocol latency after the same instant
// costs one event instead of eight.
//
// Order: the calls of one delay run in the order they were added. Relative to other events
// due at the same instant, a batch runs where its event was posted (when its first call was
// added to an idle FIFO, or when the previous batch of that FIFO ran), so calls can run
// earlier among same-time events than separate post_in() events would; the order is still
// fully determined by the inputs. A batch is one event: Simulator::stop() takes effect after
// the whole batch.
//
// Delays: up to kMaxLines distinct values have a FIFO each at any time; a FIFO that has run
// empty serves the next new value. A call whose delay finds no FIFO falls back to its own
// event (correct, just not batched).
// fn may call add() again, including with delay zero: such a call joins the running batch.
//
// Cost: add O(1) amortised; a batch of n calls costs one event plus n FIFO pops. Memory: 16
// bytes per waiting call (the FIFOs keep their largest size). If fn throws, the exception
// leaves the simulator's run as any action's would; the calls after it stay due. The
// Simulator, the context and the batcher must outlive the pending calls. Not thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "loom/core/simulator.h"

namespace loom {

class DelayBatcher {
 public:
  static constexpr std::size_t kMaxLines = 16;

  DelayBatcher(Simulator& simulator, EventFn fn, void* context);
  DelayBatcher(const DelayBatcher&) = delete;
  DelayBatcher& operator=(const DelayBatcher&) = delete;

  // Calls fn(context, arg) at now() + delay (delay >= 0).
  void add(Time delay, std::uint64_t arg) {
    Line& line = lines_[last_];
    if (line.delay == delay && line.armed) [[likely]] {
      append(line, last_, Call{simulator_.now() + delay, arg});
    } else {
      add_slow(delay, arg);
    }
  }

  // Calls waiting in FIFOs (not those that fell back to their own events).
  std::size_t waiting() const;

  // While a batch runs: the argument of the call that runs right after the current one, if it
  // is in this batch (a hint for prefetching what it will touch).
  bool next_in_batch(std::uint64_t& arg) const {
    if (running_ == nullptr || running_->size == 0) return false;
    const Call& next = running_->calls[running_->head];
    if (next.due != simulator_.now()) return false;
    arg = next.arg;
    return true;
  }

 private:
  struct Call {
    Time due;
    std::uint64_t arg;
  };
  // A FIFO of calls with one delay: a ring buffer of power-of-two capacity.
  struct Line {
    Time delay;
    std::vector<Call> calls;
    std::size_t head = 0;
    std::size_t size = 0;
    bool armed = false;  // an event for the head's due time is pending
  };

  static void run_batch(void* self, std::uint64_t line);
  // add() when the FIFO used last is not the right one or is idle.
  void add_slow(Time delay, std::uint64_t arg);
  // The FIFO for `delay`, or null when kMaxLines other delays have busy ones.
  Line* line_for(Time delay, std::uint64_t& index);
  void append(Line& line, std::uint64_t index, const Call& call) {
    if (line.size == line.calls.size()) [[unlikely]] grow(line);
    line.calls[(line.head + line.size) & (line.calls.size() - 1)] = call;
    ++line.size;
    if (!line.armed) {
      line.armed = true;
      simulator_.post_at(call.due, &DelayBatcher::run_batch, this, index);
    }
  }
  static void grow(Line& line);
  // After a batch: posts the event for the line's new head, or marks the line idle.
  void rearm(Line& line, std::uint64_t index);

  Simulator& simulator_;
  EventFn fn_;
  void* context_;
  std::array<Line, kMaxLines> lines_;
  std::size_t line_count_ = 0;
  std::uint64_t last_ = 0;  // the FIFO add() found last: checked first
  const Line* running_ = nullptr;  // the FIFO whose batch is running
};

}  // namespace loom
