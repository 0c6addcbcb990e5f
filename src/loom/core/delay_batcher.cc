#include "loom/core/delay_batcher.h"

#include <algorithm>
#include <utility>

namespace loom {

DelayBatcher::DelayBatcher(Simulator& simulator, EventFn fn, void* context)
    : simulator_(simulator), fn_(fn), context_(context) {
  LOOM_ASSERT(fn != nullptr, "delay batcher without an action");
}

DelayBatcher::Line* DelayBatcher::line_for(Time delay, std::uint64_t& index) {
  for (std::size_t i = 0; i < line_count_; ++i) {
    if (lines_[i].delay == delay) {
      index = i;
      return &lines_[i];
    }
  }
  for (std::size_t i = 0; i < line_count_; ++i) {
    if (!lines_[i].armed) {  // idle: free for another delay
      index = i;
      lines_[i].delay = delay;
      return &lines_[i];
    }
  }
  if (line_count_ == kMaxLines) return nullptr;
  index = line_count_;
  lines_[line_count_].delay = delay;
  return &lines_[line_count_++];
}

void DelayBatcher::grow(Line& line) {
  // Unroll the ring into a buffer twice the size, oldest call first.
  std::vector<Call> grown(std::max<std::size_t>(16, 2 * line.calls.size()));
  for (std::size_t i = 0; i < line.size; ++i) grown[i] = line.calls[(line.head + i) & (line.calls.size() - 1)];
  line.calls = std::move(grown);
  line.head = 0;
}

void DelayBatcher::add_slow(Time delay, std::uint64_t arg) {
  LOOM_ASSERT(delay >= Time::zero(), "negative delay " + to_string(delay));
  std::uint64_t index = 0;
  Line* line = line_for(delay, index);
  if (line == nullptr) {
    simulator_.post_in(delay, fn_, context_, arg);
    return;
  }
  last_ = index;
  append(*line, index, Call{simulator_.now() + delay, arg});
}

void DelayBatcher::run_batch(void* self, std::uint64_t index) {
  auto* batcher = static_cast<DelayBatcher*>(self);
  Line& line = batcher->lines_[index];
  const Time now = batcher->simulator_.now();
  // Batches do not nest (each is one simulator event), so a plain pointer suffices.
  batcher->running_ = &line;
  try {
    // fn_ may add to this line (growing its buffer), so nothing is held across the call.
    while (line.size != 0 && line.calls[line.head].due == now) {
      const std::uint64_t arg = line.calls[line.head].arg;
      line.head = (line.head + 1) & (line.calls.size() - 1);
      --line.size;
      batcher->fn_(batcher->context_, arg);
    }
  } catch (...) {
    batcher->running_ = nullptr;
    batcher->rearm(line, index);  // the calls after the failing one stay due
    throw;
  }
  batcher->running_ = nullptr;
  batcher->rearm(line, index);
}

void DelayBatcher::rearm(Line& line, std::uint64_t index) {
  if (line.size == 0) {
    line.armed = false;
  } else {
    simulator_.post_at(line.calls[line.head].due, &DelayBatcher::run_batch, this, index);
  }
}

std::size_t DelayBatcher::waiting() const {
  std::size_t total = 0;
  for (std::size_t i = 0; i < line_count_; ++i) total += lines_[i].size;
  return total;
}

}  // namespace loom
