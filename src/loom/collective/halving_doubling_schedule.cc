#include "loom/collective/halving_doubling_schedule.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective {

namespace {
constexpr std::uint32_t kMaxMembers = 65535;

bool reduces(CollectiveOp op) { return op != CollectiveOp::kAllGather; }
bool gathers(CollectiveOp op) { return op != CollectiveOp::kReduceScatter; }
}  // namespace

HalvingDoublingSchedule::HalvingDoublingSchedule(const CollectiveSpec& spec)
    : op_(spec.op), n_(spec.members), power_(1), extra_(0), levels_(0) {
  LOOM_ASSERT(supports(Algorithm::kHalvingDoubling, spec.op), "halving-doubling for an operation it does not implement");
  if (n_ > kMaxMembers) {
    throw UserError(fmt::format("halving-doubling {}: members is {}; expected at most {}", to_string(op_), n_,
                                kMaxMembers));
  }
  while (power_ <= n_ / 2) {
    power_ *= 2;
    ++levels_;
  }
  extra_ = n_ - power_;
}

std::uint32_t HalvingDoublingSchedule::start(std::uint32_t new_rank) const {
  if (new_rank == power_) return n_;
  return new_rank < extra_ ? 2 * new_rank : new_rank + extra_;
}

StepSend HalvingDoublingSchedule::window(std::uint32_t partner, std::uint32_t first, std::uint32_t last,
                                         std::uint32_t slot, DataAction action) const {
  const std::uint32_t begin = start(first);
  return {.peer = real(partner), .slot = slot, .block = begin, .blocks = start(last) - begin, .action = action};
}

std::vector<StepSend> HalvingDoublingSchedule::exchanges(std::uint32_t j) const {
  std::vector<StepSend> list;
  if (reduces(op_)) {
    for (std::uint32_t k = 0; k < levels_; ++k) {
      const std::uint32_t d = power_ >> (k + 1);
      const std::uint32_t lo = j & ~(2 * d - 1);
      const std::uint32_t first = (j & d) != 0 ? lo : lo + d;  // the half j does not keep
      list.push_back(window(j ^ d, first, first + d, 1 + k, DataAction::kReduce));
    }
  }
  if (gathers(op_)) {
    for (std::uint32_t k = 0; k < levels_; ++k) {
      const std::uint32_t d = 1u << k;
      const std::uint32_t lo = j & ~(d - 1);
      list.push_back(window(j ^ d, lo, lo + d, 1 + levels_ + k, DataAction::kCopy));
    }
  }
  const std::uint32_t member = real(j);
  if (has_partner(member)) {
    const StepSend back{.peer = member - 1,
                        .slot = 2 * levels_ + 1,
                        .block = gathers(op_) ? 0 : member - 1,
                        .blocks = gathers(op_) ? n_ : 1,
                        .action = DataAction::kCopy};
    list.push_back(back);
  }
  return list;
}

std::uint32_t HalvingDoublingSchedule::length(std::uint32_t member, std::uint32_t, std::uint32_t) const {
  if (n_ == 1) return 0;
  if (folded(member)) return 2;
  // One entry per exchange plus a last one that waits for the final reply.
  const std::uint32_t replies = (reduces(op_) ? levels_ : 0) + (gathers(op_) ? levels_ : 0);
  return replies + 1;
}

std::uint32_t HalvingDoublingSchedule::receives(std::uint32_t member, std::uint32_t) const {
  if (n_ == 1) return 0;
  if (folded(member)) return 1;
  return (reduces(op_) ? levels_ : 0) + (gathers(op_) ? levels_ : 0) + (has_partner(member) ? 1 : 0);
}

Step HalvingDoublingSchedule::step(std::uint32_t member, std::uint32_t, std::uint32_t, std::uint32_t index) const {
  Step step;
  if (folded(member)) {
    if (index == 0) {
      return step.send({.peer = member + 1,
                        .slot = 0,
                        .block = reduces(op_) ? 0 : member,
                        .blocks = reduces(op_) ? n_ : 1,
                        .action = reduces(op_) ? DataAction::kReduce : DataAction::kCopy});
    }
    return step.recv(2 * levels_ + 1);
  }
  const std::vector<StepSend> list = exchanges(new_rank(member));
  if (index == 0) {
    if (has_partner(member)) step.recv(0);
  } else {
    step.recv(list[index - 1].slot);
  }
  if (index < list.size()) step.send(list[index]);
  return step;
}

}  // namespace loom::collective
