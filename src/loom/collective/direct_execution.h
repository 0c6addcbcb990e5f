// Direct (all-pairs) algorithms: members send straight to their peers, visiting peers i+1,
// i+2, ... mod n, with at most `window` of their transfers outstanding; a slot frees when that
// transfer arrives.
//
// Member i's send queue, one entry per (peer, piece), pieces of one peer consecutive:
//   all-gather: block i to every peer, kCopy. reduce-scatter: block j to member j, kReduce.
//   all-to-all(-v): block (i, j) to member j, kCopy.
//   all-reduce (barrier: 0-byte blocks): the reduce-scatter sends, then (once member i has
//     received all (n-1) * pieces contributions to block i) the reduced block i to every
//     peer, kCopy (tag 1; the first phase is tag 0).
//   broadcast: the root sends the buffer to every peer; scatter: the root sends block j to j.
//   reduce: every other member sends its buffer to the root, kReduce; gather: block i to the
//     root, kCopy.
// With one piece: ceil((n-1)/window) rounds of one transfer time per phase (rooted ops: at the
// root; the other members send or receive once).
//
// State per member: next queue position, transfers outstanding, contributions received (three
// 32-bit counters) plus a CompletionTracker: memory O(n). start() O(n * min(window, queue)),
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
  bool finished() const override { return tracker_->finished(); }

 private:
  struct Member {
    std::uint32_t next_send = 0;      // next send-queue position
    std::uint32_t outstanding = 0;    // sends made ready and not yet arrived
    std::uint32_t contributions = 0;  // all-reduce: phase-0 transfers received
  };

  // Logical sends (peers) in member's queue, before splitting into pieces.
  std::uint32_t peer_sends(std::uint32_t member) const;
  std::uint32_t peer_receives(std::uint32_t member) const;
  // Makes ready as many of `member`'s queued sends as its window and dependencies allow.
  void issue(std::uint32_t member, Progress& out);
  Transfer queued_transfer(std::uint32_t member, std::uint32_t position) const;

  CollectiveSpec spec_;
  std::uint32_t pieces_;
  bool rooted_;  // broadcast, reduce, gather, scatter
  std::vector<Member> members_;
  std::unique_ptr<CompletionTracker> tracker_;
  bool started_ = false;
};

}  // namespace loom::collective
