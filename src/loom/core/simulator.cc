#include "loom/core/simulator.h"

namespace loom {

EventId Simulator::reschedule(EventId id, Time when) {
  LOOM_ASSERT(when >= now_, "event rescheduled to " + to_string(when) + ", before now " +
                                to_string(now_));
  return queue_.reschedule(id, when);
}

void Simulator::advance_to(Time when) {
  LOOM_ASSERT(when >= now_, "advance_to(" + to_string(when) + ") is before now " + to_string(now_));
  LOOM_ASSERT(queue_.empty() || queue_.next_time() >= when,
              "advance_to(" + to_string(when) + ") passes a pending event");
  now_ = when;
}

void Simulator::start_watchdog() {
  stalled_ = false;
  interrupted_ = false;
  watched_time_ = now_;
  // Off, the watchdog needs no clock (a windowed run calls run_until per LP and window).
  if (watchdog_limit_ != std::chrono::nanoseconds::zero()) watched_at_ = std::chrono::steady_clock::now();
}

void Simulator::check_progress() {
  if (check_hook_ != nullptr && !check_hook_(check_context_)) {
    interrupted_ = true;
    stop_requested_ = true;
  }
  if (watchdog_limit_ == std::chrono::nanoseconds::zero()) return;
  const auto wall = std::chrono::steady_clock::now();
  bool stalled = false;
  if (now_ != watched_time_) {
    watched_time_ = now_;
    watched_at_ = wall;
  } else {
    stalled = wall - watched_at_ >= watchdog_limit_;
  }
  if (stall_agreement_ != nullptr) stalled = stall_agreement_(stall_context_, stalled);
  if (stalled) {
    stalled_ = true;
    stop_requested_ = true;
  }
}

void Simulator::run() {
  stop_requested_ = false;
  start_watchdog();
  while (!stop_requested_ && !queue_.empty()) fire(queue_.pop());
}

void Simulator::run_until(Time limit) {
  LOOM_ASSERT(limit >= now_, "run_until(" + to_string(limit) + ") is before now " +
                                 to_string(now_));
  stop_requested_ = false;
  start_watchdog();
  EventQueue::Fired event{};
  while (!stop_requested_ && queue_.pop_due(limit, event)) fire(event);
  if (!stop_requested_ && !queue_.empty()) now_ = limit;
}

}  // namespace loom
