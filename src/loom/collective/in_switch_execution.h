// The engine under nvls, nvls-tree and in-network all-reduce, and under tree when the members
// span hosts: reduce up a tree of endpoints (members and switches, reduction_tree.h) and
// multicast the result back down it, per channel and pipeline chunk.
//
// Every endpoint in a channel's tree runs two threads over the chunks k = 0..K-1 in order:
//   up    wait until each child has delivered chunk k, then send it (one piece of every block,
//         kReduce) to the parent and wait for it to arrive; the root sends nothing;
//   down  the root waits until its up thread has chunk k, every other endpoint until chunk k
//         arrived from its parent; then it sends chunk k (kCopy) to all its children at once
//         (a switch's multicast) and waits for all of them to arrive.
// A member holds its own contribution from the start and a switch nothing, so the root ends
// with every contribution once and the down pass copies it to everyone. A member is finished
// when both its threads of every channel completed all K chunks.
//
// With a fixed per-transfer time t on a contention-free fabric and every member d edges below
// the root, chunk k reaches the root after (k + d) t and the members after (k + 2d) t: the
// last member finishes after (2d + K - 1) t (nvls: d = 1, (K + 1) t). Each tree edge carries S
// up and S down; a transfer's hop latency is spec.protocol_costs for its edge's link class.
//
// Memory: 28 bytes per endpoint and channel plus the distinct trees (O(n + switches) each).
// on_done O(children of the endpoints it touches).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/collective/collective.h"
#include "loom/collective/reduction_tree.h"

namespace loom::collective {

class InSwitchExecution final : public Execution {
 public:
  // Requires validate(spec), supports(algorithm, spec.op) and uses_switches(algorithm) or
  // algorithm == kTree. Throws UserError as reduction_trees does.
  InSwitchExecution(Algorithm algorithm, const CollectiveSpec& spec);

  void start(Progress& out) override;
  void on_done(const Transfer& done, Progress& out) override;
  bool finished() const override { return finished_members_ == spec_.members; }

 private:
  struct Node {
    std::uint32_t up_pc = 0;           // up steps started
    std::uint32_t up_arrived = 0;      // this endpoint's up sends that reached its parent
    std::uint32_t ready_children = 0;  // children that delivered chunk up_pc
    std::uint32_t down_pc = 0;         // down steps started
    std::uint32_t down_arrived = 0;    // down transfers received from the parent
    std::uint32_t down_outstanding = 0;
    bool up_outstanding = false;
  };

  const ReductionTree& tree(std::uint32_t channel) const { return trees_[channel % trees_.size()]; }
  Node& node(std::uint32_t endpoint, std::uint32_t channel) {
    return nodes_[static_cast<std::size_t>(endpoint) * spec_.channels + channel];
  }
  std::uint32_t children_ready(std::uint32_t endpoint, std::uint32_t channel, std::uint32_t chunk);
  void advance_up(std::uint32_t endpoint, std::uint32_t channel, Progress& out);
  void advance_down(std::uint32_t endpoint, std::uint32_t channel, Progress& out);
  void emit(std::uint32_t src, std::uint32_t dst, std::uint32_t channel, std::uint32_t chunk, bool up,
            Progress& out) const;
  void thread_done(std::uint32_t endpoint, Progress& out);

  CollectiveSpec spec_;
  std::uint32_t endpoints_;
  std::uint32_t blocks_;
  std::vector<ReductionTree> trees_;
  std::vector<Node> nodes_;                 // per endpoint and channel
  std::vector<std::uint32_t> threads_done_;  // per member
  std::uint32_t finished_members_ = 0;
  bool started_ = false;
};

}  // namespace loom::collective
