#include "loom/workload/composition.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload {

std::vector<NodeRange> Composition::append(const Workload& part, std::span<const std::uint32_t> rank_map,
                                           const std::string& prefix, std::uint32_t copies) {
  if (rank_map.size() != part.rank_count()) {
    throw UserError(fmt::format("{}: {} ranks placed for a workload of {}", prefix, rank_map.size(), part.rank_count()));
  }
  std::vector<bool> used(workload_.rank_count(), false);
  for (const std::uint32_t r : rank_map) {
    if (r >= workload_.rank_count() || used[r]) {
      throw UserError(fmt::format("{}: rank {} is out of range or placed twice", prefix, r));
    }
    used[r] = true;
  }
  const CommunicatorId first_comm = workload_.communicator_count();
  for (CommunicatorId c = 0; c < part.communicator_count(); ++c) {
    Communicator copy = part.communicator(c);
    copy.name = prefix + copy.name;
    for (std::uint32_t& r : copy.ranks) r = rank_map[r];
    workload_.add_communicator(std::move(copy));
  }
  std::vector<LabelId> labels(part.label_count());
  for (LabelId l = 0; l < part.label_count(); ++l) labels[l] = workload_.intern_label(prefix + std::string(part.label(l)));

  // A part node is a sink of its copy when no part node depends on it.
  std::vector<bool> has_dependents(part.node_count(), false);
  for (NodeId id = 0; id < part.node_count(); ++id) {
    for (const NodeId d : part.deps(id)) has_dependents[d] = true;
  }
  workload_.reserve(workload_.node_count() + std::size_t{copies} * part.node_count(),
                    workload_.dependency_count() + std::size_t{copies} * part.dependency_count());
  std::vector<NodeRange> ranges;
  std::vector<NodeId> deps;
  for (std::uint32_t k = 0; k < copies; ++k) {
    const NodeId base = workload_.node_count();
    std::vector<std::vector<NodeId>> next_sinks(part.rank_count());
    for (NodeId id = 0; id < part.node_count(); ++id) {
      Node node = part.node(id);
      const std::uint32_t part_rank = node.rank;
      node.rank = rank_map[part_rank];
      if (node.kind == NodeKind::kCollective) node.communicator += first_comm;
      if (node.peer != kNoPeer) node.peer = rank_map[node.peer];
      node.label = labels[node.label];
      deps.clear();
      for (const NodeId d : part.deps(id)) deps.push_back(base + d);
      if (deps.empty()) deps = sinks_[node.rank];
      const NodeId added = workload_.add_node(node, deps);
      if (!has_dependents[id]) next_sinks[part_rank].push_back(added);
    }
    for (std::uint32_t r = 0; r < part.rank_count(); ++r) {
      if (!next_sinks[r].empty()) sinks_[rank_map[r]] = std::move(next_sinks[r]);
    }
    ranges.push_back({base, workload_.node_count()});
  }
  return ranges;
}

NodeId Composition::delay(std::uint32_t rank, Time duration, const std::string& label) {
  Node node;
  node.kind = NodeKind::kCompute;
  node.rank = rank;
  node.duration = duration;
  node.label = workload_.intern_label(label);
  const NodeId id = workload_.add_node(node, sinks_[rank]);
  sinks_[rank] = {id};
  return id;
}

}  // namespace loom::workload
