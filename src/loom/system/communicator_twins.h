// Communicators whose operations a symmetric run need not run (RuntimeOptions::symmetry with
// closed-form timing): every member of a skipped communicator is a mirrored rank, and another
// communicator, its twin, runs the same operations at the same program positions with members
// of the same classes in the same member order (member j of both has one representative).
//
// Why that lets the twin stand for it. A mirrored rank reaches each program position when its
// representative does, so both communicators' operations start together (the last of the same
// representatives' arrivals), and the runtime compares the two operations' closed-form member
// ends before taking the twin's timing for the skipped one (runtime_twins.cc): where they
// differ (a fabric that treats the two groups differently), the run reports a mismatch
// instead. A communicator with a representative among its members, or without a twin, runs.
//
// Cost: O(nodes) time (each collective node rebuilt once); memory one bit per node, O(communicators), and
// 4 bytes per collective node while finding.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/system/rank_symmetry.h"
#include "loom/workload/workload.h"

namespace loom::system {

class CommunicatorTwins {
 public:
  static constexpr workload::CommunicatorId kRuns = 0xffffffffu;

  static CommunicatorTwins find(const workload::Workload& workload, const RankSymmetry& symmetry);

  // The running communicator whose operations stand for `c`'s, or kRuns when `c` runs.
  workload::CommunicatorId twin(workload::CommunicatorId c) const { return twin_[c]; }
  bool skipped(workload::CommunicatorId c) const { return twin_[c] != kRuns; }
  // The communicators a running communicator stands for, in id order.
  std::span<const workload::CommunicatorId> stands_for(workload::CommunicatorId c) const {
    return {stands_for_.data() + first_[c], first_[c + 1] - first_[c]};
  }
  std::uint32_t skipped_count() const { return static_cast<std::uint32_t>(stands_for_.size()); }
  // A collective node on a skipped communicator, and how many there are.
  bool skips(workload::NodeId id) const { return on_skipped_[id]; }
  std::uint64_t skipped_nodes() const { return skipped_nodes_; }

 private:
  std::vector<workload::CommunicatorId> twin_;  // per communicator
  std::vector<std::uint32_t> first_;            // CSR over communicators into stands_for_
  std::vector<workload::CommunicatorId> stands_for_;
  std::vector<bool> on_skipped_;  // per node
  std::uint64_t skipped_nodes_ = 0;
};

}  // namespace loom::system
