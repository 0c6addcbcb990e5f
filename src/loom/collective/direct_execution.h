// Direct (all-pairs) algorithms: every member sends straight to each peer, visiting peers
// i+1, i+2, ... mod n with at most `window` of its sends outstanding. See make_execution in
// collective.h for what each operation sends.
//
// Each member works through one send queue: positions q = 0..n-2 are the first phase (peer
// offset q+1), and for all-reduce positions n-1..2n-3 are the copies of the member's reduced
// block (peer offset q-n+2), which may start only once all n-1 contributions have arrived.
//
// State per member: next queue position, sends outstanding, contributions received (three
// 32-bit counters) plus a CompletionTracker: memory O(n). start() O(n * min(window, n)),
// on_done() O(1) amortised per transfer it makes ready.
#pragma once

#include <vector>

#include "loom/collective/collective.h"
#include "loom/collective/completion_tracker.h"

namespace loom::collective {

class DirectExecution final : public Execution {
 public:
  // Requires validate(spec) to pass.
  explicit DirectExecution(const CollectiveSpec& spec);

  void start(Progress& out) override;
  void on_done(const Transfer& done, Progress& out) override;
  bool finished() const override { return tracker_.finished(); }

 private:
  struct Member {
    std::uint32_t next_send = 0;      // next send-queue position
    std::uint32_t outstanding = 0;    // sends made ready and not yet arrived
    std::uint32_t contributions = 0;  // all-reduce: phase-0 blocks received
  };

  // Makes ready as many of `member`'s queued sends as its window and dependencies allow.
  void issue(std::uint32_t member, Progress& out);
  Transfer queued_transfer(std::uint32_t member, std::uint32_t position) const;

  CollectiveSpec spec_;
  std::uint32_t sends_per_member_;  // n-1, or 2(n-1) for all-reduce
  std::vector<Member> members_;
  CompletionTracker tracker_;
  bool started_ = false;
};

}  // namespace loom::collective
