// Per-member bookkeeping for executions that count rather than sequence: counts each member's
// arrived sends and receives and reports a member finished (in Progress::finished_members) the
// moment both reach the numbers the algorithm gives it. Members with nothing to send or
// receive are reported by start().
//
// Memory: four 32-bit counters per member. All operations O(1) (start: O(n)).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/collective/collective.h"

namespace loom::collective {

class CompletionTracker {
 public:
  // Member m sends sends[m] and receives receives[m] transfers (both vectors of size n).
  CompletionTracker(std::vector<std::uint32_t> sends, std::vector<std::uint32_t> receives);

  // Reports the members that have nothing to do.
  void start(Progress& out);
  // Counts `done` as a send of done.src and a receive of done.dst; reports either if finished.
  void on_done(const Transfer& done, Progress& out);
  bool finished() const { return finished_members_ == sends_done_.size(); }
  std::uint32_t sends_done(std::uint32_t member) const { return sends_done_[member]; }
  std::uint32_t receives_done(std::uint32_t member) const { return receives_done_[member]; }

 private:
  void report_if_finished(std::uint32_t member, Progress& out);

  std::vector<std::uint32_t> sends_;
  std::vector<std::uint32_t> receives_;
  std::vector<std::uint32_t> sends_done_;
  std::vector<std::uint32_t> receives_done_;
  std::uint32_t finished_members_ = 0;
};

}  // namespace loom::collective
