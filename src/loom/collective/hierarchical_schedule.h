// Hierarchical all-reduce over a hosts x per_host grid (HostGrid), as a StepSchedule.
//
// Two dimensions: A and B. Intra-host first (default): A = the local index (a ring through the
// members of one host), B = the host (a ring through the members with the same local index,
// i.e. one rail). inter_host_first swaps them. Member (a, b) numbers the blocks a*|B| + b, so
// "group a" = blocks [a*|B|, (a+1)*|B|) is contiguous. Per chunk, every member runs three ring
// phases back to back, each step waiting for the previous step's receive and its own send:
//   1. ring reduce-scatter of the groups along A (|A|-1 steps, kReduce): member (a, b) ends
//      with group a reduced over its A-ring;
//   2. ring all-reduce of group a along B (2(|B|-1) steps of one block each);
//   3. ring all-gather of the groups along A (|A|-1 steps, kCopy).
// Receive slots 0, 1, 2 are the three phases' predecessors. On one host (no layout) it is the
// ring all-reduce of groups of one block; with one member per host, the ring across hosts.
#pragma once

#include "loom/collective/group_layout.h"
#include "loom/collective/step_execution.h"

namespace loom::collective {

class HierarchicalSchedule final : public StepSchedule {
 public:
  // Requires validate(spec) and supports(kHierarchical, spec.op). Throws UserError unless every
  // host holds the same number of members with local indices 0..per_host-1.
  explicit HierarchicalSchedule(const CollectiveSpec& spec);

  std::uint32_t threads() const override { return 1; }
  std::uint32_t slots() const override { return 3; }
  std::uint32_t length(std::uint32_t member, std::uint32_t channel, std::uint32_t thread) const override;
  Step step(std::uint32_t member, std::uint32_t channel, std::uint32_t thread, std::uint32_t index) const override;
  std::uint32_t receives(std::uint32_t, std::uint32_t) const override { return steps_; }

 private:
  std::uint32_t coordinate_a(std::uint32_t member) const;
  std::uint32_t coordinate_b(std::uint32_t member) const;
  // The next member along A (or B) from `member`.
  std::uint32_t next_a(std::uint32_t member) const;
  std::uint32_t next_b(std::uint32_t member) const;

  HostGrid grid_;
  bool inter_first_;
  std::uint32_t size_a_;
  std::uint32_t size_b_;
  std::uint32_t steps_;  // 2(|A|-1) + 2(|B|-1)
};

}  // namespace loom::collective
