#include "loom/collective/ring_execution.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective {

namespace {

std::uint32_t ring_steps(const CollectiveSpec& spec) {
  const std::uint32_t n = spec.members;
  return spec.op == CollectiveOp::kAllReduce ? 2 * (n - 1) : n - 1;
}

// (member - back) mod n, for any back >= 0.
std::uint32_t ring_back(std::uint32_t member, std::uint64_t back, std::uint32_t n) {
  return static_cast<std::uint32_t>((std::uint64_t{member} + n - back % n) % n);
}

}  // namespace

RingExecution::RingExecution(const CollectiveSpec& spec)
    : spec_(spec),
      steps_(ring_steps(spec)),
      tracker_(spec.members, ring_steps(spec), ring_steps(spec)),
      issued_(spec.members, 0) {}

Transfer RingExecution::step_transfer(std::uint32_t member, std::uint32_t step) const {
  const std::uint32_t n = spec_.members;
  const std::uint32_t next = static_cast<std::uint32_t>((std::uint64_t{member} + 1) % n);
  Transfer t{.src = member, .dst = next, .bytes = 0, .block = 0, .action = DataAction::kCopy, .tag = step};
  switch (spec_.op) {
    case CollectiveOp::kReduceScatter:
      t.block = ring_back(member, std::uint64_t{step} + 1, n);
      t.action = DataAction::kReduce;
      break;
    case CollectiveOp::kAllGather:
      t.block = ring_back(member, step, n);
      break;
    case CollectiveOp::kAllReduce:
      if (step < n - 1) {
        t.block = ring_back(member, std::uint64_t{step} + 1, n);
        t.action = DataAction::kReduce;
      } else {
        t.block = ring_back(member, step - (n - 1), n);
      }
      break;
    case CollectiveOp::kAllToAll:
      t.dst = static_cast<std::uint32_t>((std::uint64_t{member} + step + 1) % n);
      t.block = member * n + t.dst;
      break;
  }
  t.bytes = block_bytes(spec_, t.block);
  return t;
}

void RingExecution::start(Progress& out) {
  LOOM_ASSERT(!started_, "RingExecution::start called twice");
  started_ = true;
  if (steps_ > 0) {
    out.ready.reserve(out.ready.size() + spec_.members);
    for (std::uint32_t member = 0; member < spec_.members; ++member) advance(member, out);
  }
  tracker_.start(out);
}

void RingExecution::on_done(const Transfer& done, Progress& out) {
  LOOM_ASSERT(started_, "RingExecution::on_done before start");
  LOOM_ASSERT(done.tag < steps_, fmt::format("ring step {} of {}", done.tag, steps_));
  tracker_.on_done(done, out);
  advance(done.src, out);
  if (spec_.op != CollectiveOp::kAllToAll) advance(done.dst, out);
}

void RingExecution::advance(std::uint32_t member, Progress& out) {
  const std::uint32_t step = issued_[member];
  if (step == steps_ || tracker_.sends_done(member) < step) return;
  if (spec_.op != CollectiveOp::kAllToAll && tracker_.receives_done(member) < step) return;
  issued_[member] = step + 1;
  out.ready.push_back(step_transfer(member, step));
}

}  // namespace loom::collective
