// NCCL's double binary tree all-reduce, as a StepSchedule: the tree over all members, used
// on one host or without a layout (across hosts, make_execution runs NCCL's chain-plus-tree
// shape instead: reduction_tree.h).
//
// Tree shape (BinaryTree): positions 1..n form an in-order binary tree. With L the lowest set
// bit of v, node v has children v - L/2 and the first of v + L/2, v + L/4, ... that is <= n
// (none when L = 1), and its parent is v - L if v has bit 2L set, else v + L, repeated while
// that exceeds n. The root is the largest power of two <= n; the depth is floor(log2 n).
// Tree 0 puts member m at position m + 1; tree 1 at (m - 1 mod n) + 1 (shifted by one). The
// leaves are the odd positions, so the even members, leaves of tree 0, are inner nodes of tree
// 1 (all but member 0 when n is odd): every member reduces in one of the two trees, which is
// the point of NCCL's double tree (NCCL mirrors odd n; with this numbering the shift is better). Channel c uses tree c % 2, so with two channels each tree carries half
// of the data (one channel: a single binary tree).
//
// Per channel two threads (NCCL's split tree): thread 0 reduces up, thread 1 broadcasts down.
// Per chunk (one piece of every block):
//   up:   wait for the piece from each child (slots 0 = left, 1 = right), then send it, kReduce,
//         to the parent (the root only waits);
//   down: the root waits until its up thread has this chunk, every other member waits for it
//         from its parent (slot 0); then it is sent, kCopy, to both children at once.
// Barrier runs the same with 0-byte blocks.
#pragma once

#include "loom/collective/step_execution.h"

namespace loom::collective {

// Positions 1..n; 0 means "none".
class BinaryTree {
 public:
  explicit BinaryTree(std::uint32_t n);
  std::uint32_t root() const { return root_; }
  std::uint32_t parent(std::uint32_t v) const;
  std::uint32_t left(std::uint32_t v) const;
  std::uint32_t right(std::uint32_t v) const;

 private:
  std::uint32_t n_;
  std::uint32_t root_;
};

class TreeSchedule final : public StepSchedule {
 public:
  // Requires validate(spec) and supports(kTree, spec.op).
  explicit TreeSchedule(const CollectiveSpec& spec);

  std::uint32_t threads() const override { return 2; }
  std::uint32_t slots() const override { return 2; }
  std::uint32_t length(std::uint32_t member, std::uint32_t channel, std::uint32_t thread) const override;
  Step step(std::uint32_t member, std::uint32_t channel, std::uint32_t thread, std::uint32_t index) const override;
  std::uint32_t receives(std::uint32_t member, std::uint32_t channel) const override;

  // Position (1..n) of `member` in tree `tree` (0 or 1), and its inverse.
  std::uint32_t position(std::uint32_t member, std::uint32_t tree) const;
  std::uint32_t member_at(std::uint32_t position, std::uint32_t tree) const;

 private:
  std::uint32_t n_;
  std::uint32_t blocks_;
  BinaryTree tree_;
};

}  // namespace loom::collective
