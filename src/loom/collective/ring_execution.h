// Ring algorithms (NCCL-style, one channel, one whole block per transfer): see make_execution in
// collective.h for the schedule of each operation.
//
// State: the operation's step count and a CompletionTracker. A ring step's successor is derived
// from the finished transfer itself (its tag is the step), so nothing per transfer is stored:
// memory O(n), start() O(n), on_done() O(1).
#pragma once

#include "loom/collective/collective.h"
#include "loom/collective/completion_tracker.h"

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

  CollectiveSpec spec_;
  std::uint32_t steps_;  // per member: n-1, or 2(n-1) for all-reduce
  CompletionTracker tracker_;
  bool started_ = false;
};

}  // namespace loom::collective
