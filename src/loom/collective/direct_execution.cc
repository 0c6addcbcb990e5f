#include "loom/collective/direct_execution.h"

#include <fmt/format.h>

#include "loom/collective/block_layout.h"
#include "loom/core/error.h"

namespace loom::collective {

namespace {

bool is_rooted(CollectiveOp op) {
  return op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce || op == CollectiveOp::kGather ||
         op == CollectiveOp::kScatter;
}
bool root_sends(CollectiveOp op) { return op == CollectiveOp::kBroadcast || op == CollectiveOp::kScatter; }
bool two_phases(CollectiveOp op) { return op == CollectiveOp::kAllReduce || op == CollectiveOp::kBarrier; }

}  // namespace

DirectExecution::DirectExecution(const CollectiveSpec& spec)
    : spec_(spec), pieces_(pieces(spec)), rooted_(is_rooted(spec.op)), members_(spec.members) {
  std::vector<std::uint32_t> sends(spec.members);
  std::vector<std::uint32_t> receives(spec.members);
  for (std::uint32_t m = 0; m < spec.members; ++m) {
    const std::uint64_t s = std::uint64_t{peer_sends(m)} * pieces_;
    const std::uint64_t r = std::uint64_t{peer_receives(m)} * pieces_;
    LOOM_ASSERT(s < 0xffffffffu && r < 0xffffffffu, "direct: transfers per member overflow 32 bits");
    sends[m] = static_cast<std::uint32_t>(s);
    receives[m] = static_cast<std::uint32_t>(r);
  }
  tracker_ = std::make_unique<CompletionTracker>(std::move(sends), std::move(receives));
}

std::uint32_t DirectExecution::peer_sends(std::uint32_t member) const {
  const std::uint32_t n = spec_.members;
  if (!rooted_) return two_phases(spec_.op) ? 2 * (n - 1) : n - 1;
  const bool is_root = member == spec_.root;
  if (root_sends(spec_.op)) return is_root ? n - 1 : 0;
  return is_root ? 0 : 1;
}

std::uint32_t DirectExecution::peer_receives(std::uint32_t member) const {
  const std::uint32_t n = spec_.members;
  if (!rooted_) return two_phases(spec_.op) ? 2 * (n - 1) : n - 1;
  const bool is_root = member == spec_.root;
  if (root_sends(spec_.op)) return is_root ? 0 : 1;
  return is_root ? n - 1 : 0;
}

Transfer DirectExecution::queued_transfer(std::uint32_t member, std::uint32_t position) const {
  const std::uint32_t n = spec_.members;
  const std::uint32_t logical = position / pieces_;
  Transfer t;
  t.src = member;
  t.step = position;
  t.piece = position % pieces_;
  t.channel = t.piece / spec_.chunks;
  t.protocol = spec_.protocol;
  if (rooted_ && !root_sends(spec_.op)) {
    t.dst = spec_.root;
  } else {
    t.dst = static_cast<std::uint32_t>((std::uint64_t{member} + logical % (n - 1) + 1) % n);
  }
  t.tag = two_phases(spec_.op) && logical >= n - 1 ? 1 : 0;
  switch (spec_.op) {
    case CollectiveOp::kAllGather:
    case CollectiveOp::kGather: t.block = member; break;
    case CollectiveOp::kReduceScatter:
      t.block = t.dst;
      t.action = DataAction::kReduce;
      break;
    case CollectiveOp::kAllToAll:
    case CollectiveOp::kAllToAllV: t.block = member * n + t.dst; break;
    case CollectiveOp::kBroadcast: t.block = 0; break;
    case CollectiveOp::kReduce:
      t.block = 0;
      t.action = DataAction::kReduce;
      break;
    case CollectiveOp::kScatter: t.block = t.dst; break;
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kBarrier:
      t.block = t.tag == 0 ? t.dst : member;
      t.action = t.tag == 0 ? DataAction::kReduce : DataAction::kCopy;
      break;
  }
  price_transfer(spec_, t);
  return t;
}

void DirectExecution::issue(std::uint32_t member, Progress& out) {
  const std::uint32_t n = spec_.members;
  const std::uint32_t queue = peer_sends(member) * pieces_;
  const std::uint32_t first_phase = (n - 1) * pieces_;
  Member& m = members_[member];
  while (m.outstanding < spec_.window && m.next_send < queue) {
    const bool needs_reduced_block = two_phases(spec_.op) && m.next_send >= first_phase;
    if (needs_reduced_block && m.contributions < first_phase) return;
    out.ready.push_back(queued_transfer(member, m.next_send));
    ++m.next_send;
    ++m.outstanding;
  }
}

void DirectExecution::start(Progress& out) {
  LOOM_ASSERT(!started_, "DirectExecution::start called twice");
  started_ = true;
  for (std::uint32_t member = 0; member < spec_.members; ++member) issue(member, out);
  tracker_->start(out);
}

void DirectExecution::on_done(const Transfer& done, Progress& out) {
  LOOM_ASSERT(started_, "DirectExecution::on_done before start");
  tracker_->on_done(done, out);
  Member& sender = members_[done.src];
  LOOM_ASSERT(sender.outstanding > 0, fmt::format("member {} has no send outstanding", done.src));
  --sender.outstanding;
  issue(done.src, out);
  const bool contribution = two_phases(spec_.op) && done.tag == 0;
  if (contribution && ++members_[done.dst].contributions == (spec_.members - 1) * pieces_) {
    issue(done.dst, out);
  }
}

}  // namespace loom::collective
