// Ring algorithms (NCCL-style, one channel, one whole block per transfer): see make_execution in
// collective.h for the schedule of each operation.
//
// Member m sends its step s+1 once it has received step s from its predecessor (all-to-all: no
// such wait) and its own step-s send has arrived: one channel is one connection to the next
// peer, used one step at a time, so a ring runs at the pace of its slowest link.
//
// State: the operation's step count, a CompletionTracker and the steps each member has issued.
// Nothing per transfer is stored: memory O(n), start() O(n), on_done() O(1).
#pragma once

#include "loom/collective/collective.h"
#include "loom/collective/completion_tracker.h"

#include <vector>

namespace loom::collective {

class RingExecution final : public Execution {
 public:
  // Requires validate(spec) to pass.
  explicit RingExecution(const CollectiveSpec& spec);

  void start(Progress& out) override;
  void on_done(const Transfer& done, Progress& out) override;
  bool finished() const override { return tracker_.finished(); }

 private:
  // The transfer member `member` makes at step `step` (< steps_).
  Transfer step_transfer(std::uint32_t member, std::uint32_t step) const;
  // Issues member's next step if its dependencies are met.
  void advance(std::uint32_t member, Progress& out);

  CollectiveSpec spec_;
  std::uint32_t steps_;  // per member: n-1, or 2(n-1) for all-reduce
  CompletionTracker tracker_;
  std::vector<std::uint32_t> issued_;  // per member: steps issued so far
  bool started_ = false;
};

}  // namespace loom::collective
