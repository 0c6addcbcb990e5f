#include "loom/collective/ring_schedule.h"

#include "loom/core/error.h"

namespace loom::collective {

namespace {

// (member - back) mod n, for any back >= 0.
std::uint32_t ring_back(std::uint32_t member, std::uint64_t back, std::uint32_t n) {
  return static_cast<std::uint32_t>((std::uint64_t{member} + n - back % n) % n);
}

bool is_chain(CollectiveOp op) { return op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce; }

}  // namespace

RingSchedule::RingSchedule(const CollectiveSpec& spec)
    : op_(spec.op),
      n_(spec.members),
      root_(spec.root),
      steps_(spec.op == CollectiveOp::kAllReduce || spec.op == CollectiveOp::kBarrier ? 2 * (spec.members - 1)
                                                                                      : spec.members - 1) {
  LOOM_ASSERT(supports(Algorithm::kRing, spec.op), "ring schedule for an operation it does not implement");
}

std::uint32_t RingSchedule::chain_position(std::uint32_t member) const {
  const std::uint32_t start = op_ == CollectiveOp::kBroadcast ? root_ : (root_ + 1) % n_;
  return (member + n_ - start) % n_;
}

std::uint32_t RingSchedule::length(std::uint32_t, std::uint32_t, std::uint32_t) const {
  if (n_ == 1) return 0;
  if (is_chain(op_)) return 1;
  if (op_ == CollectiveOp::kAllToAll) return steps_;
  return steps_ + 1;  // entry t: receive step t-1 (t > 0), send step t (t < steps)
}

std::uint32_t RingSchedule::receives(std::uint32_t member, std::uint32_t) const {
  if (is_chain(op_)) return n_ > 1 && chain_position(member) > 0 ? 1 : 0;
  return steps_;
}

Step RingSchedule::step(std::uint32_t member, std::uint32_t, std::uint32_t, std::uint32_t index) const {
  const std::uint32_t next = (member + 1) % n_;
  Step step;
  if (is_chain(op_)) {
    const std::uint32_t q = chain_position(member);
    if (q > 0) step.recv(0);
    if (q < n_ - 1) {
      step.send({.peer = next,
                 .slot = 0,
                 .block = 0,
                 .blocks = 1,
                 .action = op_ == CollectiveOp::kReduce ? DataAction::kReduce : DataAction::kCopy});
    }
    return step;
  }
  if (op_ == CollectiveOp::kAllToAll) {
    const std::uint32_t dst = static_cast<std::uint32_t>((std::uint64_t{member} + index + 1) % n_);
    return step.send({.peer = dst, .slot = 0, .block = member * n_ + dst, .blocks = 1, .action = DataAction::kCopy});
  }
  if (index > 0) step.recv(0);
  if (index == steps_) return step;
  const bool reducing = op_ == CollectiveOp::kReduceScatter || (op_ != CollectiveOp::kAllGather && index < n_ - 1);
  const std::uint64_t back = op_ == CollectiveOp::kAllGather ? index
                             : reducing                      ? std::uint64_t{index} + 1
                                                             : index - (n_ - 1);
  return step.send({.peer = next,
                    .slot = 0,
                    .block = ring_back(member, back, n_),
                    .blocks = 1,
                    .action = reducing ? DataAction::kReduce : DataAction::kCopy});
}

}  // namespace loom::collective
