// A run's per-node timing (RunResult::nodes). Without rank symmetry every node's record is held.
// With it (RuntimeOptions::symmetry) only the records the run writes are held: every node of a
// representative and the communication nodes of mirrored ranks (they join operations and are
// checked against their representatives). A mirrored rank's compute node, which never runs,
// reads as its representative's node at the same program position with its enabler mapped to
// the mirrored rank (RankPrograms): what the full run gives it, as the classes'
// programs agree position by position. Readers (metrics, timeline) see every node either way.
//
// Memory: 24 bytes per held node; with symmetry 4 more per node (the slot index), so a run whose
// mirrored ranks are mostly compute holds a fraction of the per-node records.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "loom/core/error.h"
#include "loom/core/time.h"
#include "loom/system/rank_symmetry.h"
#include "loom/workload/workload.h"

namespace loom::system {

inline constexpr workload::NodeId kNoNode = 0xffffffffu;

// When each node ran and why it started when it did.
struct NodeTiming {
  Time start;                       // began on its stream (communication: arrived at its rendezvous)
  Time end;
  // What let it start at `start`: the dependency whose completion made it ready, or the node
  // before it on the same stream; kNoNode when it started at time zero.
  workload::NodeId enabler = kNoNode;
  // Communication nodes: the member whose arrival completed the rendezvous (itself if it came
  // last). The operation could not begin before that member's start.
  workload::NodeId rendezvous = kNoNode;
};

class NodeTimings {
 public:
  // Every node of `nodes` held.
  void hold_all(std::uint32_t nodes);
  // Only representatives' nodes and mirrored ranks' nodes for which `held(id)` is true (their
  // communication nodes) held; the rest read as their representative's.
  template <class Held>
  void hold_representatives(const RankSymmetry& classes, Held held);

  std::uint32_t size() const { return nodes_; }
  std::uint64_t held_count() const { return timings_.size(); }
  bool is_held(workload::NodeId id) const { return slots_.empty() || (slots_[id] & kMirrorBit) == 0; }
  // A held node's record, to write.
  NodeTiming& held(workload::NodeId id) {
    LOOM_ASSERT(is_held(id), "a mirrored compute node's timing is its representative's");
    return timings_[slots_.empty() ? id : slots_[id]];
  }
  std::span<NodeTiming> held_records() { return timings_; }
  // Any node's timing.
  NodeTiming operator[](workload::NodeId id) const {
    if (slots_.empty()) return timings_[id];
    const std::uint32_t slot = slots_[id];
    return (slot & kMirrorBit) == 0 ? timings_[slot] : mirrored(id, slot & ~kMirrorBit);
  }
  // A hint that `id`'s record is read soon.
  void prefetch(workload::NodeId id) const {
    if (slots_.empty()) {
      __builtin_prefetch(&timings_[std::min<std::size_t>(id, timings_.size() - 1)]);
    } else {
      __builtin_prefetch(&slots_[std::min<std::size_t>(id, slots_.size() - 1)]);
    }
  }

 private:
  static constexpr std::uint32_t kMirrorBit = 0x80000000u;
  NodeTiming mirrored(workload::NodeId id, std::uint32_t rank) const;

  std::uint32_t nodes_ = 0;
  std::vector<NodeTiming> timings_;   // per held node, in id order
  // With symmetry, per node: its index in timings_, or kMirrorBit | its rank for a node read
  // from its representative's.
  std::vector<std::uint32_t> slots_;
  std::shared_ptr<const RankPrograms> programs_;  // with symmetry: to map by position
  std::vector<std::uint32_t> representative_;               // with symmetry: per rank
};

template <class Held>
void NodeTimings::hold_representatives(const RankSymmetry& classes, Held held) {
  nodes_ = classes.programs()->node_count();
  slots_.assign(nodes_, 0);
  representative_.resize(classes.rank_count());
  for (std::uint32_t r = 0; r < classes.rank_count(); ++r) {
    representative_[r] = classes.representative(r);
    if (representative_[r] == r) continue;
    for (const workload::NodeId id : classes.program(r)) {
      if (!held(id)) slots_[id] = kMirrorBit | r;
    }
  }
  std::uint32_t next = 0;
  for (std::uint32_t& slot : slots_) {
    if ((slot & kMirrorBit) == 0) slot = next++;
  }
  LOOM_ASSERT(next < kMirrorBit, "too many held node timings for a 31-bit slot");
  timings_.assign(next, NodeTiming{});
  timings_.shrink_to_fit();
  programs_ = classes.programs();
}

}  // namespace loom::system
