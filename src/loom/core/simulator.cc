#include "loom/core/simulator.h"

namespace loom {

EventId Simulator::reschedule(EventId id, Time when) {
  LOOM_ASSERT(when >= now_, "event rescheduled to " + to_string(when) + ", before now " +
                                to_string(now_));
  return queue_.reschedule(id, when);
}

void Simulator::run() {
  stop_requested_ = false;
  while (!stop_requested_ && !queue_.empty()) fire(queue_.pop());
}

void Simulator::run_until(Time limit) {
  LOOM_ASSERT(limit >= now_, "run_until(" + to_string(limit) + ") is before now " +
                                 to_string(now_));
  stop_requested_ = false;
  EventQueue::Fired event{};
  while (!stop_requested_ && queue_.pop_due(limit, event)) fire(event);
  if (!stop_requested_ && !queue_.empty()) now_ = limit;
}

}  // namespace loom
