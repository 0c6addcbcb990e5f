#include "loom/collective/tree_schedule.h"

#include "loom/collective/block_layout.h"
#include "loom/core/error.h"

namespace loom::collective {

namespace {
std::uint32_t lowest_bit(std::uint32_t v) { return v & (~v + 1); }
}  // namespace

BinaryTree::BinaryTree(std::uint32_t n) : n_(n), root_(1) {
  while (root_ <= n / 2) root_ *= 2;
}

std::uint32_t BinaryTree::parent(std::uint32_t v) const {
  // The walk stays below 2 * root (see the header), so it ends at a node <= n or the root.
  std::uint32_t u = v;
  while (u != root_) {
    const std::uint32_t low = lowest_bit(u);
    u = (u & (2 * low)) != 0 ? u - low : u + low;
    if (u <= n_) return u;
  }
  return 0;
}

std::uint32_t BinaryTree::left(std::uint32_t v) const {
  const std::uint32_t low = lowest_bit(v);
  return low == 1 ? 0 : v - low / 2;
}

std::uint32_t BinaryTree::right(std::uint32_t v) const {
  for (std::uint32_t step = lowest_bit(v) / 2; step >= 1; step /= 2) {
    if (v + std::uint64_t{step} <= n_) return v + step;
  }
  return 0;
}

TreeSchedule::TreeSchedule(const CollectiveSpec& spec)
    : n_(spec.members), blocks_(static_cast<std::uint32_t>(block_count(spec.op, spec.members))), tree_(spec.members) {
  LOOM_ASSERT(supports(Algorithm::kTree, spec.op), "tree schedule for an operation it does not implement");
}

std::uint32_t TreeSchedule::position(std::uint32_t member, std::uint32_t tree) const {
  if (tree == 0) return member + 1;
  return (member + n_ - 1) % n_ + 1;
}

std::uint32_t TreeSchedule::member_at(std::uint32_t position, std::uint32_t tree) const {
  if (tree == 0) return position - 1;
  return position % n_;
}

std::uint32_t TreeSchedule::length(std::uint32_t, std::uint32_t, std::uint32_t) const { return n_ == 1 ? 0 : 1; }

std::uint32_t TreeSchedule::receives(std::uint32_t member, std::uint32_t channel) const {
  const std::uint32_t v = position(member, channel % 2);
  return (tree_.left(v) != 0 ? 1 : 0) + (tree_.right(v) != 0 ? 1 : 0) + (tree_.parent(v) != 0 ? 1 : 0);
}

Step TreeSchedule::step(std::uint32_t member, std::uint32_t channel, std::uint32_t thread, std::uint32_t) const {
  const std::uint32_t tree = channel % 2;
  const std::uint32_t v = position(member, tree);
  const std::uint32_t parent = tree_.parent(v);
  const std::uint32_t children[2] = {tree_.left(v), tree_.right(v)};
  Step step;
  if (thread == 0) {
    for (std::uint32_t side = 0; side < 2; ++side) {
      if (children[side] != 0) step.recv(side);
    }
    if (parent != 0) {
      step.send({.peer = member_at(parent, tree),
                 .slot = v < parent ? 0u : 1u,
                 .block = 0,
                 .blocks = blocks_,
                 .action = DataAction::kReduce});
    }
    return step;
  }
  if (parent == 0) {
    step.after_thread = 0;
    step.after_step = 0;
  } else {
    step.recv(0);
  }
  for (const std::uint32_t child : children) {
    if (child == 0) continue;
    step.send({.peer = member_at(child, tree), .slot = 0, .block = 0, .blocks = blocks_, .action = DataAction::kCopy});
  }
  return step;
}

}  // namespace loom::collective
