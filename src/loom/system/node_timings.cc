#include "loom/system/node_timings.h"

namespace loom::system {

void NodeTimings::hold_all(std::uint32_t nodes) {
  nodes_ = nodes;
  timings_.assign(nodes, NodeTiming{});
  slots_ = {};
  programs_.reset();
  representative_ = {};
}

// As the full run's: the representative's node at the same position, its enabler (a node of
// the same rank: classes have no dependencies across ranks) mapped to `rank`.
NodeTiming NodeTimings::mirrored(workload::NodeId id, std::uint32_t rank) const {
  const RankPrograms& p = *programs_;
  const std::uint32_t representative = representative_[rank];
  NodeTiming t = timings_[slots_[p.node(representative, p.position(id, rank))]];
  if (t.enabler != kNoNode) t.enabler = p.node(rank, p.position(t.enabler, representative));
  return t;
}

}  // namespace loom::system
