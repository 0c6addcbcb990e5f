// Ring algorithms (NCCL-style), as a StepSchedule: every channel runs the same ring on its own
// pieces, chunk after chunk. One thread per channel, one receive slot (the predecessor).
//
// Member i sends to i+1 mod n.
//   reduce-scatter: n-1 steps; at step s (0-based) member i sends block (i-s-1) mod n, kReduce.
//   all-gather: n-1 steps; at step s member i sends block (i-s) mod n, kCopy.
//   all-reduce (and barrier, with 0-byte blocks): 2(n-1) steps: reduce-scatter, then all-gather.
//   Step s+1 of member i starts once member i has received step s from member i-1 (the block
//   it forwards) and its own step s has arrived (one connection to the next peer, one step at a
//   time, so a ring with one slow link runs at that link's pace).
//   all-to-all: member i at step s = 0..n-2 sends block (i, (i+s+1) mod n) straight to member
//   (i+s+1) mod n; step s+1 starts when member i's step s transfer has arrived.
//   broadcast: a chain from the root: position q = (i - root) mod n receives the buffer from
//   q-1 and forwards it to q+1 (kCopy); reduce: a chain ending at the root, position
//   q = (i - root - 1) mod n, forwarding with kReduce. Chunks pipeline along the chain.
// With chunks > 1 the whole program repeats per chunk (NCCL's loop over the buffer); with
// channels > 1 channel c carries pieces c*chunks..c*chunks+chunks-1 of every block.
//
// Rings across hosts: when the layout puts the same number g > 1 of members on each of several
// hosts, the ring visits hosts one after another and, like NCCL's rings, channel c enters each
// host at its (c mod g)-th member by local index and leaves from the one before it, so the
// channels cross hosts through different GPUs and NICs instead of all through one. The
// "member i" above is then the member at ring position i of the channel, and block numbers are
// relabelled so that block b still belongs to member b. Otherwise the ring is member order.
#pragma once

#include <vector>

#include "loom/collective/step_execution.h"

namespace loom::collective {

class RingSchedule final : public StepSchedule {
 public:
  // Requires validate(spec) and supports(kRing, spec.op).
  explicit RingSchedule(const CollectiveSpec& spec);

  std::uint32_t threads() const override { return 1; }
  std::uint32_t slots() const override { return 1; }
  std::uint32_t length(std::uint32_t member, std::uint32_t channel, std::uint32_t thread) const override;
  Step step(std::uint32_t member, std::uint32_t channel, std::uint32_t thread, std::uint32_t index) const override;
  std::uint32_t receives(std::uint32_t member, std::uint32_t channel) const override;

 private:
  // Position of `member` along a broadcast/reduce chain (0 = the chain's start).
  std::uint32_t chain_position(std::uint32_t member) const;
  // The member at ring position `position` of `channel`, and the inverse.
  std::uint32_t member_at(std::uint32_t channel, std::uint32_t position) const;
  std::uint32_t position_of(std::uint32_t channel, std::uint32_t member) const;

  CollectiveOp op_;
  std::uint32_t n_;
  std::uint32_t root_;
  std::uint32_t steps_;  // ring steps per chunk: n-1 or 2(n-1); chains and all-to-all: n-1
  std::uint32_t per_host_ = 1;         // g: members per host block that channels rotate; 1 = none
  std::vector<std::uint32_t> order_;   // channel 0: position -> member (empty = member order)
  std::vector<std::uint32_t> base_position_;  // the inverse of order_
};

}  // namespace loom::collective
