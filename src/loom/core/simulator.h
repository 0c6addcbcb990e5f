// The discrete-event kernel: a clock and the events scheduled against it.
//
// A Simulator owns one EventQueue and the current time now(). run() repeatedly takes the
// earliest event (ties by order key, then scheduling order: EventQueue's Order), advances now()
// to its time and calls its action.
// Actions are plain function pointers with a context pointer and a 64-bit argument, or member
// functions bound at compile time:
//
//   struct Port { void transmit_done(std::uint64_t packet); };
//   sim.schedule_in<&Port::transmit_done>(serialisation, &port, packet_id);
//
// The object must outlive the event (or the event must be cancelled first).
//
// Invariants: now() never decreases; scheduling before now() is a bug (LOOM_ASSERT).
// Complexity: as EventQueue (schedule O(1), each processed event O(log spread) amortised).
// No process-global state: one Simulator per thread, passed explicitly to whatever schedules.
// If an action throws, the exception leaves run()/run_until(); the event counts as processed
// and the simulator stays usable.
#pragma once

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "loom/core/event_queue.h"
#include "loom/core/time.h"

namespace loom {

namespace detail {
// The EventFn for a member function: calls (object->*Method)(arg) or (object->*Method)().
template <auto Method, class T>
void call_member(void* context, std::uint64_t arg) {
  T* object = static_cast<T*>(context);
  if constexpr (std::invocable<decltype(Method), T*, std::uint64_t>) {
    std::invoke(Method, object, arg);
  } else {
    std::invoke(Method, object);
  }
}
}  // namespace detail

class Simulator {
 public:
  Simulator() = default;
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Current simulated time; starts at zero.
  Time now() const { return now_; }
  // The order key of the event running now (of the last one run, between events): with now(),
  // where that event stands among simultaneous events, e.g. to merge logs of several simulators
  // in the order one would have run them.
  std::uint32_t current_order() const { return current_order_; }

  // Schedules fn(context, arg) at `when` (>= now()), with its order key among simultaneous
  // events (EventQueue's Order). Returns an id for cancel()/reschedule().
  EventId schedule_at(Time when, EventFn fn, void* context, std::uint64_t arg = 0, std::uint32_t order = 0) {
    LOOM_ASSERT(when >= now_, "event scheduled at " + to_string(when) + ", before now " +
                                  to_string(now_));
    return queue_.push(when, fn, context, arg, order);
  }
  // Schedules fn(context, arg) at now() + delay (delay >= 0).
  EventId schedule_in(Time delay, EventFn fn, void* context, std::uint64_t arg = 0, std::uint32_t order = 0) {
    LOOM_ASSERT(delay >= Time::zero(), "negative delay " + to_string(delay));
    return queue_.push(now_ + delay, fn, context, arg, order);
  }

  // Schedules (object->*Method)(arg), or (object->*Method)() for a method without parameters.
  template <auto Method, class T>
  EventId schedule_at(Time when, T* object, std::uint64_t arg = 0, std::uint32_t order = 0) {
    static_assert(std::invocable<decltype(Method), T*, std::uint64_t> ||
                      std::invocable<decltype(Method), T*>,
                  "Method must be a member function of T taking (std::uint64_t) or ()");
    return schedule_at(when, &detail::call_member<Method, T>, object, arg, order);
  }
  template <auto Method, class T>
  EventId schedule_in(Time delay, T* object, std::uint64_t arg = 0, std::uint32_t order = 0) {
    static_assert(std::invocable<decltype(Method), T*, std::uint64_t> ||
                      std::invocable<decltype(Method), T*>,
                  "Method must be a member function of T taking (std::uint64_t) or ()");
    return schedule_in(delay, &detail::call_member<Method, T>, object, arg, order);
  }

  // As schedule_at / schedule_in for events that will never be cancelled or rescheduled (no
  // id, cheaper: EventQueue::post). Ordered with every other event by time, order key, then
  // scheduling.
  void post_at(Time when, EventFn fn, void* context, std::uint64_t arg = 0, std::uint32_t order = 0) {
    LOOM_ASSERT(when >= now_, "event posted at " + to_string(when) + ", before now " + to_string(now_));
    queue_.post(when, fn, context, arg, order);
  }
  void post_in(Time delay, EventFn fn, void* context, std::uint64_t arg = 0, std::uint32_t order = 0) {
    LOOM_ASSERT(delay >= Time::zero(), "negative delay " + to_string(delay));
    queue_.post(now_ + delay, fn, context, arg, order);
  }
  template <auto Method, class T>
  void post_at(Time when, T* object, std::uint64_t arg = 0, std::uint32_t order = 0) {
    post_at(when, &detail::call_member<Method, T>, object, arg, order);
  }
  template <auto Method, class T>
  void post_in(Time delay, T* object, std::uint64_t arg = 0, std::uint32_t order = 0) {
    post_in(delay, &detail::call_member<Method, T>, object, arg, order);
  }

  // Removes a pending event; false if it already ran, was cancelled or the id is stale.
  bool cancel(EventId id) { return queue_.cancel(id); }
  // Moves a pending event to `when` (>= now()) with the same action and order key; it counts as
  // scheduled now (after events already scheduled at `when` with its order key). Returns the new id, or an invalid id if `id` was not pending.
  EventId reschedule(EventId id, Time when);
  // Moves the pending events `matches` selects by `delta` (EventQueue::shift): ids stay valid;
  // none may land before now(). O(pending events).
  std::size_t shift_events(Time delta, EventQueue::EventFilter matches, void* filter_context) {
    return queue_.shift(delta, matches, filter_context);
  }
  // Removes the pending events `matches` selects (EventQueue::remove). O(pending events).
  std::size_t remove_events(EventQueue::EventFilter matches, void* filter_context) {
    return queue_.remove(matches, filter_context);
  }
  // True while the event named by `id` is pending.
  bool is_pending(EventId id) const { return queue_.contains(id); }

  // Processes events until none remain or stop() is called.
  void run();
  // Processes events with time <= limit (>= now()) until none remain or stop() is called. If
  // events later than `limit` remain (and stop() was not called), now() becomes `limit`;
  // otherwise now() is the time of the last processed event.
  void run_until(Time limit);
  // Moves now() to `when` without running anything: for an executor that runs several
  // simulators in step (network/packet/parallel/windowed_executor.h). No pending event may be
  // earlier than `when`.
  void advance_to(Time when);
  // Time of the earliest pending event (EventQueue::next_time: not O(1)); Time::max() when none.
  Time next_event_time() const { return queue_.empty() ? Time::max() : queue_.next_time(); }

  // Makes the current run()/run_until() return once the running action finishes. Pending
  // events stay queued; a later run() resumes them. Outside a run it has no effect.
  void stop() { stop_requested_ = true; }

  // No-progress watchdog: run() and run_until() return early, and stalled() turns true, once
  // now() has not advanced for `limit` of wall time. The wall clock is read every
  // kWatchdogEvents events (so a stall is seen within that many events of the limit), never
  // in between; a zero limit (the default) turns the watchdog off.
  static constexpr std::uint64_t kWatchdogEvents = std::uint64_t{1} << 16;
  void set_watchdog(std::chrono::nanoseconds limit) { watchdog_limit_ = limit; }
  bool stalled() const { return stalled_; }
  // Over processes that run one simulation in step (MPI ranks, each checking at the same event),
  // each process's wall clock would stop the run at another check. An agreement, called at every
  // check on every process alike with this process's verdict, returns the verdict all of them
  // take (a collective call); null (the default) is none.
  using StallAgreement = bool (*)(void* context, bool stalled_here);
  void set_stall_agreement(StallAgreement agreement, void* context) {
    stall_agreement_ = agreement;
    stall_context_ = context;
  }

  // A hook called at the watchdog's check, every kWatchdogEvents events and never in between (so
  // it costs nothing per event): for a progress display, or to stop on the user's request.
  // Returning false stops the run as stop() does and makes interrupted() true until the next
  // run()/run_until(). A null hook (the default) is none.
  using CheckHook = bool (*)(void* context);
  void set_check_hook(CheckHook hook, void* context) {
    check_hook_ = hook;
    check_context_ = context;
  }
  bool interrupted() const { return interrupted_; }

  // An observer called with every event just before its action runs, to profile a run (for
  // example how a parallel execution would split it); null (the default) is none. Costs one
  // test per event.
  using EventObserver = void (*)(void* context, const EventQueue::Fired& event);
  void set_event_observer(EventObserver observer, void* context) {
    observer_ = observer;
    observer_context_ = context;
  }

  // The event run() will process next, when the queue can tell in O(1) (EventQueue::peek): a
  // hint for prefetching what that event will touch; false says nothing.
  bool peek_next(EventQueue::Fired& out) const { return queue_.peek(out); }

  // Events processed since construction.
  std::uint64_t events_processed() const { return events_processed_; }
  // Events scheduled and not yet processed or cancelled.
  std::size_t pending() const { return queue_.size(); }

 private:
  void fire(const EventQueue::Fired& event) {
    now_ = event.time;
    current_order_ = event.order;
    ++events_processed_;
    if (observer_ != nullptr) observer_(observer_context_, event);
    event.fn(event.context, event.arg);
    if (events_processed_ % kWatchdogEvents == 0) check_progress();
  }
  void start_watchdog();
  void check_progress();

  EventQueue queue_;
  Time now_;
  std::uint32_t current_order_ = 0;
  std::uint64_t events_processed_ = 0;
  bool stop_requested_ = false;
  std::chrono::nanoseconds watchdog_limit_{0};
  Time watched_time_;                                 // now() at the last check that saw it move
  std::chrono::steady_clock::time_point watched_at_;  // wall time of that check
  bool stalled_ = false;
  StallAgreement stall_agreement_ = nullptr;
  void* stall_context_ = nullptr;
  CheckHook check_hook_ = nullptr;
  void* check_context_ = nullptr;
  bool interrupted_ = false;
  EventObserver observer_ = nullptr;
  void* observer_context_ = nullptr;
};

}  // namespace loom
