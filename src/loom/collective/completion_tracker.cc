#include "loom/collective/completion_tracker.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective {

CompletionTracker::CompletionTracker(std::vector<std::uint32_t> sends, std::vector<std::uint32_t> receives)
    : sends_(std::move(sends)),
      receives_(std::move(receives)),
      sends_done_(sends_.size(), 0),
      receives_done_(sends_.size(), 0) {
  LOOM_ASSERT(sends_.size() == receives_.size(), "completion tracker: sends and receives differ in size");
}

void CompletionTracker::start(Progress& out) {
  for (std::uint32_t member = 0; member < sends_.size(); ++member) {
    if (sends_[member] == 0 && receives_[member] == 0) report_if_finished(member, out);
  }
}

void CompletionTracker::on_done(const Transfer& done, Progress& out) {
  LOOM_ASSERT(done.src < sends_.size() && done.dst < sends_.size() && done.src != done.dst,
              fmt::format("transfer {} -> {} on {} members", done.src, done.dst, sends_.size()));
  LOOM_ASSERT(sends_done_[done.src] < sends_[done.src],
              fmt::format("member {} completed more than {} sends", done.src, sends_[done.src]));
  LOOM_ASSERT(receives_done_[done.dst] < receives_[done.dst],
              fmt::format("member {} completed more than {} receives", done.dst, receives_[done.dst]));
  ++sends_done_[done.src];
  ++receives_done_[done.dst];
  report_if_finished(done.src, out);
  report_if_finished(done.dst, out);
}

void CompletionTracker::report_if_finished(std::uint32_t member, Progress& out) {
  if (sends_done_[member] == sends_[member] && receives_done_[member] == receives_[member]) {
    out.finished_members.push_back(member);
    ++finished_members_;
  }
}

}  // namespace loom::collective
