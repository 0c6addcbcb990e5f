#include "loom/collective/direct_execution.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective {

namespace {

std::uint32_t direct_sends(const CollectiveSpec& spec) {
  const std::uint32_t n = spec.members;
  return spec.op == CollectiveOp::kAllReduce ? 2 * (n - 1) : n - 1;
}

}  // namespace

DirectExecution::DirectExecution(const CollectiveSpec& spec)
    : spec_(spec),
      sends_per_member_(direct_sends(spec)),
      members_(spec.members),
      tracker_(spec.members, direct_sends(spec), direct_sends(spec)) {}

Transfer DirectExecution::queued_transfer(std::uint32_t member, std::uint32_t position) const {
  const std::uint32_t n = spec_.members;
  const std::uint32_t phase = position / (n - 1);
  const std::uint32_t offset = position % (n - 1) + 1;
  const auto peer = static_cast<std::uint32_t>((std::uint64_t{member} + offset) % n);
  Transfer t{.src = member, .dst = peer, .bytes = 0, .block = member, .action = DataAction::kCopy, .tag = phase};
  switch (spec_.op) {
    case CollectiveOp::kAllGather:
      break;
    case CollectiveOp::kReduceScatter:
      t.block = peer;
      t.action = DataAction::kReduce;
      break;
    case CollectiveOp::kAllToAll:
      t.block = member * n + peer;
      break;
    case CollectiveOp::kAllReduce:
      if (phase == 0) {
        t.block = peer;
        t.action = DataAction::kReduce;
      }
      break;
  }
  t.bytes = block_bytes(spec_, t.block);
  return t;
}

void DirectExecution::issue(std::uint32_t member, Progress& out) {
  const std::uint32_t n = spec_.members;
  Member& m = members_[member];
  while (m.outstanding < spec_.window && m.next_send < sends_per_member_) {
    const bool needs_reduced_block = m.next_send >= n - 1;
    if (needs_reduced_block && m.contributions < n - 1) return;
    out.ready.push_back(queued_transfer(member, m.next_send));
    ++m.next_send;
    ++m.outstanding;
  }
}

void DirectExecution::start(Progress& out) {
  LOOM_ASSERT(!started_, "DirectExecution::start called twice");
  started_ = true;
  for (std::uint32_t member = 0; member < spec_.members; ++member) issue(member, out);
  tracker_.start(out);
}

void DirectExecution::on_done(const Transfer& done, Progress& out) {
  LOOM_ASSERT(started_, "DirectExecution::on_done before start");
  tracker_.on_done(done, out);
  Member& sender = members_[done.src];
  LOOM_ASSERT(sender.outstanding > 0, fmt::format("member {} has no send outstanding", done.src));
  --sender.outstanding;
  issue(done.src, out);
  const bool contribution = spec_.op == CollectiveOp::kAllReduce && done.tag == 0;
  if (contribution && ++members_[done.dst].contributions == spec_.members - 1) {
    issue(done.dst, out);
  }
}

}  // namespace loom::collective
