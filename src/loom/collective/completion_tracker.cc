#include "loom/collective/completion_tracker.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective {

CompletionTracker::CompletionTracker(std::uint32_t members, std::uint32_t sends_per_member,
                                     std::uint32_t receives_per_member)
    : sends_per_member_(sends_per_member),
      receives_per_member_(receives_per_member),
      sends_done_(members, 0),
      receives_done_(members, 0) {}

void CompletionTracker::start(Progress& out) {
  if (sends_per_member_ != 0 || receives_per_member_ != 0) return;
  for (std::uint32_t member = 0; member < sends_done_.size(); ++member) {
    report_if_finished(member, out);
  }
}

void CompletionTracker::on_done(const Transfer& done, Progress& out) {
  LOOM_ASSERT(done.src < sends_done_.size() && done.dst < sends_done_.size() && done.src != done.dst,
              fmt::format("transfer {} -> {} on {} members", done.src, done.dst, sends_done_.size()));
  LOOM_ASSERT(sends_done_[done.src] < sends_per_member_,
              fmt::format("member {} completed more than {} sends", done.src, sends_per_member_));
  LOOM_ASSERT(receives_done_[done.dst] < receives_per_member_,
              fmt::format("member {} completed more than {} receives", done.dst, receives_per_member_));
  ++sends_done_[done.src];
  ++receives_done_[done.dst];
  report_if_finished(done.src, out);
  report_if_finished(done.dst, out);
}

void CompletionTracker::report_if_finished(std::uint32_t member, Progress& out) {
  if (sends_done_[member] == sends_per_member_ && receives_done_[member] == receives_per_member_) {
    out.finished_members.push_back(member);
    ++finished_members_;
  }
}

}  // namespace loom::collective
