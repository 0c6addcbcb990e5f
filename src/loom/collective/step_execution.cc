#include "loom/collective/step_execution.h"

#include <fmt/format.h>

#include "loom/collective/block_layout.h"
#include "loom/core/error.h"

namespace loom::collective {

namespace {
constexpr std::uint32_t kSlotBits = 8;  // tag = thread << kSlotBits | slot
}

StepExecution::StepExecution(const CollectiveSpec& spec, std::unique_ptr<StepSchedule> schedule)
    : spec_(spec),
      schedule_(std::move(schedule)),
      threads_(schedule_->threads()),
      slots_(schedule_->slots()) {
  LOOM_ASSERT(threads_ >= 1 && threads_ <= 8 && slots_ <= 32, "step schedule shape out of range");
  const std::size_t threads = static_cast<std::size_t>(spec.members) * spec.channels * threads_;
  thread_state_.resize(threads);
  counters_.resize(threads * slots_);
  members_.resize(spec.members);
  for (std::uint32_t m = 0; m < spec.members; ++m) {
    std::uint64_t expected = 0;
    for (std::uint32_t c = 0; c < spec.channels; ++c) expected += schedule_->receives(m, c);
    expected *= spec.chunks;
    LOOM_ASSERT(expected < 0xffffffffu, "receives per member overflow 32 bits");
    members_[m].expected = static_cast<std::uint32_t>(expected);
  }
}

std::size_t StepExecution::memory_bytes() const {
  return sizeof(*this) + thread_state_.capacity() * sizeof(Thread) + counters_.capacity() * sizeof(Counter) +
         members_.capacity() * sizeof(Member);
}

void StepExecution::start(Progress& out) {
  LOOM_ASSERT(!started_, "StepExecution::start called twice");
  started_ = true;
  for (std::uint32_t m = 0; m < spec_.members; ++m) {
    for (std::uint32_t c = 0; c < spec_.channels; ++c) {
      for (std::uint32_t t = 0; t < threads_; ++t) {
        if (schedule_->length(m, c, t) == 0) thread_done(m, out);
      }
      advance_all(m, c, out);
    }
    report_if_finished(m, out);
  }
}

std::size_t StepExecution::sender_thread(const Transfer& t) const {
  LOOM_ASSERT(started_, "StepExecution: a transfer reported before start");
  const std::uint32_t thread = t.tag >> kSlotBits;
  const std::uint32_t slot = t.tag & ((1u << kSlotBits) - 1);
  LOOM_ASSERT(t.src < spec_.members && t.dst < spec_.members && t.channel < spec_.channels && thread < threads_ &&
                  slot < slots_,
              fmt::format("transfer {} -> {} tag {} channel {} is not one of this execution's", t.src, t.dst, t.tag,
                          t.channel));
  return thread_index(t.src, t.channel, thread);
}

void StepExecution::release_sender(const Transfer& sent, Progress& out) {
  Thread& sender = thread_state_[sender_thread(sent)];
  LOOM_ASSERT(sender.outstanding > 0, fmt::format("member {} has no send outstanding", sent.src));
  --sender.outstanding;
  const std::uint32_t thread = sent.tag >> kSlotBits;
  const std::uint32_t total = schedule_->length(sent.src, sent.channel, thread) * spec_.chunks;
  if (sender.outstanding == 0 && sender.pc == total) thread_done(sent.src, out);
  advance_all(sent.src, sent.channel, out);
  report_if_finished(sent.src, out);
}

void StepExecution::on_sent(const Transfer& sent, Progress& out) {
  sent_reported_ = true;
  release_sender(sent, out);
}

void StepExecution::on_done(const Transfer& done, Progress& out) {
  const std::size_t sender = sender_thread(done);
  if (!sent_reported_) release_sender(done, out);
  const std::uint32_t thread = static_cast<std::uint32_t>(sender % threads_);
  const std::uint32_t slot = done.tag & ((1u << kSlotBits) - 1);
  Counter& counter = counters_[thread_index(done.dst, done.channel, thread) * slots_ + slot];
  ++counter.arrived;
  Member& receiver = members_[done.dst];
  LOOM_ASSERT(receiver.received < receiver.expected,
              fmt::format("member {} received more than {} transfers", done.dst, receiver.expected));
  ++receiver.received;
  advance_all(done.dst, done.channel, out);
  report_if_finished(done.dst, out);
}

void StepExecution::advance_all(std::uint32_t member, std::uint32_t channel, Progress& out) {
  bool moved = true;
  while (moved) {
    moved = false;
    for (std::uint32_t t = 0; t < threads_; ++t) moved = advance(member, channel, t, out) || moved;
  }
}

std::uint32_t StepExecution::completed(std::size_t thread) const {
  const Thread& th = thread_state_[thread];
  return th.pc - (th.outstanding > 0 ? 1 : 0);
}

bool StepExecution::ready(std::uint32_t member, std::uint32_t channel, std::uint32_t chunk, const Step& step) const {
  const std::size_t base = thread_index(member, channel, 0);
  if (step.after_thread != kNoThread) {
    const std::uint64_t need =
        std::uint64_t{chunk} * schedule_->length(member, channel, step.after_thread) + step.after_step;
    if (completed(base + step.after_thread) <= need) return false;
  }
  return true;
}

bool StepExecution::advance(std::uint32_t member, std::uint32_t channel, std::uint32_t thread, Progress& out) {
  const std::size_t index = thread_index(member, channel, thread);
  const std::uint32_t length = schedule_->length(member, channel, thread);
  const std::uint32_t total = length * spec_.chunks;
  bool moved = false;
  while (thread_state_[index].outstanding == 0 && thread_state_[index].pc < total) {
    Thread& th = thread_state_[index];
    const std::uint32_t chunk = th.pc / length;
    const Step step = schedule_->step(member, channel, thread, th.pc % length);
    if (!ready(member, channel, chunk, step)) break;
    Counter* counters = &counters_[index * slots_];
    bool received = true;
    for (std::uint32_t s = 0; s < slots_; ++s) {
      if ((step.recv_mask >> s & 1u) != 0 && counters[s].arrived == counters[s].consumed) received = false;
    }
    if (!received) break;
    for (std::uint32_t s = 0; s < slots_; ++s) {
      if ((step.recv_mask >> s & 1u) != 0) ++counters[s].consumed;
    }
    ++th.pc;
    th.outstanding = step.send_count;
    moved = true;
    for (std::uint32_t i = 0; i < step.send_count; ++i) {
      emit(member, channel, thread, chunk, th.pc - 1, step.sends[i], out);
    }
    if (step.send_count == 0 && th.pc == total) thread_done(member, out);
  }
  return moved;
}

void StepExecution::emit(std::uint32_t member, std::uint32_t channel, std::uint32_t thread, std::uint32_t chunk,
                         std::uint32_t pc, const StepSend& send, Progress& out) const {
  LOOM_ASSERT(send.peer < spec_.members && send.peer != member && send.slot < slots_,
              fmt::format("member {} sends to {} slot {}", member, send.peer, send.slot));
  Transfer t;
  t.src = member;
  t.dst = send.peer;
  t.block = send.block;
  t.blocks = send.blocks;
  t.piece = channel * spec_.chunks + chunk;
  t.channel = channel;
  t.action = send.action;
  t.tag = thread << kSlotBits | send.slot;
  t.step = pc;
  t.protocol = spec_.protocol;
  price_transfer(spec_, t);
  out.ready.push_back(t);
}

void StepExecution::thread_done(std::uint32_t member, Progress& out) {
  ++members_[member].threads_done;
  report_if_finished(member, out);
}

void StepExecution::report_if_finished(std::uint32_t member, Progress& out) {
  Member& m = members_[member];
  if (m.reported || m.threads_done != spec_.channels * threads_ || m.received != m.expected) return;
  m.reported = true;
  ++finished_members_;
  out.finished_members.push_back(member);
}

}  // namespace loom::collective
