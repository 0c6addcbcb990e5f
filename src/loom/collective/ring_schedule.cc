#include "loom/collective/ring_schedule.h"

#include <algorithm>
#include <utility>

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
  if (!spec.layout || n_ < 2) return;
  // Hosts in order of first appearance, members of a host by local index.
  const GroupLayout& layout = *spec.layout;
  std::vector<std::uint32_t> host_rank(n_, n_);
  std::uint32_t hosts = 0;
  for (std::uint32_t m = 0; m < n_; ++m) {
    if (host_rank[layout.host[m]] == n_) host_rank[layout.host[m]] = hosts++;
  }
  if (hosts < 2 || n_ % hosts != 0 || n_ == hosts) return;
  std::vector<std::uint32_t> order(n_);
  for (std::uint32_t m = 0; m < n_; ++m) order[m] = m;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::pair(host_rank[layout.host[a]], layout.local[a]) < std::pair(host_rank[layout.host[b]], layout.local[b]);
  });
  const std::uint32_t g = n_ / hosts;
  for (std::uint32_t p = 0; p < n_; ++p) {
    if (host_rank[layout.host[order[p]]] != p / g) return;  // hosts hold different counts
  }
  per_host_ = g;
  order_ = std::move(order);
  base_position_.resize(n_);
  for (std::uint32_t p = 0; p < n_; ++p) base_position_[order_[p]] = p;
}

std::uint32_t RingSchedule::member_at(std::uint32_t channel, std::uint32_t position) const {
  if (order_.empty()) return position;
  const std::uint32_t block = position / per_host_, k = position % per_host_;
  return order_[block * per_host_ + (k + channel) % per_host_];
}

std::uint32_t RingSchedule::position_of(std::uint32_t channel, std::uint32_t member) const {
  if (order_.empty()) return member;
  const std::uint32_t base = base_position_[member];
  const std::uint32_t block = base / per_host_, k = base % per_host_;
  return block * per_host_ + (k + per_host_ - channel % per_host_) % per_host_;
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

Step RingSchedule::step(std::uint32_t member, std::uint32_t channel, std::uint32_t, std::uint32_t index) const {
  Step step;
  if (is_chain(op_)) {
    const std::uint32_t next = (member + 1) % n_;
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
  const std::uint32_t position = position_of(channel, member);
  return step.send({.peer = member_at(channel, (position + 1) % n_),
                    .slot = 0,
                    .block = member_at(channel, ring_back(position, back, n_)),
                    .blocks = 1,
                    .action = reducing ? DataAction::kReduce : DataAction::kCopy});
}

}  // namespace loom::collective
