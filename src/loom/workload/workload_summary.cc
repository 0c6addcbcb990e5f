#include "loom/workload/workload_summary.h"

namespace loom::workload {

WorkloadSummary summarize(const Workload& w) {
  WorkloadSummary s;
  s.ranks.resize(w.rank_count());
  s.dependencies = w.dependency_count();
  s.memory_bytes = w.memory_bytes();
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    RankSummary& r = s.ranks[n.rank];
    ++r.nodes[static_cast<std::size_t>(n.kind)];
    if (n.kind == NodeKind::kCompute) {
      r.flops += n.flops;
      r.compute_time += n.duration;
    } else if (n.kind == NodeKind::kCollective) {
      r.bytes[static_cast<std::size_t>(w.communicator(n.communicator).kind)] += n.bytes;
    } else if (n.kind == NodeKind::kSend) {
      r.bytes[kTrafficKinds - 1] += n.bytes;
    }
  }
  return s;
}

}  // namespace loom::workload
